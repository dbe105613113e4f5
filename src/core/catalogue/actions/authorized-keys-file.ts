import { z } from "zod";
import type { ActionContext, Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseAuthorizedKeys, type PublicKey } from "../../host/ssh-key.ts";
import type { PasswdEntry } from "../../host/passwd.ts";
import { readAccounts, userOf } from "./accounts-common.ts";

/**
 * The authorized_keys file of one user (`HOME/.ssh/authorized_keys`, sshd's default AuthorizedKeysFile; another
 * AuthorizedKeysFile in sshd_config is not followed), shared by AddAuthorizedKey and RemoveAuthorizedKey.
 *
 * DESIGN.md: root never follows a path a user can shape. The home, `.ssh` and the file are the user's, so:
 * - the preview lstat()s each of them and refuses a symlink or a foreign owner, and reads the file without
 *   following a final link (O_NOFOLLOW); only parsed public keys (type, fingerprint, comment) leave it;
 * - apply drops to the user first (`setpriv --reuid --regid --init-groups --no-new-privs`) and runs one fixed
 *   script with the new content as an argument: it refuses links again, checks the file still has the content
 *   the approved preview saw (SHA-256), writes a temp file 0600 beside it and renames it over the file, so a
 *   link swapped in at any moment is followed with the user's rights only. The file ends owned by the user,
 *   mode 0600, `.ssh` 0700 (created if missing).
 */

/** Largest authorized_keys file handled, in bytes. */
export const MAX_KEYS_FILE = 256 * 1024;

/** One key as a preview shows it (never the blob). */
export const keySummary = z.object({ type: z.string(), fingerprint: z.string(), comment: z.string(), options: z.string() });
export const summaryOf = (k: PublicKey): z.infer<typeof keySummary> => ({ type: k.type, fingerprint: k.fingerprint, comment: k.comment, options: k.options });

/** The file as the preview saw it. */
export interface KeysFile {
  path: string;
  exists: boolean;
  /** SHA-256 of the content (UTF-8), null when absent: the precondition of apply. */
  sha256: string | null;
  lines: { line: string; key: PublicKey | null }[];
}

async function lstatOrNull(ctx: ActionContext, path: string): Promise<Awaited<ReturnType<ActionContext["host"]["stat"]>> | null> {
  try {
    return await ctx.host.stat(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  }
}

/** Reads the user's authorized_keys after refusing links and foreign owners along HOME/.ssh/authorized_keys. */
export async function readKeysFile(ctx: ActionContext, u: PasswdEntry): Promise<KeysFile> {
  if (!u.home.startsWith("/") || u.home === "/") throw new HostgateError("invalid_params", `${u.name}'s home (${JSON.stringify(u.home)}) is not a directory hostgate writes keys into.`, { hint: "Give the user a home directory first." });
  const refuse = (what: string, why: string): never => {
    throw new HostgateError("invalid_params", `${what} ${why}; hostgate does not write authorized keys through it.`, { hint: "Fix the path at the console (no symbolic links, owned by the user), then plan again." });
  };
  const home = await lstatOrNull(ctx, u.home);
  if (home === null) refuse(u.home, "does not exist");
  if (home!.is_symlink) refuse(u.home, "is a symbolic link");
  if (!home!.is_directory) refuse(u.home, "is not a directory");
  const dir = `${u.home}/.ssh`;
  const path = `${dir}/authorized_keys`;
  const ssh = await lstatOrNull(ctx, dir);
  if (ssh !== null) {
    if (ssh.is_symlink) refuse(dir, "is a symbolic link");
    if (!ssh.is_directory) refuse(dir, "is not a directory");
    if (ssh.uid !== undefined && ssh.uid !== u.uid) refuse(dir, `is owned by uid ${ssh.uid}, not ${u.name} (uid ${u.uid})`);
  }
  const file = ssh === null ? null : await lstatOrNull(ctx, path);
  if (file === null) return { path, exists: false, sha256: null, lines: [] };
  if (file.is_symlink) refuse(path, "is a symbolic link");
  if (!file.is_file) refuse(path, "is not a regular file");
  if (file.uid !== undefined && file.uid !== u.uid) refuse(path, `is owned by uid ${file.uid}, not ${u.name} (uid ${u.uid})`);
  if (file.size > MAX_KEYS_FILE) refuse(path, `is ${file.size} bytes, more than the ${MAX_KEYS_FILE} hostgate edits`);
  const text = await ctx.host.readText(path, { maxBytes: MAX_KEYS_FILE });
  return { path, exists: true, sha256: ctx.hash.sha256Hex(text), lines: parseAuthorizedKeys(text, ctx.hash) };
}

/**
 * readKeysFile at apply time: the file must still be what the approved preview saw (its `current.sha256`), and a
 * refusal (a link swapped in since) is `precondition_failed`, never a write.
 */
export async function recheckKeysFile(ctx: ActionContext, u: PasswdEntry, approved: Preview): Promise<KeysFile> {
  let file: KeysFile;
  try {
    file = await readKeysFile(ctx, u);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "invalid_params") throw new HostgateError("precondition_failed", `${err.message} (changed since the preview). Nothing was changed.`, { hint: err.hint });
    throw err;
  }
  const seen = (approved.current as { sha256?: unknown } | undefined)?.sha256;
  if (seen !== file.sha256) throw new HostgateError("precondition_failed", `${file.path} changed since the preview. Nothing was changed.`, { hint: "Plan the change again so the preview shows the file as it is now." });
  return file;
}

/** The file's new content from its lines (one key per line, a final newline). */
export function contentOf(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/**
 * The fixed script apply runs as the user: $1 home, $2 expected SHA-256 or `-` (the file must be absent), $3 the
 * new content. Exit 3: a symbolic link or non-directory on the way; 5: the file changed since the preview.
 */
const WRITE_SCRIPT = [
  "set -eu", "umask 077",
  "cd -- \"$1\"",
  "if [ -L .ssh ]; then echo '.ssh is a symbolic link' >&2; exit 3; fi",
  "if [ ! -e .ssh ]; then mkdir -m 700 .ssh; fi",
  "if [ ! -d .ssh ]; then echo '.ssh is not a directory' >&2; exit 3; fi",
  "cd .ssh",
  "if [ -L authorized_keys ]; then echo 'authorized_keys is a symbolic link' >&2; exit 3; fi",
  "if [ \"$2\" = - ]; then if [ -e authorized_keys ]; then echo 'authorized_keys appeared since the preview' >&2; exit 5; fi",
  "else cur=$(sha256sum < authorized_keys | cut -c1-64); if [ \"$cur\" != \"$2\" ]; then echo 'authorized_keys changed since the preview' >&2; exit 5; fi; fi",
  "t=.authorized_keys.hostgate.$$",
  "printf '%s' \"$3\" > \"$t\"",
  "chmod 600 \"$t\"",
  "mv -f -- \"$t\" authorized_keys",
].join("\n");

/** The argv apply runs (through the mutator, so as root locally and through sudo over SSH, then dropped to the user). */
export function writeArgv(u: PasswdEntry, expectedSha256: string | null, content: string): string[] {
  return ["setpriv", "--reuid", String(u.uid), "--regid", String(u.gid), "--init-groups", "--no-new-privs", "--", "sh", "-c", WRITE_SCRIPT, "sh", u.home, expectedSha256 ?? "-", content];
}

/** Runs the write as the user; maps the script's exits to `precondition_failed`, others to `action_failed`. */
export async function writeKeysFile(ctx: ActionContext, u: PasswdEntry, expectedSha256: string | null, content: string): Promise<void> {
  const argv = writeArgv(u, expectedSha256, content);
  const path = await ctx.host.which("setpriv");
  if (!path) throw new HostgateError("unavailable", "setpriv (util-linux) is not installed on this host; hostgate writes a user's keys only as that user.");
  const r = await ctx.mutator.run([path, ...argv.slice(1)], { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 });
  if (r.exit_code === 0) return;
  const why = r.stderr.trim().split("\n").at(-1) ?? "";
  if (r.exit_code === 3 || r.exit_code === 5) throw new HostgateError("precondition_failed", `${u.home}/.ssh/authorized_keys: ${why}. Nothing was changed.`, { hint: "Plan the change again so the preview shows the file as it is now." });
  throw new HostgateError("action_failed", `writing ${u.home}/.ssh/authorized_keys as ${u.name} failed (exit ${r.exit_code ?? r.signal}): ${why}`, { details: { exit_code: r.exit_code, stderr_tail: r.stderr.slice(-2000) } });
}

/** The model's view of a keys preview: the key it named and the counts, never the other keys' comments. */
export function keysAgentView(summary: string, key: z.infer<typeof keySummary> | null, before: number, after: number): NonNullable<Preview["agent"]> {
  return { summary, text: `${summary}\nkeys in the file: ${before} → ${after}\nThe approver sees every key's fingerprint and comment.`, intended: { key, keys_before: before, keys_after: after } };
}

/** What both key actions return. */
export const keysApplyOutput = z.object({ user: z.string(), path: z.string(), changed: z.boolean(), keys: z.number(), fingerprint: z.string() });

/** A key action's change as its own `inspect` computed it: the file it read, the lines after, whether they differ. */
export interface KeysChange {
  file: KeysFile;
  next: string[];
  changed: boolean;
  fingerprint: string;
}

/**
 * The apply of both key actions: the file must still be what the approved preview saw (recheckKeysFile), then the
 * change is computed again by `inspect` and written as the user only when it changes the file. Answers with the
 * number of key lines after (lines neither blank nor comments). Throws what recheckKeysFile and writeKeysFile throw.
 */
export async function applyKeysChange(ctx: ActionContext, user: string, approved: Preview, inspect: () => Promise<KeysChange>): Promise<z.infer<typeof keysApplyOutput>> {
  const u = userOf(await readAccounts(ctx), user);
  await recheckKeysFile(ctx, u, approved);
  const { file, next, changed, fingerprint } = await inspect();
  if (changed) await writeKeysFile(ctx, u, file.sha256, contentOf(next));
  return { user, path: file.path, changed, keys: next.filter((l) => l.trim() !== "" && !l.trim().startsWith("#")).length, fingerprint };
}
