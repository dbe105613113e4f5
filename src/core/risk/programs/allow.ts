import { compileOptions, parseProgram, type CompiledProgram, type OptionSet, type ProgramParse, type ProgramSpec } from "./spec.ts";
import type { Cmd } from "../command.ts";
import type { Arg } from "../words.ts";
import { PROGRAMS, programOf } from "./index.ts";

/**
 * Allow-lists for the router (issue 19): the options with which a read-only program stays `low`, i.e. is predicted to
 * need nothing the unapproved-command sandbox denies. Written in the option-table DSL of spec.ts; unlike the option
 * tables (programs/table.ts, every option of the manual with its effect), a list here is the subset vetted as reading
 * only, and any other option is "not on the allow-list" (the line is then at least medium, never low).
 *
 * A read-only program with a complete option table needs no entry: its table is its allow-list (an unknown option is
 * already `unknown_option`, effects are judged by the rules). A read-only program with neither a complete table nor an
 * entry here is low only without options. Sources: each program's manual (util-linux 2.39, procps-ng 4, iproute2 6,
 * systemd 255, git 2.4x, curl 8, OpenSSL 3, findutils 4.9, GNU sed 4.9, gawk 5, bash 5.2 builtins).
 */
const LOG_OPTS = `--oneline --stat=? --shortstat --numstat --name-only --name-status --format= --pretty=? --graph --all --decorate=? --no-decorate
  --abbrev-commit --no-abbrev-commit --abbrev=? -p|--patch -u -s|--no-patch -n|--max-count= --skip= --since|--after= --until|--before=
  --author= --committer= --grep= -i|--regexp-ignore-case -E|--extended-regexp -F|--fixed-strings --reverse --first-parent --merges
  --no-merges --follow --date= --relative-date -L= -S= -G= --pickaxe-regex --color=? --no-color --source --summary --raw
  --full-history --simplify-by-decoration --branches=? --tags=? --remotes=? --left-right --cherry-pick --boundary --topo-order
  --date-order --full-diff -w|--ignore-all-space -b|--ignore-space-change -M|--find-renames=? -C|--find-copies=? --diff-filter= --cc -c -m
  --no-walk=? -z -q|--quiet --mailmap --show-signature --check --dirstat=? --patch-with-stat -U|--unified= --minimal --histogram
  --patience --stat-width= --compact-summary --notes=? --no-notes --encoding= --no-pager --exit-code --word-diff=? --no-renames`;
const DIFF_OPTS = `${LOG_OPTS} --cached --staged --no-index --merge-base -R --relative=? --ignore-blank-lines --ignore-cr-at-eol -a|--text --binary`;

const DOCKER_ALLOW: ProgramSpec = {
  options: "--context= -l|--log-level= -D|--debug",
  posix: true,
  verbs: { "*": "-a|--all -q|--quiet --format= --no-trunc --tail= -f|--follow --since= --until= --no-stream -n|--last= -s|--size --filter= -t|--timestamps --details" },
};
const PIP_ALLOW: ProgramSpec = { options: "--outdated -o --uptodate -u --format= --not-required --user -v|--verbose -l|--local --no-index -f|--files -q|--quiet --version -V" };

export const ALLOW_TABLE: Readonly<Record<string, ProgramSpec>> = {
  echo: { options: "-n -e -E", posix: true },
  rg: { options: `-n|--line-number -N|--no-line-number -i|--ignore-case -s|--case-sensitive -S|--smart-case -l|--files-with-matches --files -w|--word-regexp -v|--invert-match
    -c|--count -F|--fixed-strings -g|--glob= -t|--type= -T|--type-not= --hidden --no-ignore -C|--context= -A|--after-context= -B|--before-context= -m|--max-count=
    -d|--max-depth= -e|--regexp= -u|--unrestricted -o|--only-matching --json --color= --heading --no-heading -H|--with-filename -I|--no-filename --vimgrep -U|--multiline` },
  netstat: { options: "-t|--tcp -u|--udp -l|--listening -p|--program -n|--numeric -a|--all -r|--route -i|--interfaces -s|--statistics -e|--extend -W|--wide -x|--unix -w|--raw -4 -6 -c|--continuous -g|--groups" },
  docker: DOCKER_ALLOW,
  podman: DOCKER_ALLOW,
  kubectl: { options: `-n|--namespace= -A|--all-namespaces --context= --cluster= -o|--output= -l|--selector= -w|--watch --show-labels --no-headers --sort-by=
    --field-selector= --tail= --since= -c|--container= -f|--follow -p|--previous --timestamps --all-containers --request-timeout=` },
  apt: { options: "--installed --upgradable --all-versions -a -q -qq" },
  "apt-cache": { options: "-q -qq --no-all-versions --names-only -n --full -f --installed -i" },
  dpkg: { options: "-l|--list -L|--listfiles -s|--status -S|--search -p|--print-avail --print-architecture --print-foreign-architectures --get-selections --no-pager -V|--verify --compare-versions" },
  "dpkg-query": { options: "-l|--list -L|--listfiles -s|--status -S|--search -p|--print-avail -W|--show -f|--showformat= --no-pager" },
  rpm: { options: "-q|--query -a|--all -i|--info -l|--list -f|--file -c|--configfiles -d|--docfiles -V|--verify --qf|--queryformat= --last --changelog --provides --requires --whatprovides --whatrequires" },
  dnf: { options: "--installed --available -q|--quiet -C|--cacheonly --showduplicates" },
  yum: { options: "--installed --available -q|--quiet -C|--cacheonly --showduplicates" },
  npm: { options: "--depth= --all -g|--global --json --long -l --parseable -p --prod --dev --omit=" },
  pip: PIP_ALLOW,
  pip3: PIP_ALLOW,
  printf: { options: "-v=", posix: true },
  cd: { options: "-L -P -e -@", posix: true },
  pushd: { options: "-n", posix: true },
  popd: { options: "-n", posix: true },
  export: { options: "-p -n -f", posix: true },
  declare: { options: "-a -A -f -F -g -i -I -l -n -r -t -u -x -p" },
  typeset: { options: "-a -A -f -F -g -i -I -l -n -r -t -u -x -p" },
  local: { options: "-a -A -i -l -n -r -u -x -p" },
  readonly: { options: "-a -A -f -p" },
  unset: { options: "-f -v -n" },
  read: { options: "-r -s -a= -d= -e -i= -n= -N= -p= -t= -u=" },
  wait: { options: "-n -f -p=" },
  jobs: { options: "-l -n -p -r -s" },
  hash: { options: "-r -l -t -d" },
  alias: { options: "-p" },
  unalias: { options: "-a" },
  type: { options: "-a -f -p -P -t" },
  ulimit: { options: "-S -H -a -b -c -d -e -f -i -k -l -m -n -p -q -r -s -t -u -v -x -P -R -T" },
  history: { options: "-c -d= -p -s -n" },
  sleep: { options: "" },
  seq: { options: "-f|--format= -s|--separator= -w|--equal-width" },
  uptime: { options: "-p|--pretty -s|--since -h|--help -V|--version" },
  uname: { options: "-a|--all -s|--kernel-name -n|--nodename -r|--kernel-release -v|--kernel-version -m|--machine -p|--processor -i|--hardware-platform -o|--operating-system" },
  id: { options: "-a -Z|--context -g|--group -G|--groups -n|--name -r|--real -u|--user -z|--zero" },
  whoami: { options: "" },
  top: { options: "-b -c -H -i -S -s -1 -d= -n= -o= -O -p= -u= -U= -w=? -E= -e=", numeric: false },
  pgrep: { options: "-a|--list-full -l|--list-name -c|--count -d|--delimiter= -f|--full -g|--pgroup= -G|--group= -i|--ignore-case -n|--newest -o|--oldest -O|--older= -P|--parent= -s|--session= -t|--terminal= -u|--euid= -U|--uid= -v|--inverse -w|--lightweight -x|--exact -r|--runstates= --ns= --nslist=" },
  pidof: { options: "-s -c -n -q -x -z -w -o=" },
  lsof: { options: "-i=? -n -P -p= -u= -c= -t -a -l -s=? -U -F=? -d= -R -w" },
  journalctl: {
    options: `-u|--unit= --user-unit= -p|--priority= -b|--boot=? -k|--dmesg -n|--lines=? -f|--follow --no-tail -r|--reverse -o|--output= --output-fields=
      -x|--catalog -e|--pager-end --since|-S= --until|-U= --no-pager --no-hostname -a|--all -q|--quiet --utc -t|--identifier= -g|--grep= --case-sensitive=?
      --disk-usage --list-boots -l|--full -m|--merge --system --user -F|--field= -N|--fields --facility= --cursor= --after-cursor= --show-cursor
      -M|--machine= -D|--directory= --file= --root= --namespace= -h|--help --version --no-full -T|--exclude-identifier=`,
    numeric: false,
  },
  dmesg: { options: "-T|--ctime -H|--human -L|--color=? -l|--level= -f|--facility= -k|--kernel -u|--userspace -x|--decode -t|--notime -e|--reltime -w|--follow -W|--follow-new -r|--raw -P|--nopager --time-format= -S|--syslog -d|--show-delta --since= --until=" },
  lsblk: { options: "-a|--all -b|--bytes -d|--nodeps -D|--discard -e|--exclude= -f|--fs -i|--ascii -I|--include= -J|--json -l|--list -m|--perms -n|--noheadings -o|--output= -O|--output-all -p|--paths -P|--pairs -r|--raw -s|--inverse -S|--scsi -t|--topology -T|--tree=? -x|--sort= -z|--zoned -M|--merge -N|--nvme -v|--virtio" },
  blkid: { options: "-c= -d -g -h -i -k -l -L= -n= -o= -p -s= -t= -u= -U= -w=" },
  findmnt: { options: "-A|--all -a|--ascii -b|--bytes -c|--canonicalize -D|--df -d|--direction= -e|--evaluate -F|--tab-file= -f|--first-only -i|--invert -J|--json -k|--kernel -l|--list -M|--mountpoint= -m|--mtab -N|--task= -n|--noheadings -O|--options= -o|--output= --output-all -P|--pairs -p|--poll=? -R|--submounts -r|--raw -S|--source= -s|--fstab -T|--target= -t|--types= -U|--uniq -u|--notruncate -v|--nofsroot -x|--verify -y|--shell" },
  ip: { options: "-4 -6 -0 -br|-brief -c|-color=? -d|-details -s|-stats|-statistics -o|-oneline -j|-json -p|-pretty -h|-human -r|-resolve -t|-timestamp -f|-family= -N|-Numeric", posix: true },
  ping: { options: "-c= -i= -W= -w= -q -n -4 -6 -s= -t= -I= -D -O" },
  dig: { options: "-4 -6 -t= -x= -p= -c= -q= -b= -y= -k=R -f=R" },
  nslookup: { options: "-type= -query= -port= -timeout= -debug" },
  host: { options: "-a -A -c= -C -d -l -n -p= -r -s -t= -T -U -v -V -w -W= -R= -N= -4 -6" },
  hostnamectl: { options: "--no-pager --static --transient --pretty -H|--host= -M|--machine= --json= --no-ask-password -h|--help --version" },
  timedatectl: { options: "--no-pager -a|--all -p|--property= --value --adjust-system-clock --monitor -H|--host= -M|--machine= --no-ask-password -h|--help --version" },
  who: { options: "-a -b -d -H -l -m -p -q -r -s -t -T -u --lookup" },
  last: { options: "-n= -a -d -F -i -w -x -R -s|--since= -t|--until= -p|--present= --time-format=", numeric: true },
  w: { options: "-h -u -s -f -i -o" },
  getent: { options: "-s|--service= -i|--no-idn" },
  stat: { options: "-L|--dereference -f|--file-system -c|--format= --printf= -t|--terse --cached=" },
  file: { options: "-b|--brief -i|--mime -L|--dereference -s|--special-files -z|--uncompress -k|--keep-going -E -p|--preserve-date -h|--no-dereference" },
  which: { options: "-a -s" },
  whereis: { options: "-b -m -s -u -l" },
  readlink: { options: "-f|--canonicalize -e|--canonicalize-existing -m|--canonicalize-missing -n|--no-newline -q|--quiet -s|--silent -v|--verbose -z|--zero" },
  realpath: { options: "-e|--canonicalize-existing -m|--canonicalize-missing -L|--logical -P|--physical -q|--quiet -s|--strip|--no-symlinks -z|--zero --relative-to= --relative-base=" },
  sha256sum: { options: "-b|--binary -c|--check --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn" },
  md5sum: { options: "-b|--binary -c|--check --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn" },
  sha1sum: { options: "-b|--binary -c|--check --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn" },
  sha512sum: { options: "-b|--binary -c|--check --tag -t|--text -z|--zero --ignore-missing --quiet --status --strict -w|--warn" },
  awk: { options: "-F|--field-separator= -v|--assign= -b|--characters-as-bytes -P|--posix --traditional -S|--sandbox -e|--source=" },
  gawk: { options: "-F|--field-separator= -v|--assign= -b|--characters-as-bytes -P|--posix --traditional -S|--sandbox -e|--source=" },
  mawk: { options: "-F= -v=" },
  nawk: { options: "-F= -v=" },
  sed: { options: "-n|--quiet|--silent -E|-r|--regexp-extended -e|--expression= -z|--null-data -s|--separate -u|--unbuffered --posix --debug --sandbox -l|--line-length=" },
  tr: { options: "-c|-C|--complement -d|--delete -s|--squeeze-repeats -t|--truncate-set1" },
  column: { options: "-t|--table -s|--separator= -o|--output-separator= -n|--table-name= -N|--table-columns= -R|--table-right= -J|--json -c|--output-width= -x|--fillrows -L|--keep-empty-lines" },
  env: { options: "-0|--null" },
  printenv: { options: "-0|--null" },
  jq: { options: "-r|--raw-output -j|--join-output -c|--compact-output -s|--slurp -n|--null-input -e|--exit-status -a|--ascii-output -S|--sort-keys -C|--color-output -M|--monochrome-output --tab --indent= --arg= --argjson= --seq --stream -R|--raw-input" },
  vmstat: { options: "-a|--active -f|--forks -m|--slabs -n|--one-header -s|--stats -d|--disk -D|--disk-sum -p|--partition= -S|--unit= -t|--timestamp -w|--wide -y|--no-first" },
  iostat: { options: "-c -d -h -k -m -N -p=? -t -V -x -y -z -j= -o= --human --pretty" },
  mpstat: { options: "-A -u -I= -P= -n -T -o= --dec=" },
  lscpu: { options: "-a|--all -b|--online -c|--offline -e|--extended=? -p|--parse=? -J|--json -s|--sysroot= -x|--hex -y|--physical -B|--bytes" },
  lsmod: { options: "" },
  nproc: { options: "--all --ignore=" },
  crontab: { options: "-l -u=" },
  ufw: { options: "--dry-run", posix: true },
  iptables: { options: "-L|--list=? -S|--list-rules=? -n|--numeric -v|--verbose -x|--exact --line-numbers -t|--table= -w|--wait=?", posix: false },
  ip6tables: { options: "-L|--list=? -S|--list-rules=? -n|--numeric -v|--verbose -x|--exact --line-numbers -t|--table= -w|--wait=?" },
  nft: { options: "-a|--handle -n|--numeric -s|--stateless -j|--json -t|--terse -y|--numeric-priority -N|--reversedns -S|--service", posix: true },
  mount: { options: "-l|--show-labels -t|--types=" },
  find: {
    options: `-name= -iname= -path= -ipath= -wholename= -iwholename= -regex= -iregex= -type= -xtype= -mtime= -mmin= -atime= -amin= -ctime= -cmin=
      -newer= -anewer= -cnewer= -newermt= -size= -empty -perm= -user= -group= -uid= -gid= -nouser -nogroup -links= -inum= -samefile= -maxdepth= -mindepth=
      -xdev -mount -depth -follow -noleaf -readable -writable -executable -not -and -or -a -o -true -false -prune -print -print0 -printf= -ls -quit
      -fstype= -daystart -regextype= -lname= -ilname= -exec -execdir -ok -okdir -P -L -H`,
  },
  openssl: {
    options: "",
    posix: true,
    verbs: {
      x509: "-in= -noout -text -dates -subject -issuer -enddate -startdate -serial -fingerprint -purpose -ext= -nameopt= -inform= -sha256 -sha1 -modulus -pubkey -checkend= -email -hash -subject_hash -issuer_hash",
      s_client: "-connect= -servername= -showcerts -brief -tls1_2 -tls1_3 -alpn= -starttls= -verify_return_error -CAfile= -CApath= -no_ign_eof -quiet -status -verify= -host= -port=",
      version: "-a -v -b -o -f -p -d",
      verify: "-CAfile= -CApath= -untrusted= -purpose= -verbose -show_chain",
      "req|crl|rsa|ec|pkey": "-in= -noout -text -inform= -pubout -pubin -verify -check",
      "dgst|sha256|sha1|md5": "-sha256 -sha1 -md5 -r -hex -binary -c",
      ciphers: "-v -V -s -tls1_2 -tls1_3 -stdname",
      "list|help": "-commands -digest-commands -cipher-commands -cipher-algorithms -digest-algorithms -public-key-algorithms -providers",
    },
  },
  curl: {
    options: `-s|--silent -S|--show-error -f|--fail --fail-with-body -I|--head -i|--include -L|--location -v|--verbose -k|--insecure -o|--output=W -O|--remote-name
      -w|--write-out= -m|--max-time= --connect-timeout= -H|--header= -A|--user-agent= -4|--ipv4 -6|--ipv6 --compressed -G|--get -X|--request= -r|--range=
      --retry= --retry-delay= --retry-max-time= --resolve= --connect-to= --cacert= --capath= -e|--referer= -u|--user= -x|--proxy= --noproxy= -#|--progress-bar
      --no-progress-meter --http1.1 --http2 --max-redirs= --url= -j|--junk-session-cookies -N|--no-buffer -Z|--parallel --location-trusted -R|--remote-time
      --stderr= -n|--netrc --ssl-reqd --tlsv1.2 --tlsv1.3 -q|--disable --path-as-is --raw --tr-encoding --expect100-timeout= --dns-servers= --interface=`,
  },
  git: {
    options: `-C= -c= -P|--no-pager -p|--paginate --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-replace-objects
      -v|--version -h|--help --no-advice`,
    posix: true,
    numeric: true,
    verbs: {
      "log|show|whatchanged|shortlog|reflog|rev-list": `${LOG_OPTS} -e|--email -N`,
      "diff|diff-tree|diff-index|diff-files|range-diff": DIFF_OPTS,
      status: "-s|--short -b|--branch --porcelain=? --long -v|--verbose -u|--untracked-files=? --ignored=? --ignore-submodules=? -z --column=? --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames=? --show-stash",
      blame: "-L= -l -t -S= --reverse= --first-parent -p|--porcelain --line-porcelain --incremental --root --show-stats -f|--show-name -n|--show-number -s -e|--show-email -w --ignore-rev= --color-lines --color-by-age -c --abbrev= -M=? -C=? --date= --since=",
      "rev-parse": "--short=? --abbrev-ref=? --verify -q|--quiet --show-toplevel --git-dir --absolute-git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository --show-prefix --show-cdup --symbolic --symbolic-full-name --all --branches=? --tags=? --remotes=? --default= --sq --not --git-common-dir --show-superproject-working-tree --path-format= --since= --until= --git-path=",
      "merge-base": "--all --octopus --independent --is-ancestor --fork-point",
      "ls-files": "-c|--cached -d|--deleted -m|--modified -o|--others -i|--ignored -s|--stage -u|--unmerged -k|--killed -z -t -v -f --directory --no-empty-directory --eol --exclude-standard -x|--exclude= --full-name --recurse-submodules --abbrev=? --error-unmatch --deduplicate --format= --sparse",
      "ls-tree": "-d -r -t -l|--long -z --name-only --name-status --object-only --full-name --full-tree --abbrev=? --format=",
      describe: "--all --tags --contains --abbrev= --candidates= --exact-match --long --match= --exclude= --always --first-parent --dirty=? --broken=?",
      "for-each-ref": "--count= --sort= --format= --points-at= --merged=? --no-merged=? --contains=? --no-contains=? --ignore-case --omit-empty --exclude=",
      "show-ref": "--head --heads --branches --tags -d|--dereference -s|--hash=? --verify --abbrev=? -q|--quiet --exists",
      "count-objects": "-v|--verbose -H|--human-readable",
      grep: `-i|--ignore-case -I -w|--word-regexp -v|--invert-match -h -H --full-name -E|--extended-regexp -G|--basic-regexp -F|--fixed-strings -P|--perl-regexp -n|--line-number
        --column -l|--files-with-matches -L|--files-without-match -z|--null -o|--only-matching -c|--count --color=? --no-color --break --heading -p|--show-function
        -A|--after-context= -B|--before-context= -C|--context= -W|--function-context -m|--max-count= --threads= -e= --and --or --not --all-match -q|--quiet
        --cached --untracked --no-index --recurse-submodules -a|--text --max-depth= -r|--recursive --no-recursive`,
      "cat-file": "-t -s -e -p",
      "name-rev": "--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always",
    },
  },
};

/** One allow-list compiled: options and per-verb options, all complete (anything else is not on the list). */
const EMPTY = (name: string): OptionSet => compileOptions(name, "", true);
function compileAllow(name: string, spec: ProgramSpec): CompiledProgram {
  const options = compileOptions(`${name} (allow-list)`, spec.options, true);
  const verbs = new Map<string, OptionSet>();
  if (spec.verbs) {
    for (const [verb, text] of Object.entries(spec.verbs)) for (const v of verb.split("|")) verbs.set(v, compileOptions(`${name} ${v} (allow-list)`, text, true));
    if (!verbs.has("*")) verbs.set("*", EMPTY(name));
  }
  return { name, spec: { ...spec, complete: true }, options, bsd: null, verbs, size: 0, effectful: false };
}

/** Every allow-list, compiled once at load (a malformed entry throws here, so it never loads). */
export const ALLOW_LISTS: ReadonlyMap<string, CompiledProgram> = new Map(Object.entries(ALLOW_TABLE).map(([n, s]) => [n, compileAllow(n, s)]));

/**
 * `args` (the command's words, or a prefix of them) read with the allow-list of `cmd.name`: its entry in ALLOW_TABLE,
 * else the program's complete option table; null when it has neither (then any option word is off the list).
 */
export function allowParse(cmd: Cmd, args: readonly Arg[]): ProgramParse | null {
  const allow = ALLOW_LISTS.get(cmd.name);
  if (allow) return parseProgram(allow, args);
  const table = PROGRAMS.get(cmd.name);
  if (!table || !(table.spec.complete ?? true)) return null;
  // The same words as the command's: reuse its parse (cached on the command).
  return args === cmd.args ? programOf(cmd) : parseProgram(table, args);
}
