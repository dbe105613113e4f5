import { spawn } from "node:child_process";
import { PROTOCOL_VERSION } from "../../src/ipc/protocol.ts";

/** A daemon reply as a separate process sees it, or the connect error (e.g. EACCES) when the socket refused it. */
export type Reply = { ok: boolean; value?: Record<string, unknown>; error?: { code: string; message: string } } | { connect_error: string };

/** uid/gid 65534 (nobody/nogroup on Debian): the model's uid in the red-team suites. */
export const NOBODY = 65534;

const CLIENT = `
  const net = require("net");
  const [sock, line] = process.argv.slice(1);
  const s = net.createConnection(sock);
  let buf = "";
  s.on("data", (c) => { buf += c; const nl = buf.indexOf("\\n"); if (nl >= 0) { process.stdout.write(buf.slice(0, nl)); s.destroy(); } });
  s.on("error", (e) => { process.stdout.write(JSON.stringify({ connect_error: e.code })); });
  s.write(line + "\\n");`;

/**
 * One daemon-protocol request from a separate process with no controlling terminal (`setsid -w`), as an
 * assistant's shell tool would send it. `prefix` runs before node (e.g. setpriv with other groups); `uid` sets
 * uid and gid (gid = nogroup). Resolves to the method's reply ({ok, value|error}), the server's refusal, or
 * `{connect_error}`.
 */
export function ipcFromProcess(socket: string, method: string, params: unknown, opts: { uid?: number; prefix?: string[] } = {}): Promise<Reply> {
  const line = JSON.stringify({ v: PROTOCOL_VERSION, id: 1, method, params });
  const child = spawn("setsid", ["-w", ...(opts.prefix ?? []), process.execPath, "-e", CLIENT, socket, line],
    { stdio: ["ignore", "pipe", "inherit"], ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: NOBODY }) });
  let out = "";
  child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
  // The wire answer is {ok, result: {ok, value | error}} for a dispatched call, {ok: false, error} for a refused one.
  return new Promise((resolve) => child.on("exit", () => {
    const wire = JSON.parse(out || '{"connect_error":"no answer"}') as Reply & { result?: Reply };
    resolve(wire.result ?? wire);
  }));
}
