/**
 * The shared SSH connection pool (src/adapters/exec-ssh/pool.ts) against a real sshd on loopback: one connection
 * for exec, SFTP and raw channels; the channel limit counts the kept SFTP channel; idle close; host keys
 * re-checked before each lease; a raw command stream carries bytes both ways (what the remote D-Bus bridge needs).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool, type SshPoolOptions } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const skip = peerMissing("ssh pool tests", sshdPrereqs());

describe.skipIf(skip)("SshPool over a real sshd", () => {
  let peer: SshdPeer;
  let base: SshPoolOptions;
  const pools: SshPool[] = [];
  const make = (over: Partial<SshPoolOptions> = {}): SshPool => {
    const p = new SshPool({ ...base, ...over });
    pools.push(p);
    return p;
  };
  const route = () => ({ target: { host: "127.0.0.1", port: peer.port } });

  beforeAll(async () => {
    peer = await startSshd();
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    base = { known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 3000 };
  });
  afterAll(async () => {
    for (const p of pools) p.close();
    await peer?.stop();
  });

  it("exec (argv quoted, command as is), SFTP and a raw channel share one connection", async () => {
    const pool = make();
    const s = sshSession(pool, route());
    expect(s.label).toBe(`root@127.0.0.1:${peer.port}`);
    expect((await s.exec(["printf", "%s|", "a b", "$(id)"])).stdout).toBe("a b|$(id)|");
    expect((await s.exec("echo $((1+2))")).stdout).toBe("3\n");
    const sftp = await s.sftp();
    expect(sftp).toBe(await s.sftp());
    const names = await new Promise<string[]>((res, rej) => { sftp.readdir(peer.dir, (e, l) => { if (e) rej(e); else res(l.map((x) => x.filename)); }); });
    expect(names).toContain("sshd_config");
    const ch = await s.openChannel({ command: "cat" });
    const echoed = new Promise<string>((res) => {
      let got = "";
      ch.on("data", (d: Buffer) => { got += d.toString(); });
      ch.on("close", () => { res(got); });
    });
    ch.end("ping\n");
    expect(await echoed).toBe("ping\n");
    expect(pool.connections).toBe(1);
    await expect(s.exec([])).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("the kept SFTP channel counts against max_sessions: a third lease waits until one is released", async () => {
    const pool = make({ max_sessions: 3 });
    await pool.sftp(route());
    const a = await pool.acquire(route());
    const b = await pool.acquire(route());
    let third = false;
    const c = pool.acquire(route()).then((l) => { third = true; return l; });
    await new Promise((r) => setTimeout(r, 150));
    expect(third).toBe(false);
    a.release();
    a.release(); // a second release is ignored, it does not free another slot
    (await c).release();
    expect(third).toBe(true);
    b.release();
  });

  it("closes an idle connection even while its SFTP channel stays open", async () => {
    const pool = make({ idle_ms: 200 });
    await pool.sftp(route());
    expect(pool.connections).toBe(1);
    await expect.poll(() => pool.connections, { timeout: 2000 }).toBe(0);
  });

  it("re-checks host keys before each lease: a key removed from known_hosts closes the connection, nothing is opened", async () => {
    const kh = join(peer.dir, "kh-copy");
    writeFileSync(kh, readFileSync(join(peer.dir, "known_hosts")));
    const pool = make({ known_hosts: [kh] });
    (await pool.acquire(route())).release();
    writeFileSync(kh, "# emptied\n");
    await expect(pool.acquire(route())).rejects.toMatchObject({ code: "host_key_unknown" });
    await expect(pool.sftp(route())).rejects.toMatchObject({ code: "host_key_unknown" });
    expect(pool.connections).toBe(0);
  });

  it("a lease held when the connection closes hears onLost; an aborted acquire is cancelled", async () => {
    const pool = make();
    const lease = await pool.acquire(route());
    const lost = new Promise<void>((r) => { lease.onLost(r); });
    pool.close();
    await lost;
    lease.release();
    const ac = new AbortController();
    ac.abort();
    await expect(make().acquire(route(), ac.signal)).rejects.toMatchObject({ code: "cancelled" });
  });

  it("handshakes wait for a turn (max_handshakes): a silent host's handshake times out on its own budget and says so; the next host is dialed after it, not beside it", async () => {
    // A listener that accepts and never speaks SSH: its handshake can only time out.
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      const pool = make({ max_handshakes: 1, connect_timeout_ms: 800 });
      const order: string[] = [];
      const first = pool.acquire({ target: { host: "127.0.0.1", port: silentPort } }).then(
        (l) => { l.release(); order.push("silent: connected"); },
        (e: unknown) => {
          const err = e as { code?: string; message?: string };
          order.push(`silent: ${err.code}`);
          expect(err.message).toMatch(/timed out/i);
        },
      );
      const second = pool.acquire(route()).then((l) => { l.release(); order.push("sshd: connected"); });
      await Promise.all([first, second]);
      expect(order).toEqual(["silent: unreachable", "sshd: connected"]);
    } finally {
      silent.close();
    }
  });
});

describe.skipIf(skip)("SshPool against an sshd without the sftp subsystem", () => {
  let peer: SshdPeer;
  beforeAll(async () => { peer = await startSshd({ sftp: false }); });
  afterAll(async () => { await peer?.stop(); });

  it("answers unavailable with what to configure, and the connection still serves exec", async () => {
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    const pool = new SshPool({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 3000, max_sessions: 2 });
    try {
      const s = sshSession(pool, { target: { host: "127.0.0.1", port: peer.port } });
      await expect(s.sftp()).rejects.toMatchObject({ code: "unavailable", hint: expect.stringContaining("Subsystem sftp") as unknown });
      // the refused SFTP channel gave its slot back: two commands at once still run under max_sessions 2
      const rs = await Promise.all([s.exec("echo a"), s.exec("echo b")]);
      expect(rs.map((r) => r.stdout)).toEqual(["a\n", "b\n"]);
    } finally {
      pool.close();
    }
  });

});
