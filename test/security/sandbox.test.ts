/**
 * Issue 19: what runs without a human runs unprivileged, read-only and without network, enforced by the host.
 * These tests take the classifier out of the way (no policy, exec.allow_unverified, risk.disabled: every
 * command short of critical is allowed) so the sandbox is the only thing between the command and the host, and
 * replay the red team's findings on `local` (the daemon's own host, as root, through the local executor):
 * secrets read through everyday spellings, root files written, a program the engine has never seen, the
 * network, setsid children, unbounded timeouts. Everyday diagnostics must still work inside.
 * The same findings over SSH are in test/integration/exec-on-host.test.ts (sandbox section).
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execOnHost, type ExecCaller, type ExecDeps, type ExecSettings } from "../../src/app/exec-on-host.ts";
import { Inventory } from "../../src/app/inventory.ts";
import { Sandboxes } from "../../src/app/sandbox.ts";
import { InventoryCache } from "../../src/adapters/inventory/cache.ts";
import { LocalExecutor } from "../../src/adapters/exec-local.ts";
import { CedarPolicyEngine } from "../../src/adapters/policy-cedar/cedar-engine.ts";
import type { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { RUN_UID_POOL, SANDBOX_LIMITS } from "../../src/core/sandbox/confine.ts";
import type { ExecOnHostOutput } from "../../src/ipc/hosts.ts";
import type { Executor } from "../../src/ports/executor.ts";
import { REQUIRE_PEERS, whichSync } from "../peers/proc.ts";
import { testEngine } from "../support/risk-engine.ts";
import { localMechanisms } from "../support/confine-helper.ts";

const missing = process.getuid?.() !== 0 ? "needs root (the production daemon's identity)"
  : !whichSync("bwrap") ? "no bubblewrap (apt-get install bubblewrap)"
  : !whichSync("setpriv") ? "no setpriv (util-linux)" : null;
if (missing && REQUIRE_PEERS) throw new Error(`sandbox tests: ${missing}`);
if (missing) process.stderr.write(`SKIPPING local sandbox tests: ${missing}\n`);

/** The error a call was refused with (fails the test when it was not refused). */
const refusal = (p: Promise<unknown>): Promise<{ code?: string; details?: unknown }> =>
  p.then(() => { throw new Error("expected a refusal"); }, (e: unknown) => e as { code?: string; details?: unknown });

const operator: ExecCaller = { role: "operator", client: "red-team", uid: 1000, actor: "uid:1000" };
const rand = Math.random().toString(36).slice(2, 8);

describe.skipIf(missing !== null).each(missing === null ? localMechanisms() : [])("unapproved commands on local run in the sandbox (issue 19) under $name", ({ name, local_helper }) => {
  let store: SqliteAuditStore;
  let deps: ExecDeps;
  let server: Server;
  let port = 0;
  let connections = 0;
  const made: string[] = [];
  const mk = (prefix: string, mode = 0o755): string => {
    const d = mkdtempSync(prefix);
    chmodSync(d, mode);
    made.push(d);
    return d;
  };
  let stateDir = "";
  let secretDir = "";
  let victimDir = "";
  let logDir = "";
  let program = "";
  const planted = `/etc/hg-planted-${rand}`;
  const cronFile = `/etc/hg-cron-${rand}`;
  const settings: ExecSettings = { allow_unverified: true, risk_disabled: true, max_output_bytes: 256 * 1024, fanout_concurrency: 8, max_hosts: 10, max_timeout_sec: 3, max_per_caller: 4, local_hide_dirs: [] };

  const run = async (command: string, over: Partial<ExecDeps> = {}, timeout_sec?: number): Promise<ExecOnHostOutput["results"][number]> => {
    const r = await execOnHost({ host: "local", command, ...(timeout_sec !== undefined ? { timeout_sec } : {}) }, operator, { ...deps, ...over });
    if (!("results" in r)) throw new Error(`expected results, got ${JSON.stringify(r)}`);
    return r.results[0]!;
  };

  beforeAll(async () => {
    // hostgate's own state: a key readable by anyone, so only the sandbox's hiding keeps it in.
    stateDir = mk("/var/lib/hg-sandbox-state-");
    mkdirSync(join(stateDir, "ssh"));
    writeFileSync(join(stateDir, "ssh", "id_ed25519"), `-----BEGIN OPENSSH PRIVATE KEY-----\nDAEMONKEY${rand}\n-----END OPENSSH PRIVATE KEY-----\n`, { mode: 0o644 });
    secretDir = mk("/var/lib/hg-sandbox-secret-", 0o700);
    writeFileSync(join(secretDir, "token"), `SECRETMARK${rand}\n`, { mode: 0o600 });
    victimDir = mk("/srv/hg-sandbox-victim-", 0o777);
    writeFileSync(join(victimDir, "victim"), "keep me\n", { mode: 0o666 });
    logDir = mk("/var/log/hg-sandbox-");
    writeFileSync(join(logDir, "app.log"), "ok line\nERROR disk full\n", { mode: 0o640 });
    chmodSync(join(logDir, "app.log"), 0o640);
    (await import("node:child_process")).execFileSync("chgrp", ["adm", join(logDir, "app.log")]);
    // A program the risk engine has never seen, outside every temp dir, that writes root files.
    const bin = mk("/usr/local/lib/hg-sandbox-bin-");
    program = join(bin, `frobnicate${rand}`);
    writeFileSync(program, `#!/bin/sh\necho pwned > ${planted}\necho pwned > ${victimDir}/new\nrm -f ${victimDir}/victim\n`, { mode: 0o755 });
    server = createServer((s) => { connections++; s.end("hello\n"); });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
    store = openAuditStore(mkdtempSync(join(tmpdir(), "hg-sandbox-audit-")), { checkpointIdleMs: 0 });
    deps = {
      engine: testEngine(), policy: null, audit: store, local: new LocalExecutor(), sandboxes: new Sandboxes({ local_helper }), executor: new LocalExecutor(),
      inventory: new Inventory({ backends: [], defaulted: false, cache: new InventoryCache() }),
      settings: { ...settings, local_hide_dirs: [stateDir] },
    };
  });
  afterAll(async () => {
    store?.close();
    await new Promise<void>((r) => { server?.close(() => { r(); }); });
    for (const d of made) rmSync(d, { recursive: true, force: true });
    rmSync(planted, { force: true });
    rmSync(cronFile, { force: true });
  });

  it("runs as a uid of its own per run with the log readers' groups, and says so", async () => {
    const r = await run("id -u; id -G");
    const uid = Number(r.stdout.split("\n")[0]);
    expect(uid, r.stderr).toBeGreaterThanOrEqual(RUN_UID_POOL.first);
    expect(uid).toBeLessThanOrEqual(RUN_UID_POOL.last);
    expect(r.sandbox).toBe(`${name} as a uid of its own per run (${RUN_UID_POOL.first}–${RUN_UID_POOL.last}, gid the same) + groups adm, systemd-journal, network none`);
    // Seen from the host: that uid and gid, and the log readers' gids as supplementary groups (inside, the
    // user namespace shows them as the overflow gid).
    const tag = `2.${rand.length}${Math.floor(Math.random() * 1000)}`;
    const running = run(`exec sleep ${tag}`);
    let status = "";
    for (let i = 0; i < 100 && status === ""; i++) {
      const pid = spawnSync("pgrep", ["-f", `^sleep ${tag}$`], { encoding: "utf8" }).stdout.trim().split("\n")[0];
      if (pid) status = readFileSync(`/proc/${pid}/status`, "utf8");
      else await new Promise((res) => setTimeout(res, 100));
    }
    await running;
    const gids = (g: string): number[] => g.trim().split(/\s+/).map(Number);
    expect(gids(/^Gid:(.*)$/m.exec(status)![1]!)[0]).toBe(gids(/^Uid:(.*)$/m.exec(status)![1]!)[0]);
    const logGids = ["adm", "systemd-journal"].map((g) => Number(spawnSync("getent", ["group", g], { encoding: "utf8" }).stdout.split(":")[2]));
    expect(gids(/^Groups:(.*)$/m.exec(status)![1]!).sort()).toEqual(logGids.sort());
    const decision = JSON.parse(store.query().filter((e) => e.kind === "exec.decision").at(-1)!.payload) as { sandbox: string[] };
    expect(decision.sandbox).toEqual([name]);
  });

  it("reads no secret, whatever the spelling (the red team's 'low' reads)", async () => {
    const key = join(stateDir, "ssh", "id_ed25519");
    const secret = join(secretDir, "token");
    const shadow = readFileSync("/etc/shadow", "utf8").split("\n").find((l) => l.startsWith("root:"))!;
    const spellings = [
      `cat ${key}`, `cat ${secret}`, `echo ${secret} | xargs cat`, `sed 'r ${secret}' /etc/hostname`,
      `awk 'BEGIN { while ((getline l < "${secret}") > 0) print l }'`, `cat /proc/self/root${secret}`, `cat /proc/1/root${key}`,
      `cd /proc/self/cwd && cat .${secret}`, `grep -r DAEMONKEY /var/lib`, `grep -r SECRETMARK /var/lib`, `cat /etc/shadow`, `cat /etc/gshadow`,
      `cat /etc/ssh/ssh_host_ed25519_key`, `ls -la /root; cat /root/.ssh/* 2>&1`, `tar cf - ${stateDir} 2>/dev/null | strings`,
    ];
    if (whichSync("git")) spellings.push(`git diff --no-index /dev/null ${secret}`);
    for (const cmd of spellings) {
      const r = await run(cmd);
      const all = r.stdout + r.stderr;
      expect(all, cmd).not.toContain(`DAEMONKEY${rand}`);
      expect(all, cmd).not.toContain(`SECRETMARK${rand}`);
      expect(all, cmd).not.toContain(shadow);
      expect(all, cmd).not.toMatch(/BEGIN OPENSSH PRIVATE KEY-----\n[A-Za-z0-9+/=]{20,}/);
    }
  });

  it("writes nothing: output-file options, a program the engine never saw, deletes (the red team's 'low' writes)", async () => {
    const writes = [
      `iconv -f utf-8 -t utf-8 -o ${cronFile} /etc/hostname`, program, `rm -f ${victimDir}/victim`, `echo x > ${victimDir}/new`,
      `cp /etc/hostname /etc/hg-cp-${rand}`, `ln -s /tmp /etc/hg-link-${rand}`, `PATH=/tmp:$PATH; printf '#!/bin/sh\\necho' > /tmp/x && touch ${planted}`,
    ];
    for (const cmd of writes) {
      const r = await run(cmd);
      expect(r.exit_code, `${cmd}: ${r.stderr}`).not.toBe(0);
    }
    expect(existsSync(planted)).toBe(false);
    expect(existsSync(cronFile)).toBe(false);
    expect(existsSync(`/etc/hg-cp-${rand}`)).toBe(false);
    expect(existsSync(`/etc/hg-link-${rand}`)).toBe(false);
    expect(existsSync(join(victimDir, "new"))).toBe(false);
    expect(readFileSync(join(victimDir, "victim"), "utf8")).toBe("keep me\n");
    // The private /tmp is writable and thrown away.
    const tmp = await run(`echo scratch > /tmp/hg-${rand} && cat /tmp/hg-${rand}`);
    expect(tmp.stdout).toBe("scratch\n");
    expect(existsSync(`/tmp/hg-${rand}`)).toBe(false);
    // and gone for the next run (another uid, another tmpfs).
    expect((await run(`cat /tmp/hg-${rand}`)).stderr).toMatch(/No such file or directory/);
    // Each private tmpfs has a size cap (tmpfs size=), memory cgroup or not: before, half of RAM each.
    const sizes = await run("df -P -B1 /tmp /var/tmp | tail -n +2");
    expect(sizes.stdout.split("\n").filter(Boolean).map((l) => Number(l.split(/\s+/)[1]))).toEqual([SANDBOX_LIMITS.tmp_bytes, SANDBOX_LIMITS.tmp_bytes]);
  });

  it("has no network unless a policy grants it; ss and ip still see the host's sockets and interfaces", async () => {
    const probe = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3'`;
    const before = connections;
    const denied = await run(probe);
    expect(denied.stdout).not.toContain("hello");
    expect(denied.stderr).toMatch(/Permission denied/);
    expect(connections).toBe(before);
    // ss and ip keep the host's network namespace (netlink works, Unix sockets do not: sandbox-attack.test.ts),
    // so they list the host's listener and interfaces; the connection above still failed.
    const ss = await run("ss -ltn | grep LISTEN");
    expect(ss.exit_code, ss.stderr).toBe(0);
    expect(ss.stdout).toContain(`127.0.0.1:${port}`);
    const names = (text: string): string[] => [...text.matchAll(/^\d+: ([^:@]+)[:@]/gm)].map((m) => m[1]!).sort();
    const hostLinks = names((await import("node:child_process")).execFileSync("ip", ["-o", "link", "show"], { encoding: "utf8" }));
    // (Other tests add and remove veth links meanwhile: compare one the host had before, not the whole list.)
    const other = hostLinks.find((n) => n !== "lo" && !n.startsWith("veth"));
    if (other !== undefined) expect(names((await run("ip -o link show")).stdout)).toContain(other);
    // Any other command: under bubblewrap a network namespace of its own, where the host's listener does not
    // exist; hostgate-confine keeps the host's namespace where Landlock can scope abstract Unix sockets (ABI 6+,
    // what the namespace was for: sandbox-attack.test.ts), so the listener is listed, and the connection above
    // still failed (the seccomp filter refuses IP sockets). Without that Landlock it makes the namespace too.
    const own = await run("cat /proc/net/tcp");
    const landlockScopes = Number(spawnSync("perl", ["-e", "print syscall(444, 0, 0, 1)"], { encoding: "utf8" }).stdout) >= 6;
    expect(own.stdout.includes(`:${port.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A`)).toBe(name === "hostgate-confine" && landlockScopes);

    const dir = mkdtempSync(join(tmpdir(), "hg-sandbox-policy-"));
    writeFileSync(join(dir, "net.cedar"), `@id("local-net")\n@network("any")\npermit (principal, action == Hostgate::Action::"exec", resource) when { resource.backend == "local" };\n`);
    const granted = await run(probe, { policy: CedarPolicyEngine.load(dir), settings: { ...deps.settings, allow_unverified: false } });
    expect(granted.stdout).toBe("hello\n");
    expect(granted.sandbox).toMatch(/network any$/);
    // With the network granted the command shares the host's namespace, so ss lists the host's listeners.
    const grantedSs = await run("ss -ltn", { policy: CedarPolicyEngine.load(dir), settings: { ...deps.settings, allow_unverified: false } });
    expect(grantedSs.stdout).toContain(`127.0.0.1:${port}`);

    // bubblewrap cannot limit the network to loopback: such a grant is not silently widened; it needs a human.
    writeFileSync(join(dir, "net.cedar"), `@id("local-loop")\n@network("loopback")\npermit (principal, action == Hostgate::Action::"exec", resource) when { resource.backend == "local" };\n`);
    const loop = await refusal(execOnHost({ host: "local", command: probe }, operator, { ...deps, policy: CedarPolicyEngine.load(dir), settings: { ...deps.settings, allow_unverified: false } }));
    expect(loop).toMatchObject({ code: "refused", details: { decision: "require_approval" } });
    expect(JSON.stringify(loop.details)).toMatch(/cannot limit to loopback/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("path Unix sockets still work without network: a real D-Bus call (what systemctl status does)", async () => {
    // A system-type dbus-daemon on a path socket outside /tmp (the sandbox's /tmp is private), as
    // /run/dbus/system_bus_socket is: the sandbox's own network namespace does not cut path sockets.
    const dir = mk("/run/hg-sandbox-dbus-");
    const conf = join(dir, "bus.conf");
    writeFileSync(conf, `<busconfig><type>system</type><listen>unix:path=${dir}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>\n`);
    const { spawn } = await import("node:child_process");
    const bus = spawn("dbus-daemon", ["--config-file", conf, "--nofork", "--nopidfile"], { stdio: "ignore" });
    try {
      for (let i = 0; i < 100 && !existsSync(join(dir, "bus")); i++) await new Promise((r) => setTimeout(r, 50));
      const r = await run(`busctl --address=unix:path=${dir}/bus call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId`);
      expect(r.exit_code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^s "[0-9a-f]{32}"$/m);
    } finally {
      bus.kill("SIGKILL");
    }
  });

  it("everyday diagnostics work inside", async () => {
    for (const cmd of ["id", "journalctl -n 5", "df -h", "free -m", "ps aux", "uptime", "du -sh /usr/share/doc", `grep -r ERROR ${logDir}`, "ss -ltnp", "cat /proc/loadavg", "ls /etc"]) {
      const r = await run(cmd);
      expect(r.exit_code, `${cmd}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length, cmd).toBeGreaterThan(0);
    }
    expect((await run(`grep -r ERROR ${logDir}`)).stdout).toContain("ERROR disk full");
    expect((await run("ps -eo pid")).stdout).toMatch(new RegExp(`\\b${process.pid}\\b`));
  });

  it("ends: setsid children die with the command; no timeout means the configured maximum", async () => {
    const tag = `${Math.floor(Math.random() * 1000) + 1000}.${rand.length}`;
    const detached = await run(`setsid sleep ${tag} > /dev/null 2>&1 & echo started`);
    expect(detached.stdout).toBe("started\n");
    await new Promise((r) => setTimeout(r, 300));
    expect((await import("node:child_process")).spawnSync("pgrep", ["-f", `sleep ${tag}`]).status).toBe(1);
    const forever = await run(`setsid sleep ${tag} & sleep 30`, {}, 0);
    expect(forever).toMatchObject({ timed_out: true, exit_code: null });
    expect(forever.duration_ms).toBeLessThan(15_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await import("node:child_process")).spawnSync("pgrep", ["-f", `sleep ${tag}`]).status).toBe(1);
  });

  it("fails closed: a host with no sandbox runs nothing unapproved; the call becomes a plan", async () => {
    // A real probe on a host whose PATH has the probe's tools but neither bwrap, setpriv nor systemd-run.
    const bin = mk("/usr/local/lib/hg-sandbox-path-");
    for (const p of ["id", "uname", "getent", "cut", "touch", "sh"]) symlinkSync(whichSync(p)!, join(bin, p));
    const bare: Executor = { exec: (req) => new LocalExecutor().exec({ ...req, command: `PATH=${bin}; export PATH; ${req.command}` }) };
    const over = { local: bare, sandboxes: new Sandboxes() };
    const refused = await refusal(execOnHost({ host: "local", command: `touch ${planted}` }, operator, { ...deps, ...over }));
    expect(refused).toMatchObject({ code: "refused", details: { decision: "require_approval" } });
    expect(JSON.stringify(refused.details)).toMatch(/unapproved commands run only in a sandbox, and local: no sandbox: bubblewrap \(bwrap\) is not installed/);
    const planned = await execOnHost({ host: "local", command: `touch ${planted}` }, operator, { ...deps, ...over, requestApproval: () => Promise.resolve({ transaction_id: "tx", preview_hash: "h" }) });
    expect(planned).toMatchObject({ approval: { transaction_id: "tx" } });
    expect(existsSync(planted)).toBe(false);
  });
});
