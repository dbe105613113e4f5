/**
 * Issue 19, the re-trial on non-root SSH logins (bubblewrap as the login), against a real sshd on loopback whose
 * logins, groups, sudo rule, homes (a tmpfs on /srv) and root service exist only in its own mount namespace:
 * 1. a login whose home is outside /home (`/srv/hgsvc`) read its own 0600 `~/.env` and listed `~/.ssh`;
 * 2. a login in a supplementary group kept it inside bubblewrap and reached a root service's 0660 socket of that
 *    group (served here by a root socat);
 * 3. with `become: sudo` and a NOPASSWD rule the chain runs through `sudo -n` as root and drops to nobody.
 * Each break-in is first shown to work without the sandbox (so the assertions can fail), then to fail inside it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { LocalExecutor } from "../../src/adapters/exec-local.ts";
import { SshExecutor } from "../../src/adapters/exec-ssh/ssh-executor.ts";
import { InventoryCache } from "../../src/adapters/inventory/cache.ts";
import { StaticProvider } from "../../src/adapters/inventory/static.ts";
import { execOnHost, type ExecCaller } from "../../src/app/exec-on-host.ts";
import { Inventory } from "../../src/app/inventory.ts";
import { Sandboxes } from "../../src/app/sandbox.ts";
import { ProviderConfigSchema } from "../../src/config/hosts.ts";
import { confine, RUN_UID_POOL, type HostSandbox } from "../../src/core/sandbox/confine.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";
import { REQUIRE_PEERS, waitFor, whichSync } from "../peers/proc.ts";
import { testEngine } from "../support/risk-engine.ts";

const missing = sshdPrereqs() ?? (["bwrap", "socat", "sudo", "nsenter"].find((p) => !whichSync(p)) ?? null);
if (missing && REQUIRE_PEERS) throw new Error(`non-root SSH login sandbox: ${missing}`);
if (missing) process.stderr.write(`SKIPPING non-root SSH login sandbox tests: ${missing}\n`);

const rand = Math.random().toString(36).slice(2, 8);
const ENV = `nr19env${rand}`;
const KEY = `nr19key${rand}`;
const OTHER = `nr19other${rand}`;
const SUDOENV = `nr19sudo${rand}`;
const ANSWER = `root-service-${rand}`;
const SOCK_GID = 4300;
const rev = (s: string): string => Array.from(s).reverse().join(""); // ASCII only
const operator: ExecCaller = { role: "operator", client: "nr19", uid: 0, actor: "uid:0" };

describe.skipIf(missing !== null)("bubblewrap as a non-root SSH login (issue 19 re-trial)", () => {
  let peer: SshdPeer;
  let executor: SshExecutor;
  let socat: ChildProcess;
  let store: SqliteAuditStore;
  const target = (user: string) => ({ host: "127.0.0.1", port: peer.port, user });
  const sandboxOf = (user: string, become: "none" | "sudo" = "none", accept: string[] = []): Promise<HostSandbox> =>
    new Sandboxes({ accept_login_groups: accept }).forHost({ key: `${user}@127.0.0.1:${peer.port}`, executor, target: target(user), become });
  const plain = (user: string, line: string) => executor.exec({ target: target(user), command: line, timeout_ms: 20_000, max_output_bytes: 65_536 });
  const confined = (user: string, sb: HostSandbox, line: string, signal?: AbortSignal) => {
    const w = confine(["sh", "-c", line], sb, { network: "none", timeout_sec: 30, run_id: `nr19-${rand}` });
    return executor.exec({ target: target(user), command: w.command, kill_command: w.kill_command, timeout_ms: 30_000, max_output_bytes: 65_536, ...(signal ? { signal } : {}) });
  };

  beforeAll(async () => {
    peer = await startSshd({
      groups: [{ name: "hgsock", gid: SOCK_GID }],
      logins: [
        { name: "hgsvc", uid: 4251, home: "/srv/hgsvc" },
        { name: "hgdeploy", uid: 4252, home: "/srv/hgdeploy", groups: ["hgsock"] },
        { name: "hgsudo", uid: 4253, home: "/srv/hgsudo", groups: ["hgsock"], sudo: true },
        { name: "hgother", uid: 4254, home: "/srv/hgother" },
      ],
      setup: [
        "set -e", "mount -t tmpfs -o mode=755 tmpfs /srv",
        "mkdir -m 700 /srv/hgsvc /srv/hgsvc/.ssh /srv/hgsudo", "mkdir -m 755 /srv/hgother /srv/hgdeploy /srv/sock",
        `echo API_TOKEN=${ENV} > /srv/hgsvc/.env`, `echo ${KEY} > /srv/hgsvc/.ssh/id_ed25519`, `echo ${SUDOENV} > /srv/hgsudo/.env`,
        `echo ${OTHER} > /srv/hgother/notes.txt`, "chmod 600 /srv/hgsvc/.env /srv/hgsvc/.ssh/id_ed25519 /srv/hgsudo/.env", "chmod 644 /srv/hgother/notes.txt",
        "chown -R 4251:4251 /srv/hgsvc", "chown -R 4253:4253 /srv/hgsudo", "chown -R 4254:4254 /srv/hgother", "chown 4252:4252 /srv/hgdeploy", "",
      ].join("\n"),
    });
    // A root service on a 0660 socket of group hgsock, in the peer's mount namespace (a child of this test).
    socat = spawn("nsenter", ["-t", String(peer.pid), "-m", "socat", `UNIX-LISTEN:/srv/sock/hg.sock,fork,mode=660,user=0,group=${SOCK_GID}`, `SYSTEM:echo ${ANSWER}`], { stdio: "ignore" });
    await waitFor("the root socket", () => existsSync(`/proc/${peer.pid}/root/srv/sock/hg.sock`), 10_000);
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    executor = new SshExecutor({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 5000 });
    store = openAuditStore(mkdtempSync(join(tmpdir(), "hg-nr19-audit-")), { checkpointIdleMs: 0 });
  });
  afterAll(async () => {
    executor?.close();
    store?.close();
    if (socat?.pid) process.kill(socat.pid, "SIGKILL");
    await peer?.stop();
  });

  it("break-in 1: a home outside /home (~/.env, ~/.ssh) and another user's home outside /home are hidden; diagnostics work", async () => {
    const line = `cd ~ && cat .e* | rev; ls -la ~/.ssh; cat ~/.ssh/id_ed25519 /srv/hgother/notes.txt; ls -A ~ | wc -l`;
    const open = await plain("hgsvc", line);
    expect(open.stdout).toContain(rev(`API_TOKEN=${ENV}`));
    expect(open.stdout).toContain(KEY);
    expect(open.stdout).toContain(OTHER);
    const sb = await sandboxOf("hgsvc");
    expect(sb.mechanism, sb.summary).toBe("bwrap");
    expect(sb.facts.home).toBe("/srv/hgsvc");
    expect(sb.facts.user_homes).toEqual(expect.arrayContaining(["/srv/hgother", "/srv/hgsvc"]));
    // Break-in 3 said where it is true: the login's own processes can reach the command.
    expect(sb.identity).toMatch(/the login user itself \(uid 4251; .*signal it \(and, under bubblewrap, ptrace it\)/);
    const r = await confined("hgsvc", sb, line);
    expect(r.stdout + r.stderr).not.toContain(rev(`API_TOKEN=${ENV}`));
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.stdout + r.stderr).not.toContain(OTHER);
    expect(r.stdout.trim().split("\n").at(-1)).toBe("0"); // the home is empty
    const diag = await confined("hgsvc", sb, "id -u && df -h / >/dev/null && ps aux | head -2 >/dev/null && free -m >/dev/null && echo fine");
    expect(diag.stdout, diag.stderr).toBe("4251\nfine\n");
  });

  it("break-in 2: a login in a supplementary group has no sandbox (fail closed); the reason names the group and both ways out; exec_on_host plans it", async () => {
    const open = await plain("hgdeploy", "socat - UNIX-CONNECT:/srv/sock/hg.sock");
    expect(open.stdout).toBe(`${ANSWER}\n`); // the group reaches the root service
    const sb = await sandboxOf("hgdeploy");
    expect(sb.mechanism).toBeNull();
    expect(sb.summary).toMatch(/hgsock \(gid 4300\)/);
    expect(sb.summary).toMatch(/log in as a user without it/);
    expect(sb.summary).toMatch(/become: sudo/);
    expect(sb.summary).toMatch(/fail closed/);
    // exec_on_host: allowed by the gate, but no sandbox can hold it, so it becomes a plan (refused without an approval path).
    const cfg = ProviderConfigSchema.parse({ kind: "static", name: "lab", hosts: [{ name: "deploy1", address: "127.0.0.1", port: peer.port, user: "hgdeploy" }] });
    const deps = {
      engine: testEngine(), policy: null, executor, local: new LocalExecutor(), sandboxes: new Sandboxes(), audit: store,
      inventory: new Inventory({ backends: [{ provider: new StaticProvider(cfg as never), timeout_ms: 2000, cache_ttl_s: 60, cache_dir: undefined }], defaulted: false, cache: new InventoryCache() }),
      settings: { allow_unverified: true, risk_disabled: true, max_output_bytes: 65_536, fanout_concurrency: 4, max_hosts: 4, max_timeout_sec: 30, max_per_caller: 4, local_hide_dirs: [] },
    };
    const refused = await execOnHost({ host: "deploy1", command: "socat - UNIX-CONNECT:/srv/sock/hg.sock" }, operator, deps).then(() => null, (e: unknown) => e as { code: string; message: string; details: { decision: string } });
    expect(refused).toMatchObject({ code: "refused", details: { decision: "require_approval" } });
    expect(JSON.stringify(refused)).toMatch(/hgsock/);
  });

  it("exec.accept_login_groups keeps a named group on purpose: the sandbox then exists and the group reaches what it reaches (the documented risk)", async () => {
    const sb = await sandboxOf("hgdeploy", "none", ["hgsock"]);
    expect(sb.mechanism, sb.summary).toBe("bwrap");
    expect(sb.identity).toMatch(/keeping groups hgsock/);
    const r = await confined("hgdeploy", sb, "socat - UNIX-CONNECT:/srv/sock/hg.sock");
    expect(r.stdout, r.stderr).toBe(`${ANSWER}\n`);
  });

  it("become: sudo with sudo -n: commands run through sudo under a uid of their own (root's sandbox) without the login's groups; the socket refuses; homes hidden; diagnostics work", async () => {
    const sb = await sandboxOf("hgsudo", "sudo");
    expect(sb.mechanism, sb.summary).toBe("bwrap");
    expect(sb.summary).toMatch(/^through sudo -n \(become: sudo; the login is uid 4253\), then bubblewrap .* after setpriv to a uid of its own per run/);
    expect(sb.summary).toMatch(/hostgate-confine not used: the login reaches root through sudo -n/);
    expect(sb.identity).toMatch(/^a uid of its own per run \(60578–61183/);
    const r = await confined("hgsudo", sb, `id -u; id -G; socat - UNIX-CONNECT:/srv/sock/hg.sock; cat /srv/hgsudo/.env; ls -A /srv/hgsudo | wc -l`);
    const [uid, groups] = r.stdout.split("\n");
    expect(Number(uid)).toBeGreaterThanOrEqual(RUN_UID_POOL.first);
    expect(Number(uid)).toBeLessThanOrEqual(RUN_UID_POOL.last);
    expect(groups!.split(" ")).not.toContain(String(SOCK_GID));
    expect(groups!.split(" ")).not.toContain("4253");
    expect(r.stdout).not.toContain(ANSWER);
    expect(r.stderr).toMatch(/Permission denied/);
    expect(r.stdout + r.stderr).not.toContain(SUDOENV);
    expect(r.stdout.trim().split("\n").at(-1)).toBe("0");
    const diag = await confined("hgsudo", sb, "df -h / >/dev/null && ps aux | head -2 >/dev/null && echo fine");
    expect(diag.stdout, diag.stderr).toBe("fine\n");
  });

  it("become: sudo: cancelling ends the root chain the login cannot signal (each link dies with its parent)", async () => {
    const sb = await sandboxOf("hgsudo", "sudo");
    const n = String(900 + Math.floor(Math.random() * 99));
    const running = (): boolean => readdirSync("/proc").filter((p) => /^\d+$/.test(p)).some((p) => {
      try { return readFileSync(`/proc/${p}/cmdline`, "utf8") === `sleep\0${n}1\0`; } catch { return false; }
    });
    const ac = new AbortController();
    const run = confined("hgsudo", sb, `sleep ${n}1`, ac.signal);
    await waitFor("the confined sleep", running, 10_000);
    ac.abort();
    await run;
    await waitFor("the confined sleep to end", () => !running(), 5_000);
  });

  it("become: sudo without a sudo rule: the login's own facts stay, and the refusal says sudo -n failed", async () => {
    const sb = await sandboxOf("hgdeploy", "sudo");
    expect(sb.mechanism).toBeNull();
    expect(sb.facts.via_sudo).toBeUndefined();
    expect(sb.summary).toMatch(/configured become: sudo, but sudo -n did not give root: .*password is required/);
  });
});
