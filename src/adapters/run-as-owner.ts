import { spawn, spawnSync } from "node:child_process";
import { lstatSync, statSync } from "node:fs";

/**
 * Running a command as the owner of a directory instead of root (issue 21: `hostgate setup` as root for a
 * user's home followed that user's directory symlinks into root-owned files and lost a rename race into a
 * root-owned directory). Once the process has the owner's uid, gid and groups, the kernel checks every path
 * component of every open, mkdir, rename and backup, including the ones a user swaps while setup runs: a
 * link to a root-owned file is followed with the user's rights, which is harmless. DESIGN.md: "Root never
 * follows a path a user or model can shape … or after dropping to that directory's owner".
 * Linux only: the drop is done by `setpriv` (util-linux).
 */

/** uid and gid of a directory's owner. */
export interface Owner {
  uid: number;
  gid: number;
}

/**
 * The owner of `dir` (a home directory), following a symlink only when the link has the same owner as its
 * target. Errors (as `{ ok: false, reason }`): missing, not a directory, or a link owned by someone else.
 */
export function directoryOwner(dir: string): { ok: true; owner: Owner } | { ok: false; reason: string } {
  try {
    const link = lstatSync(dir);
    const st = statSync(dir);
    if (!st.isDirectory()) return { ok: false, reason: `${dir} is not a directory` };
    if (link.isSymbolicLink() && link.uid !== st.uid) return { ok: false, reason: `${dir} is a symlink of uid ${link.uid} to a directory of uid ${st.uid}; point HOME at the directory itself` };
    return { ok: true, owner: { uid: st.uid, gid: st.gid } };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === "ENOENT" ? `${dir} does not exist; set HOME to the user's home directory` : (err as Error).message };
  }
}

/** Whether the passwd database knows `uid` (setpriv --init-groups needs a user name to read the groups of). */
function knownUser(uid: number): boolean {
  return spawnSync("getent", ["passwd", String(uid)], { stdio: "ignore", timeout: 5000 }).status === 0;
}

/**
 * The argv that runs `command` as `owner`: `setpriv --reuid --regid` with the user's supplementary groups
 * (`--init-groups`; `--clear-groups` for a uid without a passwd entry) and `--no-new-privs`, so no setuid
 * program it might start can regain root.
 */
export function ownerArgv(owner: Owner, command: readonly string[], hasName = knownUser(owner.uid)): string[] {
  return ["setpriv", "--reuid", String(owner.uid), "--regid", String(owner.gid), hasName ? "--init-groups" : "--clear-groups", "--no-new-privs", "--", ...command];
}

/**
 * Runs `command` as `owner` with the terminal inherited (prompts work), and resolves its exit code (1 when a
 * signal ended it). Rejects with a message saying what to do when setpriv cannot be started.
 */
export function runAsOwner(owner: Owner, command: readonly string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): Promise<number> {
  const [file, ...args] = ownerArgv(owner, command);
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, { stdio: "inherit", env: opts.env, cwd: opts.cwd });
    child.once("error", (err) => {
      reject(new Error(`cannot run as uid ${owner.uid}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "setpriv (util-linux) is not installed" : err.message}; run the command as that user instead (sudo -u '#${owner.uid}' …)`));
    });
    child.once("exit", (code) => { resolve(code ?? 1); });
  });
}
