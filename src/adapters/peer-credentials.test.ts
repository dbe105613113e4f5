import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Caller, PeerCredentials } from "../core/caller.ts";
import { PROTOCOL_VERSION } from "../ipc/protocol.ts";
import { serveIpc } from "../ipc/server.ts";
import { readPeerCredentials } from "./peer-credentials.ts";

const sockPath = (name: string): string => join(mkdtempSync(join(tmpdir(), `hg-seams-peer-${process.pid}-`)), name);

/** Starts a separate Node process that connects to `path`, writes `line` (if any) and waits for one line back. */
function connectFromChild(path: string, line?: string): { pid: number; done: Promise<string> } {
  const script = `const s=require("node:net").createConnection(process.argv[1]);let b="";s.on("connect",()=>{${line ? "s.write(process.argv[2]+\"\\n\")" : ""}});s.on("data",c=>{b+=c;if(b.includes("\\n")){process.stdout.write(b);s.destroy();}});s.on("close",()=>process.exit(0));`;
  const child = spawn(process.execPath, ["-e", script, path, ...(line ? [line] : [])], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
  return { pid: child.pid!, done: new Promise((resolve) => child.on("exit", () => { resolve(out); })) };
}

describe("SO_PEERCRED through koffi", () => {
  it("reports the uid, gid and pid of the process that connected (a real child process)", async () => {
    const path = sockPath("raw.sock");
    let resolveSeen: (p: PeerCredentials | null) => void = () => undefined;
    const seen = new Promise<PeerCredentials | null>((resolve) => { resolveSeen = resolve; });
    const srv = createServer((s: Socket) => { resolveSeen(readPeerCredentials(s)); s.end("bye\n"); srv.close(); });
    await new Promise<void>((r) => srv.listen(path, r));
    const child = connectFromChild(path);
    const peer = await seen;
    await child.done;
    expect(peer).toEqual({ uid: process.getuid!(), gid: process.getgid!(), pid: child.pid });
    expect(child.pid).not.toBe(process.pid);
  });

  it("is null for a socket without a kernel peer (not connected, or TCP)", async () => {
    const srv = createServer((s) => { expect(readPeerCredentials(s)).toBeNull(); s.destroy(); });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const { createConnection } = await import("node:net");
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => { const c = createConnection(port, "127.0.0.1"); c.on("close", () => { r(); }); });
    srv.close();
  });

  it("ipc/server builds each connection's Caller with the kernel's peer (agent socket: operator)", async () => {
    const path = sockPath("agent.sock");
    let caller: Caller | undefined;
    const listener = await serveIpc({ kind: "unix", path, mode: 0o600 }, "agent", {
      dispatch: (_m, _p, c) => { caller = c; return Promise.resolve({ ok: true, result: { ok: true, value: {} } }); },
    }, { peerCredentials: readPeerCredentials });
    try {
      const child = connectFromChild(path, JSON.stringify({ v: PROTOCOL_VERSION, id: 1, method: "describe", client: "fixture-client" }));
      expect(JSON.parse(await child.done)).toMatchObject({ ok: true });
      expect(caller).toEqual({ role: "operator", socket: "agent", peer: { uid: process.getuid!(), gid: process.getgid!(), pid: child.pid }, client_name: "fixture-client", label: "agent" });
    } finally {
      await listener.close();
    }
  });
});
