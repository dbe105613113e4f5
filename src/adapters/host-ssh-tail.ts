import { HostgateError } from "../core/errors.ts";
import { shellJoin } from "../core/inventory/target.ts";
import { isWithinRoot } from "../core/paths.ts";
import type { FileOwner } from "../ports/host-probe.ts";
import type { SshSession } from "./exec-ssh/session.ts";

/**
 * `readTailConfined` over SSH: one fixed remote helper (TAIL_SCRIPT, run by `sh -c` with the path and the byte
 * budget as quoted positional arguments; no interpolation) opens the file once, then reports, from that open
 * descriptor (`/proc/$$/fd/3`), the path the kernel resolved it to, its type, link count, size, owner and mode,
 * and streams the last bytes from the same descriptor. Why a helper and not SFTP: an SFTP handle cannot tell
 * which path it was opened as nor its link count (SFTP v3 attributes carry neither), so the confinement the
 * local probe checks on its descriptor could only be checked on a path, racing a swapped directory.
 *
 * The confinement is decided here, on the client, from the descriptor's facts: resolved path under `within`,
 * a regular file, one link. A symlink or non-regular path is refused before opening (opening a FIFO would block).
 * The tail is then cut exactly as the local probe reads it backwards (64 KiB chunks, each decoded on its own,
 * until `maxLines` + 1 line breaks or `maxBytes`), so both probes return the same text and `startOffset`.
 */
const TAIL_SCRIPT = [
  'p=$1; max=$2',
  '[ -L "$p" ] && exit 65',
  '[ -e "$p" ] || exit 66',
  '[ -f "$p" ] || exit 67',
  '{ command exec 3<"$p"; } 2>/dev/null || exit 68',
  'st=$(stat -L -c "%f %h %s %u %g" /proc/$$/fd/3) || exit 69',
  'set -- $st',
  'start=$(( $3 > max ? $3 - max : 0 ))',
  'printf "hostgate-tail %s %s\\n" "$st" "$start"',
  'readlink /proc/$$/fd/3 || exit 69',
  'printf "\\000"',
  'tail -c +$((start + 1)) <&3 | head -c $(($3 - start))',
].join("\n");

/** Chunk size of the local probe's backwards read (adapters/host-linux.ts), mirrored to cut the same window. */
const CHUNK = 64 * 1024;

/** Runs the helper and returns its raw stdout (bytes, not text: the window is cut by byte offsets). */
function runHelper(session: SshSession, argv: string[], cap: number, timeoutMs: number): Promise<{ code: number | null; out: Buffer }> {
  return session.openChannel({ command: shellJoin(argv) }).then((ch) => new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    let code: number | null = null;
    const timer = setTimeout(() => { ch.close(); }, timeoutMs);
    ch.on("data", (d: Buffer) => {
      if (size < cap) parts.push(d);
      size += d.length;
    });
    ch.stderr.resume();
    ch.on("exit", (c: number | null) => { code = typeof c === "number" ? c : null; });
    ch.on("close", () => {
      clearTimeout(timer);
      resolve({ code, out: Buffer.concat(parts) });
    });
    ch.end();
  }));
}

/** See the module comment. Errors: `forbidden_path`, `not_found`, `permission_denied`, `unavailable` (naming the host). */
export async function readTailOverSsh(session: SshSession, host: string, path: string, within: string, opts: { maxBytes: number; maxLines: number }): Promise<{ text: string; size: number; startOffset: number; owner: FileOwner }> {
  const details = { host };
  const { code, out } = await runHelper(session, ["sh", "-c", TAIL_SCRIPT, "sh", path, String(opts.maxBytes)], opts.maxBytes + 8192, 30_000);
  if (code === 65) throw new HostgateError("forbidden_path", `${path} is a symlink.`, { hint: `Pass the real path of a file under ${within}.`, details });
  if (code === 66) throw new HostgateError("not_found", `${path} does not exist on ${host}.`, { details });
  if (code === 67) throw new HostgateError("forbidden_path", `${path} is not a regular file.`, { details });
  if (code === 68) throw new HostgateError("permission_denied", `Permission denied reading ${path} on ${host}.`, { hint: "The SSH login user cannot read it; use a login (inventory user) that can.", details });
  const nl = out.indexOf(10);
  const head = /^hostgate-tail ([0-9a-f]+) (\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(out.subarray(0, Math.max(nl, 0)).toString("latin1"));
  const nul = out.indexOf(0, nl + 1);
  if (code !== 0 || !head || nul < 0) {
    throw new HostgateError("unavailable", `Could not read the end of ${path} on ${host} (helper exit ${code ?? "unknown: connection lost?"}).`, { hint: "The host needs a POSIX sh, stat, readlink, tail and head (coreutils or busybox).", details });
  }
  const [rawMode, nlink, size, uid, gid, start] = [parseInt(head[1]!, 16), ...head.slice(2).map(Number)] as [number, number, number, number, number, number];
  const opened = out.subarray(nl + 1, nul).toString("utf8").replace(/\n$/, "");
  if (!isWithinRoot(opened, within)) throw new HostgateError("forbidden_path", `${path} opened as ${opened}, outside ${within}.`, { hint: `Pass a file under ${within}.` });
  if ((rawMode & 0o170000) !== 0o100000) throw new HostgateError("forbidden_path", `${path} is not a regular file.`);
  if (nlink > 1) throw new HostgateError("forbidden_path", `${path} has ${nlink} hard links; a hard link can expose a file from outside ${within}.`);
  const data = out.subarray(nul + 1);
  let end = start + data.length;
  let text = "";
  let lines = 0;
  while (end > start && lines <= opts.maxLines && size - end < opts.maxBytes) {
    const from = Math.max(start, end - CHUNK, size - opts.maxBytes);
    const chunk = data.subarray(from - start, end - start).toString("utf8");
    lines += chunk.split("\n").length - 1;
    text = chunk + text;
    end = from;
  }
  return { text, size, startOffset: end, owner: { uid, gid, mode: rawMode & 0o7777 } };
}
