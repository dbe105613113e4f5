/**
 * The one fixed POSIX sh script that deletes or truncates a file on a remote host (HostMutator.removeFile over
 * SSH, issue 24/20). It is sent as `sh -c SCRIPT hostgate-remove DIR NAME REAL_DIR HOW DEV INO TOKEN`, every
 * argument quoted by core/inventory/target.ts shellJoin; nothing from the caller is ever part of the script text.
 * Needs GNU coreutils (stat -c, mv -T, truncate, sync FILE) and Linux /proc (/proc/self/fd).
 *
 * Arguments: DIR the file's directory (absolute), NAME the file name in it, REAL_DIR the directory the approved
 * preview resolved (must equal `pwd -P` after `cd -P DIR`), HOW `delete` or `truncate`, DEV and INO the file's
 * identity in the approved preview (`stat -c %d %i`: decimal), TOKEN a random word for the aside name.
 *
 * How it keeps the port's contract (ports/host-mutator.ts removeFile, as adapters/host-mutator-linux.ts does it):
 * - the directory is entered once with `cd -P` and everything after names `./NAME` relative to it (the remote
 *   counterpart of the held directory descriptor); a parent that resolves elsewhere than REAL_DIR (a link
 *   swapped in) is refused before anything changes;
 * - truncate: a final link is refused, the file is opened (fd 3, read-only, never created), and the identity of
 *   the OPEN file (`stat -L /proc/self/fd/3`) must be a regular file with one link and DEV:INO; it is then cut
 *   to 0 through that descriptor's inode (`truncate /proc/self/fd/3`), so a swap after the check changes nothing;
 * - delete: the name is first renamed aside inside the directory (rename(2) moves a link itself, never its
 *   target); what moved is checked (not a link, a regular file, one link, DEV:INO) and renamed back when it is
 *   not the approved file, so no swap between the check and the unlink removes another file.
 *
 * Output: one line `hostgate-remove: <word> [detail]` and an exit status the adapter maps:
 * 0 ok <size> · 10 dir (not found or not a directory) · 11 realdir <now> · 12 symlink · 13 identity <why> ·
 * 14 absent · 16 denied <step> · 17 failed <step>.
 */
export const REMOVE_SCRIPT = `set -u
unset CDPATH
say() { printf 'hostgate-remove: %s\\n' "$*"; }
dir=$1 name=$2 real=$3 how=$4 dev=$5 ino=$6 token=$7
[ -d "$dir" ] || { say dir; exit 10; }
cd -P -- "$dir" 2>/dev/null || { say denied cd; exit 16; }
here=$(pwd -P)
[ "$here" = "$real" ] || { say realdir "$here"; exit 11; }
why() {
  if [ $(( 0x$5 & 61440 )) -ne 32768 ]; then echo "it is no longer a regular file"
  elif [ "$1" != 1 ]; then echo "it now has $1 hard links"
  elif [ "$2" != "$dev" ] || [ "$3" != "$ino" ]; then echo "it is another file than the one approved (its inode changed, e.g. a log rotation)"
  fi
}
[ -L "./$name" ] && { say symlink; exit 12; }
[ -e "./$name" ] || { say absent; exit 14; }
if [ "$how" = truncate ]; then
  [ -f "./$name" ] || { say identity "it is no longer a regular file"; exit 13; }
  exec 3< "./$name" 2>/dev/null || { say denied open; exit 16; }
  st=$(stat -L -c '%h %d %i %s %f' -- /proc/self/fd/3) || { say failed stat; exit 17; }
  w=$(why $st)
  [ -z "$w" ] || { say identity "$w"; exit 13; }
  set -- $st
  truncate -s 0 -- /proc/self/fd/3 2>/dev/null || { say denied truncate; exit 16; }
  sync -- /proc/self/fd/3 2>/dev/null || true
  say ok "$4"
  exit 0
fi
aside=".$name.hostgate-rm-$$-$token"
{ [ -e "./$aside" ] || [ -L "./$aside" ]; } && { say failed aside; exit 17; }
mv -f -T -- "./$name" "./$aside" 2>/dev/null || { say denied rename; exit 16; }
back() { mv -f -T -- "./$aside" "./$name" 2>/dev/null || say stranded "$aside"; }
[ -L "./$aside" ] && { back; say symlink; exit 12; }
st=$(stat -c '%h %d %i %s %f' -- "./$aside") || { back; say failed stat; exit 17; }
w=$(why $st)
[ -z "$w" ] || { back; say identity "$w"; exit 13; }
set -- $st
rm -f -- "./$aside" 2>/dev/null || { back; say denied unlink; exit 16; }
[ -e "./$aside" ] && { back; say denied unlink; exit 16; }
sync -- . 2>/dev/null || true
say ok "$4"
`;
