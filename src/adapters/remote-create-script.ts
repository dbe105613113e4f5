/**
 * The one fixed POSIX sh script behind HostMutator.createRootFile over SSH (issue 24, AddSwapFile). Sent as
 * `sh -c SCRIPT hostgate-create PATH MODE BYTES`, every argument quoted by shellJoin; nothing from the caller is
 * ever part of the script text. Needs GNU coreutils `stat -c` and util-linux `fallocate`.
 *
 * It checks every directory from `/` down to PATH's directory, top down, without following links (`[ -L ]`
 * first): each must be a directory owned by uid 0 whose mode has no group or other write bit (the rule of
 * core/host/root-only-dir.ts). Once a directory passes, only root can change names in it, so the next check
 * cannot be raced by anyone else, and neither can the steps after the walk: PATH must not exist (not even as a
 * link), is created with noclobber (O_EXCL) under umask 077, given MODE, then allocated (fallocate -l BYTES);
 * a failed allocation removes the file.
 *
 * Output: one line `hostgate-create: <word> [detail]` and an exit status the adapter maps:
 * 0 ok · 10 dir <path> (missing or not a directory) · 17 failed <step> · 20 notrootonly <reason> · 21 exists.
 */
export const CREATE_SCRIPT = `set -u
umask 077
say() { printf 'hostgate-create: %s\\n' "$*"; }
path=$1 mode=$2 bytes=$3
dir=\${path%/*}
check() {
  if [ -L "$1" ]; then say notrootonly "$1 is a symbolic link"; exit 20; fi
  [ -d "$1" ] || { say dir "$1"; exit 10; }
  facts=$(stat -c '%u %a' -- "$1") || { say failed stat; exit 17; }
  uid=\${facts% *} perm=\${facts#* }
  [ "$uid" = 0 ] || { say notrootonly "$1 is owned by uid $uid, not root"; exit 20; }
  [ $(( 0$perm & 18 )) -eq 0 ] || { say notrootonly "$1 is writable by its group or others (mode $perm)"; exit 20; }
}
check /
at= rest=\${dir#/}
while [ -n "$rest" ]; do
  case $rest in */*) c=\${rest%%/*} rest=\${rest#*/} ;; *) c=$rest rest= ;; esac
  at=$at/$c
  check "$at"
done
if [ -e "$path" ] || [ -L "$path" ]; then say exists; exit 21; fi
set -C
( : > "$path" ) 2>/dev/null || { say exists; exit 21; }
chmod "$mode" -- "$path" || { rm -f -- "$path"; say failed chmod; exit 17; }
fallocate -l "$bytes" -- "$path" || { rm -f -- "$path"; say failed fallocate; exit 17; }
say ok
`;
