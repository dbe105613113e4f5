import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SocketConnection, unreachableHint } from "./socket-client.ts";
import { MAX_MESSAGE_BYTES } from "./wire.ts";

/**
 * A real Unix socket whose peer answers as `reply` says: the daemon that sends an over-long answer line
 * cannot be made to run here (its answers are capped at 1 MiB), so this peer plays it.
 */
let server: Server | null = null;
const accepted: Socket[] = [];
let dir = "";
afterEach(async () => {
  for (const s of accepted.splice(0)) s.destroy();
  await new Promise<void>((r) => { if (server) server.close(() => { r(); }); else r(); });
  server = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function peer(reply: (socket: Socket, req: { id: number; method: string }) => void): string {
  dir = mkdtempSync(join(tmpdir(), "hg-socket-client-"));
  const path = join(dir, "agent.sock");
  server = createServer((socket) => {
    accepted.push(socket);
    socket.on("error", () => undefined); // the client may close while this peer still writes
    let buf = "";
    socket.on("data", (c: Buffer) => {
      buf += c.toString();
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        reply(socket, JSON.parse(buf.slice(0, nl)) as { id: number; method: string });
        buf = buf.slice(nl + 1);
      }
    });
  });
  server.listen(path);
  return path;
}

/** Writes an answer line of more than MAX_MESSAGE_BYTES, in pieces, optionally without ending it. */
function oversized(socket: Socket, head: string, end = true): void {
  socket.write(head);
  const piece = "x".repeat(1024 * 1024);
  for (let sent = 0; sent <= MAX_MESSAGE_BYTES; sent += piece.length) socket.write(piece);
  if (end) socket.write('"}\n');
}

describe("SocketConnection", () => {
  it("fails the call whose answer line is too large at once (not after the call timeout), and the connection keeps serving", async () => {
    const path = peer((socket, req) => {
      if (req.method === "big") oversized(socket, `{"v":2,"id":${req.id},"ok":true,"result":"`);
      else socket.write(`${JSON.stringify({ v: 2, id: req.id, ok: true, result: { ok: true, value: "small" } })}\n`);
    });
    const conn = new SocketConnection(path, undefined);
    try {
      const big = await conn.call("big");
      expect(big).toMatchObject({ ok: false, error: { code: "answer_too_large", message: expect.stringContaining(path) as unknown } });
      expect(await conn.call("small")).toMatchObject({ ok: true, result: { ok: true, value: "small" } });
    } finally {
      await conn.close();
    }
  });

  it("an over-long line that names no call fails every call in flight and closes the connection", async () => {
    const path = peer((socket, req) => { if (req.method === "second") oversized(socket, "[", false); });
    const conn = new SocketConnection(path, undefined);
    try {
      const first = conn.call("first");
      const second = conn.call("second");
      for (const r of await Promise.all([first, second])) expect(r).toMatchObject({ ok: false, error: { code: "answer_too_large" } });
    } finally {
      await conn.close();
    }
  });
});

describe("a daemon that cannot be reached", () => {
  it("no socket at the path: unavailable, naming the path, with how to start a daemon", async () => {
    dir = mkdtempSync(join(tmpdir(), "hg-socket-client-"));
    const path = join(dir, "agent.sock");
    const conn = new SocketConnection(path, undefined);
    try {
      const r = await conn.call("describe");
      expect(r).toMatchObject({ ok: false, error: { code: "unavailable", message: expect.stringContaining(`${path}: connect ENOENT`) as unknown } });
      expect(r.ok ? "" : r.error.hint).toMatch(/start `hostgate daemon`/);
    } finally {
      await conn.close();
    }
  });

  it("permission denied (EACCES; root here cannot be refused, so the error is made): the hint names the group and --group-add", () => {
    const err = Object.assign(new Error("connect EACCES /run/hostgate/agent.sock"), { code: "EACCES" });
    expect(unreachableHint(err)).toMatch(/only its group .*usermod -aG hostgate.*--group-add/);
    // The container's group id: the socket's own group (issue 25 re-trial 5: getent is empty when the daemon is not the service).
    expect(unreachableHint(err, "/run/hostgate/agent.sock")).toContain("stat -c %g /run/hostgate/agent.sock");
    expect(unreachableHint(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).not.toMatch(/group/);
  });

  it("permission denied on a group admin socket: the group is named from the group file the daemon resolves daemon.admin_group in", async () => {
    const path = peer(() => undefined);
    await new Promise<void>((r) => { server!.once("listening", () => { r(); }); });
    chmodSync(path, 0o660);
    const gid = statSync(path).gid;
    const groups = join(dir, "group");
    // Comment and NIS lines are skipped as the daemon skips them (core/host/passwd.ts parseGroup).
    writeFileSync(groups, `# group(5)\n+:::\nwheel:x:${gid + 1}:\nhgadmins:x:${gid}:alice\nlater:x:${gid}:\n`);
    const err = Object.assign(new Error(`connect EACCES ${path}`), { code: "EACCES" });
    const hint = unreachableHint(err, path, {}, "admin", "hostgate pending", groups);
    expect(hint).toContain("the members of group hgadmins (daemon.admin_group)");
    expect(hint).toContain("sudo usermod -aG hgadmins USER");
    writeFileSync(groups, `wheel:x:${gid + 1}:\n`);
    expect(unreachableHint(err, path, {}, "admin", undefined, groups)).toContain(`the members of group gid ${gid}`);
    expect(unreachableHint(err, path, {}, "admin", undefined, join(dir, "no-such-group-file"))).toContain(`the members of group gid ${gid}`);
    expect(unreachableHint(err, join(dir, "gone.sock"), {}, "admin", undefined, groups)).toContain("admits only its owner and its group");
  });
});
