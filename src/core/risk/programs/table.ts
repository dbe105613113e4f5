import type { ProgramSpec } from "./spec.ts";

/**
 * Option tables of known programs (DSL in spec.ts). Sources: the programs' manuals — GNU coreutils 9 (sort,
 * split, install, date, head, tail, cat, wc, cut, uniq, tee, df, du, ls), GNU grep 3, procps-ng 4 (ps, free,
 * sysctl), iproute2 6 (ss), systemd 255 (systemctl), util-linux (hostname from net-tools/hostname), git 2.4x,
 * curl 8, GNU Wget 1.21, GNU libc iconv, plocate/mlocate updatedb, sysstat pidstat, npm 10, dpkg 1.22, gdisk sgdisk, OpenSSH 9 (ssh, scp), rsync 3.2, strace 6, ltrace, xxd (vim 9), tcpdump 4.99,
 * Info-ZIP zip 3.0, OpenSSL 3, rpm 4.18. Complete tables list every option; partial ones (`complete: false`) list the
 * options with an effect plus those whose arity matters for finding operands.
 */
const COMMON = "--help --version";

const GREP = `-E|--extended-regexp -F|--fixed-strings -G|--basic-regexp -P|--perl-regexp -e|--regexp= -f|--file=R -i|--ignore-case
  --no-ignore-case -v|--invert-match -w|--word-regexp -x|--line-regexp -y -c|--count --color|--colour=? -L|--files-without-match
  -l|--files-with-matches -m|--max-count= -o|--only-matching -q|--quiet|--silent -s|--no-messages -b|--byte-offset
  -H|--with-filename -h|--no-filename --label= -n|--line-number -T|--initial-tab -Z|--null -z|--null-data -A|--after-context=
  -B|--before-context= -C|--context= --group-separator= --no-group-separator -a|--text --binary-files= -D|--devices=
  -d|--directories= --exclude= --exclude-from=R --exclude-dir= -I --include= -r|--recursive -R|--dereference-recursive
  --line-buffered -U|--binary -V|--version --help`;

const SSH_CLIENT = `-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y -B= -b= -c= -D= -E=W
  -e= -F=R!options_from_file -I=P -i= -J=H -L= -l= -m= -O= -o=S -P= -p= -Q= -R= -S= -W= -w=`;

export const PROGRAM_TABLE: Readonly<Record<string, ProgramSpec>> = {
  sort: {
    options: `-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort -i|--ignore-nonprinting
      -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort -r|--reverse -V|--version-sort -c|--check=? -C
      -m|--merge -s|--stable -u|--unique -z|--zero-terminated --debug --random-source=R --sort= -k|--key= -S|--buffer-size=
      -t|--field-separator= -T|--temporary-directory= --parallel= --batch-size= --files0-from=R -o|--output=W
      --compress-program=P ${COMMON}`,
  },
  split: {
    options: `-a|--suffix-length= --additional-suffix= -b|--bytes= -C|--line-bytes= -d --numeric-suffixes=? -x --hex-suffixes=?
      -e|--elide-empty-files --filter=C -l|--lines= -n|--number= -t|--separator= -u|--unbuffered --verbose ${COMMON}`,
    writesOperands: 1,
  },
  uniq: {
    options: `-c|--count -d|--repeated -D --all-repeated=? -f|--skip-fields= --group=? -i|--ignore-case -s|--skip-chars=
      -u|--unique -z|--zero-terminated -w|--check-chars= ${COMMON}`,
    writesOperands: 1,
  },
  tee: { options: `-a|--append -i|--ignore-interrupts -p --output-error=? ${COMMON}`, writesOperands: "all" },
  install: {
    options: `-b --backup=? -C|--compare -c -d|--directory -D -g|--group= -m|--mode= -o|--owner= -p|--preserve-timestamps -s|--strip
      --strip-program=P -S|--suffix= -t|--target-directory=W -T|--no-target-directory -v|--verbose --preserve-context
      -Z|--context=? --debug ${COMMON}`,
  },
  date: {
    options: `-d|--date= --debug -f|--file=R -I|--iso-8601=? -R|--rfc-email --rfc-3339= -r|--reference=R
      -s|--set=!host_state_change -u|--utc|--universal --resolution ${COMMON}`,
  },
  hostname: {
    options: `-a|--alias -A|--all-fqdns -b|--boot -d|--domain -f|--fqdn|--long -F|--file=R!host_state_change -i|--ip-address
      -I|--all-ip-addresses -s|--short -v|--verbose -V|--version -h|--help -y|--yp|--nis -n|--node`,
  },
  head: { options: `-c|--bytes= -n|--lines= -q|--quiet|--silent -v|--verbose -z|--zero-terminated ${COMMON}`, numeric: true },
  tail: {
    options: `-c|--bytes= -f|--follow=? -F -n|--lines= --max-unchanged-stats= --pid= -q|--quiet|--silent --retry
      -s|--sleep-interval= -v|--verbose -z|--zero-terminated --debug ${COMMON}`,
    numeric: true,
  },
  cat: { options: `-A|--show-all -b|--number-nonblank -e -E|--show-ends -n|--number -s|--squeeze-blank -t -T|--show-tabs -u -v|--show-nonprinting ${COMMON}` },
  wc: { options: `-c|--bytes -m|--chars -l|--lines --files0-from=R -L|--max-line-length -w|--words --total= --debug ${COMMON}` },
  cut: { options: `-b|--bytes= -c|--characters= -d|--delimiter= -f|--fields= -n --complement -s|--only-delimited --output-delimiter= -z|--zero-terminated ${COMMON}` },
  df: {
    options: `-a|--all -B|--block-size= -h|--human-readable -H|--si -i|--inodes -k -l|--local --no-sync --output=? -P|--portability
      --sync --total -t|--type= -T|--print-type -x|--exclude-type= -v ${COMMON}`,
  },
  du: {
    options: `-0|--null -a|--all --apparent-size -B|--block-size= -b|--bytes -c|--total -D|--dereference-args -d|--max-depth=
      --files0-from=R -H -h|--human-readable --inodes -k -L|--dereference -l|--count-links -m -P|--no-dereference
      -S|--separate-dirs --si -s|--summarize -t|--threshold= --time=? --time-style= -X|--exclude-from=R --exclude=
      -x|--one-file-system ${COMMON}`,
  },
  ls: {
    options: `-a|--all -A|--almost-all --author -b|--escape --block-size= -B|--ignore-backups -c -C --color=? -d|--directory -D|--dired
      -f -F|--classify=? --file-type --format= --full-time -g --group-directories-first -G|--no-group -h|--human-readable --si
      -H|--dereference-command-line --dereference-command-line-symlink-to-dir --hide= --hyperlink=? --indicator-style= -i|--inode
      -I|--ignore= -k|--kibibytes -l -L|--dereference -m -n|--numeric-uid-gid -N|--literal -o -p -q|--hide-control-chars
      --show-control-chars -Q|--quote-name --quoting-style= -r|--reverse -R|--recursive -s|--size -S --sort= --time= --time-style=
      -t -T|--tabsize= -u -U -v -w|--width= -x -X -Z|--context -1 --zero ${COMMON}`,
  },
  grep: { options: GREP, numeric: true },
  egrep: { options: GREP, numeric: true },
  fgrep: { options: GREP, numeric: true },
  free: {
    options: `-b|--bytes -k|--kibi -m|--mebi -g|--gibi --tebi --pebi --kilo --mega --giga --tera --peta -h|--human --si -l|--lohi
      -L|--line -t|--total -v|--committed -s|--seconds= -c|--count= -w|--wide --help -V|--version`,
  },
  ps: {
    options: `-A -a -c -d -e -f -F -H -j -l -L -m -M -N|--deselect -T -V|--version -w -y -Z|--context -x -C= -G|--Group= -g|--group=
      -p|--pid= --ppid= -q|--quick-pid= -s|--sid= -t|--tty= -U|--User= -u|--user= -O= -o|--format= -n= -k|--sort=
      --cols|--columns|--width= --cumulative --forest --headers --no-headers|--no-heading --lines|--rows= --signames --help=?`,
    // BSD syntax: `e` prints every process's environment (secrets), like reading /proc/*/environ.
    bsd: `a c e!secret_read f h j l m n r s S T u v w x X Z L V O= o= p= q= t= U= k=`,
  },
  ss: {
    options: `-h|--help -V|--version -H|--no-header -O|--oneline -n|--numeric -r|--resolve -a|--all -l|--listening -o|--options
      -e|--extended -m|--memory -p|--processes -T|--threads -i|--info --tipcinfo --tos --cgroup --inet-sockopt
      -K|--kill!kills_connections -s|--summary -E|--events -Z|--context -z|--contexts -N|--net= -b|--bpf -4|--ipv4 -6|--ipv6
      -0|--packet -t|--tcp -M|--mptcp -S|--sctp -u|--udp -d|--dccp -w|--raw -x|--unix --tipc --vsock -f|--family=
      -A|--query|--socket= -D|--diag=W -F|--filter=R --xdp --bpf-maps --bpf-map-id=`,
  },
  sysctl: {
    options: `-a|-A|-X|--all -b|--binary -e|--ignore -N|--names -n|--values -o -x -p|--load=?!kernel_change -q|--quiet -r|--pattern=
      --system!kernel_change -w|--write!kernel_change -d -f -h|--help -V|--version --deprecated`,
  },
  systemctl: {
    options: `-t|--type= --state= -p|--property= -P= -a|--all -r|--recursive --reverse --after --before --with-dependencies
      -l|--full --value --show-types --job-mode= -T|--show-transaction -i|--ignore-inhibitors --check-inhibitors= --kill-whom=
      --kill-value= -s|--signal= --what= -f|--force --message= --now --root= --image= --image-policy= --runtime --preset-mode=
      -n|--lines= -o|--output= --firmware-setup --boot-loader-menu= --boot-loader-entry= --reboot-argument= --plain
      --timestamp= --mkdir --marked --read-only --drop-in= --when= --legend= --no-block --wait --user --system --global
      -H|--host=H -M|--machine= -C|--capsule= --no-wall --no-reload --no-ask-password -q|--quiet --no-warn --no-pager
      --dry-run --failed -h|--help --version`,
  },
  time: { options: `-f|--format= -o|--output=W -a|--append -p|--portability -q|--quiet -v|--verbose --help -V|--version`, posix: true },
  yq: { options: `-i|--inplace -o|--output-format= -p|--input-format= -I|--indent= -e|--exit-status -n|--null-input -r|--unwrapScalar -P|--prettyPrint
      -s|--split-exp= --from-file=R --front-matter= -M|--no-colors -C|--colors -0|--nul-output -N|--no-doc --header-preprocess -v|--verbose -V|--version -h|--help`, complete: false },
  tree: {
    options: `-a -d -l -f -x -L= -R -P= -I= --gitignore --gitfile=R --ignore-case --matchdirs --metafirst --prune --info --infofile=R --noreport
      --charset= --filelimit= -o=W -i -A -S -n -C -q -N -Q -p -u -g -s -h --si --du -D --timefmt= -F --inodes --device -v -t -c -U -r
      --dirsfirst --filesfirst --sort= -X -J -H= -T= --nolinks --hintro=R --houtro=R --fromfile --fromtabfile --fflinks --version --help`,
  },
  sar: { options: `-o=W -f=R -i= -s= -e= -P= -n= -I= -m= -q= -b -B -d -F -H -h -p -r -R -S -t -u -v -w -W -y -A -x -X -z -j= --dev= --fs= --iface= --human --pretty`, complete: false },
  iconv: { options: `-f|--from-code= -t|--to-code= -l|--list -c -o|--output=W -s|--silent --verbose -?|--help --usage -V|--version` },
  updatedb: {
    options: `-f|--add-prunefs= -n|--add-prunenames= -e|--add-prunepaths= -U|--database-root= -h|--help -o|--output=W --prune-bind-mounts=
      --prunefs= --prunenames= --prunepaths= -l|--require-visibility= -v|--verbose -V|--version --debug-pruning`,
  },
  // sysstat pidstat(1): -e PROGRAM ARGS… starts that program and monitors it.
  pidstat: { options: `-e=P -C= -G= -p= -T= -U=? -d -h -H -I -l -r -R -s -t -u -v -w --dec= --human`, complete: false },
  // npx/npm exec (npm 7+): -c|--call STRING runs the string in a shell.
  npx: { options: `-c|--call=C -p|--package= -y|--yes --no -q|--quiet --prefix= --registry= --cache= --userconfig=R`, complete: false, posix: true },
  npm: { options: `--prefix= --userconfig=R --globalconfig=R --registry= --cache= -w|--workspace=`, complete: false, posix: true, verbs: { "exec|x": `-c|--call=C -p|--package= -w|--workspace=` } },
  // dpkg(1): options that run commands (--pre-invoke, --post-invoke, --status-logger) or write a log.
  dpkg: { options: `--admindir= --root= --instdir= --log=W --status-fd= --status-logger=C --pre-invoke=C --post-invoke=C --path-exclude= --path-include= --abort-after= --verify-format= --ignore-depends=`, complete: false },
  // gdisk's sgdisk(8): -b FILE saves the partition data to a file.
  sgdisk: { options: `-b|--backup=W -l|--load-backup=R -i|--info= -a|--set-alignment=`, complete: false },
  sponge: { options: `-a`, writesOperands: 0 },
  // rpm(8), rpm-common(8), rpm-macros(7): macro expressions run shell (`%(cmd)`) and Lua (`%{lua:…}`); --eval
  // expands one, --define sets one that later expansions run, --macros/--load/--rcfile read macro files,
  // --pipe hands the output to a shell command.
  rpm: { options: `-E|--eval=!evaluates_code -D|--define=!evaluates_code --undefine= --macros=L --load=L --rcfile=L --pipe=C --dbpath= -r|--root=`, complete: false },
  strace: {
    options: `-o|--output=W -E|--env=E -e= -O= -p|--attach= -P|--trace-path= -s|--string-limit= -S|--summary-sort-by= -u|--user=
      -b|--detach-on= -I= -X|--const-print-style= -a|--columns= -U|--summary-columns= --trace= --signal= --status= --abbrev=
      --verbose= --raw= --read= --write= --fault= --inject= --kvm= --argv0=`,
    complete: false,
    posix: true,
  },
  ltrace: {
    options: `-o|--output=W -e= -a|--align= -A= -D|--debug= -F|--config=R -l|--library= -L -n|--indent= -p= -s= -u= -w|--where= -x=`,
    complete: false,
    posix: true,
  },
  xxd: {
    options: `-a -autoskip -b -bits -C -capitalize -e -E -EBCDIC -h -help -i -include -p -ps -postscript -plain -r -revert -u
      -uppercase -v -version -d -c= -cols= -g= -groupsize= -l= -len= -o= -offset= -s= -seek= -n= -name= -R=`,
    complete: false,
    writesOperands: 1,
  },
  zip: {
    options: `-TT|--unzip-command=C -O|--out=W -b|--temp-path= -la|--log-append -lf|--logfile-path=W -t|--from-date=
      -tt|--before-date= -i|--include= -x|--exclude= -n|--suffixes= -P|--password= -s|--split-size= -Z|--compression-method=
      -@|--names-stdin -A|--adjust-sfx -T|--test`,
    complete: false,
  },
  tcpdump: {
    options: `-w=W -z=P -Z|--relinquish-privileges= -r=R -V=R -F=R -i|--interface= -c= -s|--snapshot-length= -C= -G= -W= -E= -y= -B= -T=
      -j= -M= -Q= --time-stamp-precision= --count`,
    complete: false,
  },
  curl: {
    options: `-A|--user-agent= -b|--cookie= -c|--cookie-jar=W -C|--continue-at= -d|--data= --data-ascii= --data-binary= --data-raw=
      --data-urlencode= --json= -D|--dump-header=W -e|--referer= -E|--cert= -F|--form= --form-string= -H|--header=
      -K|--config=R!options_from_file -m|--max-time= -o|--output=W -P|--ftp-port= -Q|--quote= -r|--range= -t|--telnet-option=
      -T|--upload-file=R!network_upload -u|--user= -U|--proxy-user= -w|--write-out= -x|--proxy= -X|--request= -y|--speed-time=
      -Y|--speed-limit= -z|--time-cond= --trace=W --trace-ascii=W --stderr=W --libcurl=W --etag-save=W --hsts=W --alt-svc=W --engine=L
      --output-dir=W --url= --connect-timeout= --retry= --resolve= --connect-to= --cacert= --key= --unix-socket= --abstract-unix-socket=
      -0 -1 -2 -3 -4 -6 -a -B -f -g -G -i -I -j -J -k -l -L -M -n -N -O -p -q -R -s -S -v -V -Z -#`,
    complete: false,
  },
  wget: {
    options: `-O|--output-document=W -o|--output-file=W -a|--append-output=W -P|--directory-prefix=W -e|--execute=!options_from_file
      --config=R!options_from_file --use-askpass=P --post-file=R!network_upload --body-file=R!network_upload -i|--input-file=R -B|--base=
      -t|--tries= -T|--timeout= -w|--wait= -U|--user-agent= --header= --method= --post-data= --body-data= -Q|--quota= -l|--level=
      -A|--accept= -R|--reject= -D|--domains= -X|--exclude-directories= -I|--include-directories= --user= --password=
      -q -v -d -c -N -S -b -r -m -p -k -K -E -H -L -x -nd -nH -nv -nc -np`,
    complete: false,
  },
  ssh: { options: SSH_CLIENT, complete: false, posix: true },
  scp: {
    options: `-3 -4 -6 -A -B -C -O -p -q -R -r -s -T -v -c= -D=P -F=R!options_from_file -i= -J=H -l= -o=S -P= -S=P -X=`,
    complete: false,
  },
  rsync: {
    options: `-e|--rsh=C --rsync-path=C --log-file=W --write-batch=W --only-write-batch=W --read-batch=R --files-from=R
      --exclude-from=R --include-from=R --password-file=R -f|--filter= --exclude= --include= -B|--block-size= -M|--remote-option=
      -T|--temp-dir= --backup-dir= --partial-dir= --compare-dest= --copy-dest= --link-dest= --chmod= --chown= --usermap=
      --groupmap= --timeout= --contimeout= --port= --sockopts= --out-format= --log-file-format= --bwlimit= --max-size=
      --min-size= --suffix= --iconv= --info= --debug= --stop-after= --stop-at= --checksum-choice= --compress-choice=
      --compress-level= --skip-compress= --modify-window= --max-delete= --max-alloc= --outbuf= --mkpath --address=
      -v -q -c -a -r -R -b -u -l -L -k -K -H -p -E -A -X -o -g -D -t -O -J -S -n -W -x -C -y -z -h -P -i -s -8 -4 -6 -F -0 -m -d -I`,
    complete: false,
  },
  sftp: { options: `-4 -6 -A -a -C -f -N -p -q -R= -r -v -B= -b=R -c= -D=P -F=R!options_from_file -i= -J=H -l= -o=S -P= -S=P -s=P -X=`, complete: false },
  apt: { options: `-o|--option=S -c|--config-file=R!options_from_file -t|--target-release= -a|--host-architecture= -y|--yes|--assume-yes -q|--quiet -s|--simulate`, complete: false, posix: true },
  "apt-get": { options: `-o|--option=S -c|--config-file=R!options_from_file -t|--target-release= -a|--host-architecture= -y|--yes|--assume-yes -q|--quiet -s|--simulate`, complete: false, posix: true },
  patch: {
    options: `-o|--output=W -i|--input=R -d|--directory= -p|--strip= -r|--reject-file=W -B|--prefix= -D|--ifdef= -F|--fuzz= -V|--version-control=
      -Y|--basename-prefix= -z|--suffix= -g|--get= -b|--backup -N|--forward -R|--reverse -s|--silent|--quiet -t|--batch -f|--force -u|--unified
      -c|--context -e|--ed -n|--normal -E|--remove-empty-files -l|--ignore-whitespace --dry-run --verbose --binary --posix ${COMMON}`,
    writesOperands: 0,
  },
  csplit: { options: `-b|--suffix-format= -f|--prefix=W -k|--keep-files --suppress-matched -n|--digits= -s|--quiet|--silent -z|--elide-empty-files ${COMMON}` },
  gpg: { options: `-o|--output=W --homedir= -r|--recipient= -u|--local-user= --default-key= --keyring= --secret-keyring= --trustdb-name= --passphrase-file=R --status-file=W --logger-file=W --attribute-file=W`, complete: false },
  less: { options: `-o|--log-file=W -O|--LOG-FILE=W -k|--lesskey-file=R -b|--buffers= -h|--max-back-scroll= -j|--jump-target= -p|--pattern= -P|--prompt= -t|--tag= -T|--tag-file= -x|--tabs= -y|--max-forw-scroll= -z|--window= -#|--shift=`, complete: false },
  git: {
    options: `-C= -c= --git-dir=L --work-tree=L --namespace= --config-env= --super-prefix= --exec-path=? --list-cmds= --attr-source=
      -p|--paginate -P|--no-pager --no-replace-objects --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs
      --icase-pathspecs --no-optional-locks --no-lazy-fetch --no-advice -v|--version -h|--help --html-path --man-path --info-path`,
    posix: true,
    verbs: {
      "diff|show|log|whatchanged|diff-tree|diff-files|diff-index|range-diff|stash": "--output=W -O=R",
      "format-patch": "-o|--output-directory=W --output=W",
      archive: "-o|--output=W --exec=C --remote=H",
      "clone|fetch|pull|ls-remote|push": "-u|--upload-pack=C --receive-pack=C --exec=C",
      grep: "-O|--open-files-in-pager=?C -f=R",
      config: "-f|--file=W --blob= -e|--edit",
      blame: "--contents=R -S=R",
      "fast-export": "--export-marks=W --import-marks=R --import-marks-if-exists=R",
      "fast-import": "--export-marks=W --import-marks=R --import-marks-if-exists=R",
      // Any other verb (an alias such as `lg` for `log` may stand for a diff-family command).
      "*": "--output=W",
    },
  },
  openssl: {
    options: "",
    posix: true,
    complete: false,
    verbs: { "*": "-out=W -keyout=W -writerand=W -engine=L -provider=L -provider-path=L -config=L -in= -passin= -passout=" },
  },
};
