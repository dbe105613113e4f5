import type { RiskLevel } from "./types.ts";

/**
 * The command table: the level a command has before any rule looks at its arguments. A command that is
 * in no list is unknown and gets `high` (the engine cannot vouch for it). Sources: coreutils, util-linux,
 * procps, systemd and git manuals for which verbs only read; the corpus for the examples.
 */

/** Commands that only read (or print) unless a rule says otherwise. */
export const READ_ONLY = new Set(`
ls ll dir vdir cat tac head tail less more most grep egrep fgrep rg ag ack wc sort uniq cut tr echo printf pwd
whoami id hostname uname uptime date df du free ps top htop atop pgrep pidof lsof ss netstat ifconfig ping ping6
dig nslookup host traceroute tracepath mtr curl journalctl dmesg lsblk blkid findmnt stat file which type whereis
realpath readlink basename dirname find locate tree env printenv test [ [[ true false : cd pushd popd sleep seq
diff cmp comm md5sum sha1sum sha256sum sha512sum b2sum cksum base64 base32 xxd od hexdump strings jq yq awk gawk
mawk nawk sed column nl rev paste join fold fmt expand unexpand timedatectl hostnamectl loginctl lscpu lsmem
lspci lsusb lsmod vmstat iostat mpstat pidstat sar nproc getent last lastlog w who users groups locale ulimit
export declare typeset local readonly set unset shift return exit break continue wait jobs history hash
alias unalias read getconf arch tty stty zcat zless zgrep bzcat xzcat openssl systemd-analyze systemd-cgls
systemd-cgtop busctl resolvectl networkctl ip iptables-save nft ufw firewall-cmd sysctl mount swapon
apt-cache dpkg dpkg-query rpm apt apt-get dnf yum zypper pacman apk snap flatpak npm pip pip3 git docker podman kubectl
systemctl service crontab tee time fc logger column iconv shasum numfmt factor expr bc dc cal ncal watch
lsattr getfacl namei lslocks lsns lsipc chage ldd nm objdump readelf size true yes tput clear reset
iptables ip6tables fdisk sfdisk parted gdisk sgdisk shutdown reboot halt poweroff init telinit
`.trim().split(/\s+/));

/** Commands that change files or the system in ordinary, recoverable ways. */
export const MUTATING = new Set(`
rm rmdir mkdir touch cp mv ln chmod chown chgrp install dd truncate tar zip unzip gzip gunzip bzip2 bunzip2 xz
unxz zstd 7z rsync scp sftp wget patch make cmake ninja go cargo rustc gcc cc clang yarn pnpm npx bun deno-cache
kill pkill killall renice logrotate ldconfig update-alternatives updatedb mktemp split csplit shred sponge
git-lfs helm terraform ansible-playbook fallocate mkfifo sync nc ncat netcat socat ssh-keygen gpg setfacl chattr
`.trim().split(/\s+/));

/** Shells: `-c STRING` and standard input are code. */
export const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash", "nu", "xonsh", "elvish", "ysh", "osh", "oil", "rc", "es", "ion", "murex"]);

/**
 * Shells whose grammar differs from bash's in ways that run code (fish's `(cmd)`, zsh's glob qualifiers and
 * `=(cmd)`, csh's history and `:` modifiers; nushell, xonsh, elvish, Oils, rc/es, ion and murex are other languages):
 * the engine reads their code with bash's grammar only as a hint.
 */
export const FOREIGN_SHELLS = new Set(["fish", "csh", "tcsh", "zsh", "nu", "xonsh", "elvish", "ysh", "osh", "oil", "rc", "es", "ion", "murex"]);

/** Other interpreters: `-c`/`-e` strings, scripts and standard input are code the engine cannot analyse. */
export const INTERPRETERS = new Set([
  "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "luajit", "tclsh", "wish", "Rscript",
  "deno", "bun", "osascript", "pwsh", "powershell", "expect", "gdb", "irb", "jshell", "groovy", "scala", "julia",
  "guile", "racket", "sbcl", "erl", "elixir",
]);

/** Programs that fetch data from the network to standard output or a file. */
export const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "lwp-download", "lwp-request", "GET", "http", "https", "xh", "nc", "ncat", "netcat", "socat", "tftp", "ftp"]);

/** Programs that turn one text into another; their output cannot be read from the command line. */
export const TRANSFORMERS = new Set([
  "base64", "base32", "basenc", "xxd", "openssl", "tr", "rev", "sed", "awk", "gawk", "mawk", "perl", "python", "python3",
  "gzip", "gunzip", "zcat", "bzip2", "bzcat", "xz", "xzcat", "zstd", "uudecode", "od", "iconv", "gpg", "jq", "cut", "printf",
]);

/** Level for a command nobody has classified (fail closed: a human must look). */
export const UNKNOWN_LEVEL: RiskLevel = "high";

/** Base level from the table alone. */
export function baseLevel(name: string): RiskLevel {
  if (READ_ONLY.has(name)) return "low";
  if (MUTATING.has(name)) return "medium";
  return UNKNOWN_LEVEL;
}

/** Every name the table knows (used to resolve globs in the command position). */
export function knownNames(): string[] {
  return [...READ_ONLY, ...MUTATING, ...SHELLS, ...INTERPRETERS];
}
