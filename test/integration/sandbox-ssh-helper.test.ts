/**
 * Issue 19 (task s19): the hostgate-confine helper on SSH hosts. A real sshd (network namespace, sftp
 * subsystem, root login, its own mount namespace with a private /root), the helper compiled from
 * native/confine-helper.c for this run, uploaded by the real SFTP uploader into the login's cache
 * (core/sandbox/helper-cache.ts) and run by exec_on_host. The lab host's files are examined from outside
 * through /proc/<sshd pid>/root (its mount namespace), never over the connection under test.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { elfFacts } from "../../src/adapters/confine-helper.ts";
import { SshExecutor } from "../../src/adapters/exec-ssh/ssh-executor.ts";
import { SftpUploader } from "../../src/adapters/sftp-upload.ts";
import { LocalExecutor } from "../../src/adapters/exec-local.ts";
import { InventoryCache } from "../../src/adapters/inventory/cache.ts";
import { StaticProvider } from "../../src/adapters/inventory/static.ts";
import type { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { execOnHost, type ExecCaller, type ExecDeps } from "../../src/app/exec-on-host.ts";
import { Inventory } from "../../src/app/inventory.ts";
import { Sandboxes, type RemoteHelper } from "../../src/app/sandbox.ts";
import { ProviderConfigSchema } from "../../src/config/hosts.ts";
import { confine, RUN_UID_POOL } from "../../src/core/sandbox/confine.ts";
import { helperCachePath } from "../../src/core/sandbox/helper-cache.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import type { FileUploader } from "../../src/ports/file-upload.ts";
import { netnsPrereqs, startNetnsLab, type NetnsLab } from "../peers/netns-sshd.ts";
import { REQUIRE_PEERS, whichSync } from "../peers/proc.ts";
import { testConfineHelper } from "../support/confine-helper.ts";
import { testEngine } from "../support/risk-engine.ts";

const helperBuild = testConfineHelper();
const missing = netnsPrereqs() ?? (!whichSync("bwrap") ? "no bubblewrap (apt-get install bubblewrap)" : "reason" in helperBuild ? helperBuild.reason : null);
if (missing && REQUIRE_PEERS) throw new Error(`hostgate-confine over SSH: ${missing}`);
if (missing) process.stderr.write(`SKIPPING hostgate-confine over SSH: ${missing}\n`);

const operator: ExecCaller = { role: "operator", client: "s19", uid: 0, actor: "uid:0" };
const rand = Math.random().toString(36).slice(2, 8);

describe.skipIf(missing !== null)("the hostgate-confine helper on an SSH host (issue 19)", () => {
  let lab: NetnsLab;
  let executor: SshExecutor;
  let store: SqliteAuditStore;
  let helper: RemoteHelper;
  let uploads = 0;
  let cached: string;
  /** A path on the lab host, seen from outside through its sshd's mount namespace. */
  const onHost = (p: string): string => `/proc/${lab.hosts[0]!.pid}/root${p}`;
  const target = (): { host: string; port: number } => ({ host: lab.hosts[0]!.ip, port: 22 });
  const sandboxes = (over: Partial<RemoteHelper> = {}): Sandboxes => new Sandboxes({ remote_helper: { ...helper, ...over } });
  const probe = (s: Sandboxes) => s.forHost({ key: `root@${lab.hosts[0]!.ip}:22`, executor, target: target() });
  const sha = (p: string): string => createHash("sha256").update(readFileSync(p)).digest("hex");
  /** Runs `line` confined by `s`'s mechanism for the lab host (network none). */
  const confined = async (s: Sandboxes, line: string) => {
    const sb = await probe(s);
    const w = confine(["sh", "-c", line], sb, { network: "none", timeout_sec: 20, run_id: `s19-${rand}` });
    return executor.exec({ target: target(), command: w.command, timeout_ms: 30_000, max_output_bytes: 65_536 });
  };

  beforeAll(async () => {
    lab = await startNetnsLab(1, { sftp: true });
    executor = new SshExecutor({ known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 5000 });
    const bytes = readFileSync((helperBuild as { path: string }).path);
    const real = new SftpUploader(executor.pool);
    const counting: FileUploader = { put: async (...a) => { uploads++; await real.put(...a); } };
    helper = { bytes, sha256: createHash("sha256").update(bytes).digest("hex"), arch: elfFacts(bytes)!.arch!, uploader: counting };
    cached = helperCachePath("/root", helper.sha256);
    store = openAuditStore(mkdtempSync(join(tmpdir(), "hg-s19-audit-")), { checkpointIdleMs: 0 });
  });
  afterAll(async () => {
    executor?.close();
    store?.close();
    await lab?.stop();
  });

  it("a root login on the build's architecture gets the helper, uploaded once to its cache and run by exec_on_host", async () => {
    const sb = await probe(sandboxes());
    expect(sb.mechanism, sb.summary).toBe("hostgate-confine");
    expect(sb.summary).toContain(cached);
    expect(uploads).toBe(1);
    // The file is the build, 0700 root, in 0700 root directories made by the upload.
    expect(sha(onHost(cached))).toBe(helper.sha256);
    for (const [p, mode] of [[cached, 0o700], ["/root/.cache/hostgate", 0o700], ["/root/.cache", 0o700]] as const) {
      const st = statSync(onHost(p));
      expect([p, st.uid, st.mode & 0o7777]).toEqual([p, 0, mode]);
    }
    // A second daemon (a new probe) finds it and sends nothing.
    expect((await probe(sandboxes())).mechanism).toBe("hostgate-confine");
    expect(uploads).toBe(1);
    // exec_on_host runs through it and says so.
    const cfg = ProviderConfigSchema.parse({ kind: "static", name: "lab", hosts: [{ name: "lab2", address: lab.hosts[0]!.ip, user: "root" }] });
    const deps: ExecDeps = {
      engine: testEngine(), policy: null, executor, local: new LocalExecutor(), sandboxes: sandboxes(), audit: store,
      inventory: new Inventory({ backends: [{ provider: new StaticProvider(cfg as never), timeout_ms: 2000, cache_ttl_s: 60, cache_dir: undefined }], defaulted: false, cache: new InventoryCache() }),
      settings: { allow_unverified: true, risk_disabled: true, max_output_bytes: 65_536, fanout_concurrency: 4, max_hosts: 4, max_timeout_sec: 30, max_per_caller: 4, local_hide_dirs: [] },
    };
    const r = await execOnHost({ host: "lab2", command: "id -u; wc -c < /etc/shadow; touch /etc/hg-s19-planted" }, operator, deps);
    if (!("results" in r)) throw new Error(`expected results: ${JSON.stringify(r)}`);
    expect(r.results[0]!.sandbox).toMatch(/^hostgate-confine as a uid of its own per run \(60578–61183, gid the same\)/);
    // A uid of its own (RUN_UID_POOL), and /etc/shadow is the empty /dev/null inside.
    const [uid, shadow] = r.results[0]!.stdout.split("\n").map(Number);
    expect(uid).toBeGreaterThanOrEqual(RUN_UID_POOL.first);
    expect(uid).toBeLessThanOrEqual(RUN_UID_POOL.last);
    expect(shadow).toBe(0);
    // Its lock on the host is free again after the run.
    expect(spawnSync("flock", ["-n", onHost(`${RUN_UID_POOL.lock_dir}/${uid}`), "true"]).status).toBe(0);
    expect(r.results[0]!.stderr).toMatch(/Read-only file system/);
  });

  it("a second bind mount of a hidden directory is hidden too, under the helper and under bubblewrap", async () => {
    const second = `/run/hg-s19-second-${rand}`;
    mkdirSync(second);
    const pid = String(lab.hosts[0]!.pid);
    // In the host's mount namespace only: a /home of its own with a world-readable file (what the sandbox hides
    // by emptying /home, not by permissions), and a second mount of it elsewhere.
    execFileSync("nsenter", ["-t", pid, "-m", "sh", "-ec", `mount -t tmpfs -o mode=755 tmpfs /home; mkdir -m 755 /home/alice; echo PLANTED${rand} > /home/alice/notes; chmod 644 /home/alice/notes; mount --bind /home ${second}`]);
    try {
      const line = `cat ${second}/alice/notes /home/alice/notes; ls -A ${second}`;
      const r = await confined(sandboxes(), line);
      expect(r.stdout + r.stderr).not.toContain(`PLANTED${rand}`);
      expect(r.stdout).not.toMatch(/alice/);
      expect(r.stderr, r.stderr).toMatch(/No such file or directory/);
      // The same line under bubblewrap (no helper for this daemon): it read the file before bubblewrap hid by
      // mount identity too (core/sandbox/mounts.ts, from the probe's mount table).
      const bw = await confined(new Sandboxes(), line);
      expect(bw.stdout + bw.stderr).not.toContain(`PLANTED${rand}`);
      expect(bw.stdout).not.toMatch(/alice/);
      expect(bw.stderr, bw.stderr).toMatch(/No such file or directory/);
    } finally {
      spawnSync("nsenter", ["-t", pid, "-m", "umount", second, "/home"]);
      rmdirSync(second);
    }
  });

  it("a sandboxed command cannot replace or change the cached helper, by any path", async () => {
    const sshd = lab.hosts[0]!.pid;
    const attack = [
      `cp /bin/sh ${cached}`, `echo x > ${cached}`, `rm ${cached}`, `mv ${cached} /tmp/x`, `chmod 777 ${cached}`,
      `echo x > /proc/${sshd}/root${cached}`, `ls /proc/${sshd}/root/root/`,
    ].map((c) => `${c} 2>&1 || echo "refused: ${c.split(" ")[0]}"`).join("; ") + "; echo \"root holds: $(ls -A /root)\"";
    for (const s of [sandboxes(), new Sandboxes()]) {
      const r = await confined(s, attack);
      expect(r.stdout).toMatch(/(Read-only file system|Permission denied|No such file)[\s\S]*refused: cp/);
      for (const verb of ["cp", "echo", "rm", "mv", "chmod"]) expect(r.stdout).toContain(`refused: ${verb}`);
      expect(r.stdout).toMatch(/^root holds: $/m);
      expect(sha(onHost(cached))).toBe(helper.sha256);
      expect(statSync(onHost(cached)).mode & 0o7777).toBe(0o700);
    }
  });

  it("a cached file that is not the build is replaced; a cache directory others can write keeps bubblewrap, and says why", async () => {
    writeFileSync(onHost(cached), "#!/bin/sh\necho replaced\n", { mode: 0o700 });
    const before = uploads;
    const sb = await probe(sandboxes());
    expect(sb.mechanism).toBe("hostgate-confine");
    expect(uploads).toBe(before + 1);
    expect(sha(onHost(cached))).toBe(helper.sha256);

    chmodSync(onHost("/root/.cache/hostgate"), 0o777);
    try {
      const loose = await probe(sandboxes());
      expect(loose.mechanism).toBe("bwrap");
      expect(loose.summary).toContain("hostgate-confine not used: its cache is unsafe: /root/.cache/hostgate is writable by everyone");
      expect(uploads).toBe(before + 1);
    } finally {
      chmodSync(onHost("/root/.cache/hostgate"), 0o700);
    }
  });

  it("a host of another architecture than the build keeps bubblewrap, and nothing is sent", async () => {
    const before = uploads;
    const sb = await probe(sandboxes({ arch: "aarch64" }));
    expect(sb.mechanism).toBe("bwrap");
    expect(sb.summary).toContain(`hostgate-confine not used: the host is ${helper.arch}, the daemon's helper build aarch64`);
    expect(uploads).toBe(before);
  });
});
