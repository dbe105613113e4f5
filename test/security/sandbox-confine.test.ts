import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CannotConfine, chooseSandbox, confine, parseProbe, probeCommand, usesDbus, type SandboxFacts } from "../../src/core/sandbox/confine.ts";
import { noNetworkFilter, printfOctal } from "../../src/core/sandbox/seccomp.ts";

const facts = (over: Partial<SandboxFacts> = {}): SandboxFacts => ({
  uid: 0, arch: "x86_64", programs: { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", systemd_run: "/usr/bin/systemd-run" },
  systemd: true, log_groups: [{ name: "adm", gid: 4 }], nobody: { uid: 65534, gid: 65534 }, ...over,
});

describe("the sandbox probe", () => {
  it("reads what the fixed probe line prints on this machine", () => {
    const r = spawnSync("/bin/sh", ["-c", probeCommand()], { encoding: "utf8" });
    const f = parseProbe(r.stdout);
    expect(f.uid).toBe(process.getuid?.());
    expect(f.arch).toMatch(/^[\w.-]+$/);
  });

  it("reads whether the host's bwrap can cap a tmpfs (--size), as bwrap --help says here", () => {
    const r = spawnSync("/bin/sh", ["-c", probeCommand()], { encoding: "utf8" });
    const help = spawnSync("bwrap", ["--help"], { encoding: "utf8" });
    expect(parseProbe(r.stdout).bwrap_size === true).toBe(help.status !== null && /--size/.test(help.stdout + help.stderr));
    expect(parseProbe("hostgate-probe:uid=0\nhostgate-probe:arch=x86_64\nhostgate-probe:bwrap_size=1\n").bwrap_size).toBe(true);
  });

  it("ignores lines that are not its own and values that are not paths or numbers", () => {
    const f = parseProbe("motd line\nhostgate-probe:uid=0\nhostgate-probe:arch=aarch64\nhostgate-probe:has=bwrap:relative/bwrap\nhostgate-probe:has=setpriv:/usr/bin/setpriv\nhostgate-probe:group=wheel:10\nhostgate-probe:group=adm:x\n");
    expect(f).toEqual({ uid: 0, arch: "aarch64", programs: { setpriv: "/usr/bin/setpriv" }, systemd: false, log_groups: [] });
  });

  it("reads a memory cgroup only under /sys/fs/cgroup, without dot segments or odd characters", () => {
    const base = "hostgate-probe:uid=0\nhostgate-probe:arch=x86_64\n";
    expect(parseProbe(`${base}hostgate-probe:memcg=1:/sys/fs/cgroup/memory/init.scope\n`).memcg).toEqual({ version: 1, dir: "/sys/fs/cgroup/memory/init.scope" });
    expect(parseProbe(`${base}hostgate-probe:memcg=2:/sys/fs/cgroup\n`).memcg).toEqual({ version: 2, dir: "/sys/fs/cgroup" });
    for (const bad of ["1:/etc/cron.d", "1:/sys/fs/cgroup/memory/../../../etc", "3:/sys/fs/cgroup", "1:/sys/fs/cgroup/a b", "2:/sys/fs/cgroup/$(x)", "1:/sys/fs/cgroup/a;rm"]) {
      expect(parseProbe(`${base}hostgate-probe:memcg=${bad}\n`).memcg, bad).toBeUndefined();
      expect(parseProbe(`${base}hostgate-probe:pidscg=${bad}\n`).pidscg, bad).toBeUndefined();
    }
    // The pids hierarchy: cgroup v1 only (on v2 a process is in one cgroup: the shared memory one).
    expect(parseProbe(`${base}hostgate-probe:pidscg=1:/sys/fs/cgroup/pids/init.scope\n`).pidscg).toEqual({ dir: "/sys/fs/cgroup/pids/init.scope" });
    expect(parseProbe(`${base}hostgate-probe:pidscg=2:/sys/fs/cgroup\n`).pidscg).toBeUndefined();
  });

  it("joins the memory cgroup only as root and only where the probe found one", () => {
    const memcg = { version: 1 as const, dir: "/sys/fs/cgroup/memory/x" };
    const cmd = (over: Partial<SandboxFacts>): string => confine(["true"], chooseSandbox(facts(over)), { network: "none", timeout_sec: 5, run_id: "r" }).command;
    expect(cmd({ memcg })).toContain("/sys/fs/cgroup/memory/x/hostgate-sandbox/cgroup.procs");
    expect(cmd({ memcg: { version: 2, dir: "/sys/fs/cgroup" } })).toContain("/sys/fs/cgroup/hostgate-sandbox/memory.max");
    expect(cmd({ memcg, uid: 1000 })).not.toContain("cgroup.procs");
    expect(cmd({})).not.toContain("cgroup.procs");
  });

  it("refuses an answer without uid and arch (a forced command, a restricted shell)", () => {
    expect(() => parseProbe("This account is restricted\n")).toThrow(/no uid\/arch/);
  });
});

describe("choosing a mechanism (fail closed)", () => {
  it("prefers bubblewrap, needs setpriv for a root login, then systemd-run, else none with every reason", () => {
    expect(chooseSandbox(facts()).mechanism).toBe("bwrap");
    expect(chooseSandbox(facts({ programs: { bwrap: "/usr/bin/bwrap", systemd_run: "/usr/bin/systemd-run" } })).mechanism).toBe("systemd-run");
    expect(chooseSandbox(facts({ uid: 1000, programs: { bwrap: "/usr/bin/bwrap" }, systemd: false })).mechanism).toBe("bwrap");
    const none = chooseSandbox(facts({ uid: 1000, programs: { systemd_run: "/usr/bin/systemd-run" } }));
    expect(none.mechanism).toBeNull();
    expect(none.summary).toMatch(/bubblewrap .*not installed.*needs a root login.*refused here \(fail closed\)/);
  });

  it("prefers the hostgate-confine helper for a root login where the daemon offers one, else bubblewrap", () => {
    const helper = { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", confine_helper: "/opt/hostgate/dist/hostgate-confine" };
    expect(chooseSandbox(facts({ programs: helper })).mechanism).toBe("hostgate-confine");
    expect(chooseSandbox(facts({ programs: helper, nss_systemd: true })).identity).toBe("a uid of its own per run (60578–61183, gid the same) + groups adm");
    // Not for another login (it must drop root itself), nor after its check run failed (bubblewrap then).
    expect(chooseSandbox(facts({ uid: 1000, programs: helper })).mechanism).toBe("bwrap");
    expect(chooseSandbox(facts({ programs: helper }), { "hostgate-confine": "mount_setattr: Function not implemented" }).mechanism).toBe("bwrap");
    const none = chooseSandbox(facts({ programs: { confine_helper: helper.confine_helper }, systemd: false }), { "hostgate-confine": "mount_setattr: Function not implemented" });
    expect(none.summary).toContain("hostgate-confine failed its check run: mount_setattr");
    expect(() => confine(["true"], chooseSandbox(facts({ programs: helper })), { network: "loopback", timeout_sec: 1, run_id: "a" })).toThrow(/hostgate-confine cannot limit to loopback/);
  });

  it("a root login gets a uid of its own per run unless the pool clashes with the host's accounts; a non-root login says it cannot", () => {
    const helper = { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", flock: "/usr/bin/flock", confine_helper: "/opt/hostgate-confine" };
    const bw = { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", flock: "/usr/bin/flock" };
    const cmd = (f: SandboxFacts): string => confine(["true"], chooseSandbox(f), { network: "none", timeout_sec: 5, run_id: "r" }).command;
    expect(cmd(facts({ programs: helper }))).toContain("--uid-pool 60578-61183 --uid-locks /run/hostgate-uids");
    expect(cmd(facts({ programs: bw, posix_shell: true }))).toMatch(/\/usr\/bin\/flock -n 9 && \{ U=\$u; break; \}.*--reuid "\$U" --regid "\$U" .* 9>&-$/);
    expect(chooseSandbox(facts({ programs: bw, nss_systemd: true })).identity).toBe("a uid of its own per run (60578–61183, gid the same) + groups adm");
    // A clash (an account in the range): nobody, and the identity says why.
    const clash = facts({ programs: helper, uid_pool_clash: ["/etc/passwd: ci 60600"] });
    expect(cmd(clash)).toContain("--uid 65534 --gid 65534");
    expect(cmd(clash)).not.toContain("--uid-pool");
    expect(chooseSandbox(clash).identity).toBe("nobody (uid 65534, gid 65534) + groups adm; not a uid of its own per run: the per-run uid range 60578–61183 clashes with /etc/passwd: ci 60600, so host processes running as nobody can signal it");
    // Bubblewrap without flock(1): nobody, saying what is missing.
    const noFlock = facts({ programs: { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv" } });
    expect(cmd(noFlock)).toContain("--reuid 65534 --regid 65534");
    expect(chooseSandbox(noFlock).identity).toContain("flock (util-linux) is missing");
    // A non-root login keeps its uid, and says what that means.
    const login = chooseSandbox(facts({ uid: 1000, programs: bw }));
    expect(login.identity).toMatch(/^the login user itself \(uid 1000; .*\): a non-root login cannot change uid, so .* can signal it/);
    expect(cmd(facts({ uid: 1000, programs: bw }))).not.toContain("flock");
  });

  it("names the per-run uid where nss-systemd can (dbus-daemon needs a name); elsewhere a D-Bus client runs as nobody", () => {
    const helper = { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", flock: "/usr/bin/flock", confine_helper: "/opt/hostgate-confine" };
    const bw = { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", flock: "/usr/bin/flock" };
    const cmd = (f: SandboxFacts, bus: boolean): string => confine(["true"], chooseSandbox(f), { network: "none", timeout_sec: 5, run_id: "r", bus_client: bus }).command;
    expect(cmd(facts({ programs: helper, nss_systemd: true }), true)).toContain("--uid-locks /run/hostgate-uids --userdb /run/userdb");
    expect(cmd(facts({ programs: bw, nss_systemd: true }), true)).toContain("hostgate-sandbox-$U.user");
    expect(cmd(facts({ programs: bw, nss_systemd: true }), true), "one line for the login shell").not.toContain("\n");
    expect(cmd(facts({ programs: helper }), false)).not.toContain("--userdb");
    expect(cmd(facts({ programs: helper }), true)).toContain("--uid 65534 --gid 65534");
    expect(cmd(facts({ programs: bw }), true)).toContain("--reuid 65534 --regid 65534");
    expect(cmd(facts({ programs: bw }), false)).toContain('--reuid "$U"');
    expect(chooseSandbox(facts({ programs: helper })).identity).toContain("; commands that use D-Bus (systemctl, busctl…) run as nobody (uid 65534)");
    expect(chooseSandbox(facts({ programs: helper, nss_systemd: true })).identity).not.toContain("D-Bus");
    expect([usesDbus(["df"]), usesDbus(["ps", "/usr/bin/systemctl"]), usesDbus(["busctl"])]).toEqual([false, true, true]);
  });

  it("the probe reports accounts, groups, subordinate ranges and login.defs limits that reach the pool", () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-pool-"));
    const etc = (name: string, text: string): string => { writeFileSync(join(dir, name), text); return join(dir, name); };
    const files = [
      etc("passwd", "root:x:0:0::/root:/bin/sh\nci:x:60600:60600::/home/ci:/bin/sh\nedge:x:61184:1::/:/bin/false\n"),
      etc("group", "adm:x:4:\nlow:x:60577:\nhigh:x:61183:\n"),
      etc("subuid", "a:100000:65536\nb:60000:600\nc:59000:1578\n"),
      etc("login.defs", "UID_MAX\t\t60000\nGID_MAX 65000\n"),
    ];
    // The probe's own awk program, run on these files instead of /etc's.
    const probe = probeCommand();
    const from = probe.indexOf("awk -F:");
    const awk = probe.slice(from, probe.indexOf(`' "$@"`, from) + 1);
    const r = spawnSync("/bin/sh", ["-c", `${awk} ${files.join(" ")}`], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const f = parseProbe(`hostgate-probe:uid=0\nhostgate-probe:arch=x86_64\n${r.stdout}`);
    expect(f.uid_pool_clash).toEqual([`${dir}/passwd: ci 60600`, `${dir}/group: high 61183`, `${dir}/subuid: b 60000`, `${dir}/login.defs: GID_MAX 65000`]);
    rmSync(dir, { recursive: true, force: true });
    // This machine's own files do not clash (the pool is usable here: the sandbox suites run under it).
    expect(parseProbe(spawnSync("/bin/sh", ["-c", probe], { encoding: "utf8" }).stdout).uid_pool_clash).toBeUndefined();
  });

  it("drops a mechanism whose check run failed and says why", () => {
    const sb = chooseSandbox(facts({ systemd: false }), { bwrap: "No permissions to create a new namespace" });
    expect(sb.mechanism).toBeNull();
    expect(sb.summary).toContain("bwrap failed its check run: No permissions");
  });

  it("a host without a mechanism, and loopback under bubblewrap, cannot confine", () => {
    const none = chooseSandbox(facts({ programs: {}, systemd: false }));
    expect(() => confine(["sh", "-c", "true"], none, { network: "none", timeout_sec: 1, run_id: "a" })).toThrow(CannotConfine);
    expect(() => confine(["sh", "-c", "true"], chooseSandbox(facts()), { network: "loopback", timeout_sec: 1, run_id: "a" })).toThrow(/cannot limit to loopback/);
    expect(() => confine(["sh", "-c", "true"], chooseSandbox(facts()), { network: "none", timeout_sec: 1, run_id: "a;rm" })).toThrow(/run_id/);
  });

  it("systemd-run: one RestrictAddressFamilies line per grant (two lines would be a union)", () => {
    const sb = chooseSandbox(facts({ programs: { systemd_run: "/usr/bin/systemd-run" } }));
    const count = (n: "none" | "loopback" | "any"): number => (confine(["true"], sb, { network: n, timeout_sec: 5, run_id: "r" }).command.match(/RestrictAddressFamilies/g) ?? []).length;
    expect([count("none"), count("loopback"), count("any")]).toEqual([1, 1, 0]);
    const c = confine(["true"], sb, { network: "loopback", timeout_sec: 5, run_id: "r" });
    expect(c.command).toContain("IPAddressAllow=localhost");
    expect(c.kill_command).toContain("hostgate-exec-r.service");
  });

  it("systemd-run: InaccessiblePaths= names every other mount of a hidden path from the probe's mount table, quoted where needed", () => {
    const mounts = [
      { dev: "254:0", root: "/", point: "/" },
      { dev: "254:0", root: "/home", point: "/srv/h" },
      { dev: "254:0", root: "/home", point: "/srv/my \"h\\" },
      { dev: "254:0", root: "/var/lib/hostgate", point: "/mnt/st" },
      { dev: "254:0", root: "/var", point: "/mnt/var" },
    ];
    const sb = chooseSandbox(facts({ programs: { systemd_run: "/usr/bin/systemd-run" }, mounts }));
    const words = spawnSync("/bin/sh", ["-c", `set -- ${confine(["true"], sb, { network: "none", timeout_sec: 5, run_id: "r" }).command.replace(/^exec /, "").replace(/ <\/dev\/null$/, "")}; printf '%s\\0' "$@"`]).stdout.toString("utf8").split("\0");
    const value = words.find((w) => w.startsWith("InaccessiblePaths="))!;
    // What systemd-run unquotes (systemd.syntax(7)): a plain word, or one in double quotes with \\ and \" escaped.
    expect(value).toContain(" -/srv/h ");
    expect(value).toContain(" -/mnt/st ");
    expect(value).toContain(" -/mnt/var/lib/hostgate ");
    expect(value).toContain(` "-/srv/my \\"h\\\\"`);
    expect(value).toContain(" -/etc/shadow ");
    // Without a mount table (an old probe), the paths alone, as before.
    const bare = confine(["true"], chooseSandbox(facts({ programs: { systemd_run: "/usr/bin/systemd-run" } })), { network: "none", timeout_sec: 5, run_id: "r" }).command;
    expect(bare).not.toContain("/srv/h");
  });

  it("systemd-run: a dynamic user only where nss-systemd names it (else dbus-daemon drops it), else nobody", () => {
    const cmd = (nss: boolean): string => confine(["true"], chooseSandbox(facts({ programs: { systemd_run: "/usr/bin/systemd-run" }, nss_systemd: nss })), { network: "none", timeout_sec: 5, run_id: "r" }).command;
    expect(cmd(true)).toContain("DynamicUser=yes");
    expect(cmd(true)).not.toContain("User=65534");
    expect(cmd(false)).toContain("User=65534");
    expect(cmd(false)).not.toContain("DynamicUser");
    expect(parseProbe("hostgate-probe:uid=0\nhostgate-probe:arch=x86_64\nhostgate-probe:nss_systemd=1\n").nss_systemd).toBe(true);
  });
});

describe("the seccomp filter", () => {
  it("is whole instructions and ends in return instructions", () => {
    for (const arch of ["x86_64", "aarch64"] as const) {
      const f = noNetworkFilter(arch);
      expect(f.length % 8).toBe(0);
      const last = new DataView(f.buffer).getUint16(f.length - 8, true);
      expect(last).toBe(0x06);
    }
  });

  it("survives printf: the bytes sh prints are the filter's bytes", () => {
    const f = noNetworkFilter("x86_64");
    const r = spawnSync("/bin/sh", ["-c", `printf '${printfOctal(f)}'`]);
    expect(Buffer.compare(r.stdout, Buffer.from(f))).toBe(0);
  });
});

describe("quoting: the command reaches the sandboxed shell unchanged", () => {
  // A stand-in for bwrap and setpriv that writes the argv it got (NUL-separated) to a file: whatever the
  // command holds (quotes, $(), newlines, leading dashes), the last word bwrap receives is exactly it.
  const dir = mkdtempSync(join(tmpdir(), "hg-confine-"));
  const out = join(dir, "argv");
  const stub = join(dir, "stub");
  writeFileSync(stub, `#!/bin/sh\n[ "$(basename "$0")" = stub ] || true\nfor a in "$@"; do printf '%s\\0' "$a"; done > ${out}\n`);
  chmodSync(stub, 0o755);
  const sb = chooseSandbox(facts({ uid: 1000, programs: { bwrap: stub } }));

  it("holds for hostile strings (property)", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", minLength: 0, maxLength: 80 }).filter((s) => !s.includes("\0")), (cmd) => {
      const w = confine(["sh", "-c", cmd], sb, { network: "any", timeout_sec: 1, run_id: "q" });
      const r = spawnSync("/bin/sh", ["-c", w.command]);
      expect(r.status).toBe(0);
      const argv = readFileSync(out).toString("utf8").split("\0").slice(0, -1);
      expect(argv.slice(-4)).toEqual(["--", "sh", "-c", cmd]);
    }), { numRuns: 60 });
  });

  // The same stub as the hostgate-confine helper of a root login: the command is the last word again, and
  // every enforcement is an option the helper receives.
  const helperSb = chooseSandbox(facts({ programs: { confine_helper: stub } }));
  it("holds for hostile strings under the hostgate-confine helper too (property)", () => {
    expect(helperSb.mechanism).toBe("hostgate-confine");
    fc.assert(fc.property(fc.string({ unit: "binary", minLength: 0, maxLength: 80 }).filter((s) => !s.includes("\0")), (cmd) => {
      const w = confine(["sh", "-c", cmd], helperSb, { network: "any", timeout_sec: 1, run_id: "q" });
      const r = spawnSync("/bin/sh", ["-c", w.command]);
      expect(r.status).toBe(0);
      const argv = readFileSync(out).toString("utf8").split("\0").slice(0, -1);
      expect(argv.slice(-4)).toEqual(["--", "sh", "-c", cmd]);
    }), { numRuns: 60 });
  });

  it("passes every enforcement to the hostgate-confine helper", () => {
    const w = confine(["true"], helperSb, { network: "none", timeout_sec: 7, run_id: "q", hide_dirs: [dir] });
    expect(spawnSync("/bin/sh", ["-c", w.command]).status).toBe(0);
    const words = readFileSync(out).toString("utf8").split("\0").join(" ");
    expect(words).toContain("--uid-pool 60578-61183 --uid-locks /run/hostgate-uids --groups 4 --timeout 7 --scope-unix --tmpfs /tmp --tmpfs /var/tmp --tmpfs-size 268435456");
    // A pids cgroup per command where the host has cgroup v1's pids hierarchy, instead of RLIMIT_NPROC.
    expect(w.command).toContain("ulimit -u 256");
    const withPids = confine(["true"], chooseSandbox(facts({ programs: { confine_helper: stub }, pidscg: { dir: "/sys/fs/cgroup/pids/x" } })), { network: "none", timeout_sec: 7, run_id: "q" }).command;
    expect(withPids).toContain("--pids-cgroup /sys/fs/cgroup/pids/x/hostgate-sandbox --pids-max 256");
    expect(withPids).not.toContain("ulimit -u");
    for (const d of ["/home", "/root", "/run/user", "/etc/hostgate", "/var/lib/hostgate", dir]) expect(words).toContain(`--hide-dir ${d} `);
    expect(words).toMatch(/--hide-file \/etc\/shadow .*--hide-file \/etc\/gshadow /);
    expect(words).toContain(`--seccomp ${Buffer.from(noNetworkFilter("x86_64")).toString("hex")} `);
    // With the host's network view: no namespace of its own, and the filter without AF_UNIX.
    spawnSync("/bin/sh", ["-c", confine(["true"], helperSb, { network: "none", timeout_sec: 0, run_id: "q", host_network_view: true }).command]);
    const view = readFileSync(out).toString("utf8").split("\0").join(" ");
    expect(view).not.toContain("--unshare-net");
    expect(view).not.toContain("--scope-unix");
    expect(view).not.toContain("--timeout");
    expect(view).toContain(`--seccomp ${Buffer.from(noNetworkFilter("x86_64", { unix: false })).toString("hex")} `);
    // A network grant keeps the host's namespace; its abstract Unix sockets are scoped where Landlock can.
    spawnSync("/bin/sh", ["-c", confine(["true"], helperSb, { network: "any", timeout_sec: 0, run_id: "q" }).command]);
    const any = readFileSync(out).toString("utf8").split("\0").join(" ");
    expect(any).toContain("--scope-unix-if-able");
    expect(any).not.toContain("--unshare-net");
  });

  it("hides the daemon's own directories and the shadow files", () => {
    const w = confine(["true"], sb, { network: "any", timeout_sec: 1, run_id: "q", hide_dirs: [dir] });
    spawnSync("/bin/sh", ["-c", w.command]);
    const argv = readFileSync(out).toString("utf8").split("\0");
    expect(argv.join(" ")).toContain(`--tmpfs ${dir}`);
    expect(argv.join(" ")).toMatch(/--ro-bind \/dev\/null \/etc\/shadow/);
  });
});
