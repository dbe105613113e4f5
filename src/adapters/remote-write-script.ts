/**
 * The one fixed POSIX sh script that replaces a file on a remote host (HostMutator.writeFileAtomic over SSH).
 * It is sent as `sh -c SCRIPT hostgate-write DIR NAME REAL_DIR MODE EXPECT SHA256`, every argument quoted by
 * core/inventory/target.ts shellJoin; the new content arrives on stdin. Nothing from the caller is ever part of
 * the script text. Needs GNU coreutils (stat -c, dd iflag=nofollow, sha256sum, mv -T, sync FILE).
 *
 * Arguments: DIR the directory (absolute), NAME the file name in it, REAL_DIR the directory the preview
 * resolved ("" = no check), MODE octal permission bits ("" = keep the old file's, 644 for a new one), EXPECT
 * "-" (no precondition), "absent" (must not exist) or a hex SHA-256 of the current bytes, SHA256 the hex
 * SHA-256 of the content sent (a cut stream never replaces the file).
 *
 * How it keeps the port's contract: `cd -P` makes the shell's working directory the resolved directory and
 * every later step names `./NAME` relative to it, so a swap of DIR's path after that moment changes nothing
 * (the remote equivalent of a held directory fd); the temp file is created in that directory with noclobber
 * (O_EXCL) and umask 077, filled, given the mode and (on overwrite, where permitted) the owner, fsynced
 * (`sync FILE`), the precondition re-checked, then renamed with `mv -T` (rename(2): a symlink or a directory
 * put at NAME meanwhile is replaced or refused, never written through), and the directory fsynced. A symlink
 * or non-regular file at NAME is refused before anything is written; content is hashed with dd iflag=nofollow.
 *
 * Output: one line `hostgate-write: <word> [detail]` and an exit status the adapter maps:
 * 0 ok · 10 dir (not found or not a directory) · 11 realdir <now> · 12 symlink · 13 notregular ·
 * 14 changed <absent|sha256> · 15 short (content did not arrive whole) · 16 denied <step> · 17 failed <step>.
 */
export const WRITE_SCRIPT = `set -u
umask 077
unset CDPATH
say() { printf 'hostgate-write: %s\\n' "$*"; }
dir=$1 name=$2 real=$3 mode=$4 expect=$5 sum=$6
tmp=
trap '[ -n "$tmp" ] && rm -f -- "./$tmp"' EXIT
[ -d "$dir" ] || { say dir; exit 10; }
cd -P -- "$dir" 2>/dev/null || { say denied cd; exit 16; }
here=$(pwd -P)
[ -z "$real" ] || [ "$here" = "$real" ] || { say realdir "$here"; exit 11; }
state() {
  if [ -L "./$name" ]; then echo symlink
  elif [ ! -e "./$name" ]; then echo absent
  elif [ ! -f "./$name" ]; then echo other
  else stat -c 'file %a %u %g' -- "./$name"; fi
}
digest() { (dd if="./$name" iflag=nofollow status=none 2>/dev/null || echo hostgate-read-failed) | sha256sum | cut -d ' ' -f 1; }
check() {
  st=$(state)
  case $st in symlink) say symlink; exit 12;; other) say notregular; exit 13;; esac
  [ "$expect" = - ] && return 0
  if [ "$st" = absent ]; then found=absent; else found=$(digest); fi
  [ "$found" = "$expect" ] || { say changed "$found"; exit 14; }
}
check
set -- $st
old_mode=\${2:-} old_uid=\${3:-} old_gid=\${4:-}
tmp=".$name.hostgate-$$"
set -C
cat > "./$tmp" 2>/dev/null || { say denied create; exit 16; }
set +C
[ "$(sha256sum < "./$tmp" | cut -d ' ' -f 1)" = "$sum" ] || { say short; exit 15; }
chmod "\${mode:-\${old_mode:-644}}" "./$tmp" || { say failed chmod; exit 17; }
[ -z "$old_uid" ] || chown "$old_uid:$old_gid" "./$tmp" 2>/dev/null || true
sync -- "./$tmp" 2>/dev/null || true
check
mv -f -T -- "./$tmp" "./$name" 2>/dev/null || { say denied rename; exit 16; }
tmp=
sync -- . 2>/dev/null || true
say ok
`;
