// Issue 24 trial, findings 3 and 4: WriteFile reached what per-action refusals guard with no warning; errors gave
// wrong reasons. Previews on the real machine (nothing is written: only `preview` runs), plus the table's own rules.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { plan } from "../helpers/plan-steps.ts";
import setSysctl from "../../src/core/catalogue/actions/set-sysctl.ts";
import writeFile from "../../src/core/catalogue/actions/write-file.ts";
import { SENSITIVE_WRITES, sysctlKeysOf, writeRisk } from "../../src/core/catalogue/actions/write-path-risk.ts";
import { agentPreview } from "../../src/core/transaction/agent-preview.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

describe("WriteFile: paths that run code as root or grant access plan at high/critical with a named warning", () => {
  const cases: [string, string, "high" | "critical", string][] = [
    ["/etc/sysctl.d/99-x.conf", "kernel.core_pattern = |/tmp/x\n", "critical", "WriteFile/sysctl-runs-code: it sets kernel.core_pattern"],
    ["/etc/sysctl.d/99-y.conf", "vm.swappiness = 10\n", "high", "WriteFile/sysctl: /etc/sysctl.d/99-y.conf sets kernel parameters"],
    ["/etc/ssh/sshd_config.d/99-x.conf", "AuthorizedKeysCommand /tmp/x\nAuthorizedKeysCommandUser root\n", "critical", "WriteFile/sshd-config"],
    ["/root/.ssh/authorized_keys", "ssh-ed25519 AAAA x\n", "critical", "WriteFile/authorized-keys: /root/.ssh/authorized_keys is an authorized_keys file: every key in it may log in over SSH as that account (here: root's"],
    ["/home/bob/.ssh/authorized_keys", "ssh-ed25519 AAAA x\n", "critical", "WriteFile/authorized-keys"],
    ["/etc/cron.d/hg-job", "* * * * * root /tmp/x\n", "critical", "WriteFile/cron: /etc/cron.d/hg-job is read by cron"],
    ["/var/spool/cron/crontabs/root", "* * * * * /tmp/x\n", "critical", "WriteFile/cron"],
    ["/etc/systemd/system/x.service.d/override.conf", "[Service]\nExecStartPre=/tmp/x\n", "critical", "WriteFile/systemd-unit"],
    ["/etc/profile.d/x.sh", "/tmp/x\n", "high", "WriteFile/login-shell"],
    ["/etc/modprobe.d/x.conf", "install dummy /tmp/x\n", "critical", "WriteFile/modprobe"],
    ["/etc/udev/rules.d/99-x.rules", "RUN+=\"/tmp/x\"\n", "critical", "WriteFile/udev"],
    ["/etc/pam.d/sshd", "auth sufficient pam_permit.so\n", "critical", "WriteFile/pam"],
    ["/etc/ld.so.conf.d/x.conf", "/tmp\n", "critical", "WriteFile/dynamic-linker"],
    // The re-trial's list.
    ["/etc/apt/apt.conf.d/99x", "DPkg::Pre-Invoke { \"/tmp/x\"; };\n", "critical", "WriteFile/package-hooks"],
    ["/etc/dpkg/dpkg.cfg.d/x", "pre-invoke=/tmp/x\n", "critical", "WriteFile/package-hooks"],
    ["/etc/logrotate.d/x", "/var/log/x { postrotate\n/tmp/x\nendscript }\n", "critical", "WriteFile/logrotate"],
    ["/etc/update-motd.d/99-x", "#!/bin/sh\n/tmp/x\n", "critical", "WriteFile/login-hooks"],
    ["/etc/ssh/sshrc", "/tmp/x\n", "critical", "WriteFile/login-hooks"],
    ["/etc/sudo.conf", "Plugin sudoers_policy /tmp/x.so\n", "critical", "WriteFile/sudo-plugins"],
    ["/usr/local/sbin/swapon", "#!/bin/sh\n/tmp/x\n", "critical", "WriteFile/command-path"],
    ["/etc/kernel/postinst.d/x", "#!/bin/sh\n/tmp/x\n", "critical", "WriteFile/system-hooks"],
    ["/etc/network/if-up.d/x", "#!/bin/sh\n/tmp/x\n", "critical", "WriteFile/system-hooks"],
    ["/etc/nsswitch.conf", "passwd: files x\n", "critical", "WriteFile/name-service"],
    ["/etc/systemd/system.conf", "[Manager]\nDefaultEnvironment=LD_PRELOAD=/tmp/x.so\n", "critical", "WriteFile/systemd-manager"],
  ];

  it.each(cases)("%s: risk %s… with its warning, shown to the approver and the model", async (path, content, risk, warning) => {
    const ctx = await realContext();
    const p = await writeFile.preview({ path, content, mode: "0644" }, ctx);
    expect(p.risk_level).toBe(risk);
    expect(p.warnings?.some((w) => w.startsWith(warning))).toBe(true);
    expect(p.text).toContain(`!! ${warning}`);
    expect(agentPreview(p).warnings).toEqual(p.warnings);
  });

  it("an ordinary path carries no extra risk or warning; a sysctl file without a code-running key stays high", async () => {
    const ctx = await realContext();
    const p = await writeFile.preview({ path: "/etc/hg-example/app.conf", content: "a = 1\n" }, ctx);
    expect([p.risk_level, p.warnings]).toEqual([undefined, undefined]);
    expect(writeRisk("/etc/sysctl.d/10-a.conf", "# kernel.core_pattern = |x\n; kernel.modprobe = /x\nnet.ipv4.ip_forward = 1\n").risk).toBe("high");
    expect(writeRisk("/etc/sysctl.d/10-a.conf", "-kernel/modprobe = /tmp/x\n").risk).toBe("critical");
    expect(sysctlKeysOf(" net/ipv4/ip_forward=1\n-fs.suid_dumpable = 2\nnot a line\n")).toEqual(["net.ipv4.ip_forward", "fs.suid_dumpable"]);
    expect(writeRisk("/etc/cron.d", "").risk).toBeNull(); // the directory itself is not a file cron reads
    expect(writeRisk("/etc/cron.daily/sub/x", "").risk).toBeNull(); // run-parts reads one level only
  });

  it("every table entry names its source and effect, and ids are unique", () => {
    expect(new Set(SENSITIVE_WRITES.map((e) => e.id)).size).toBe(SENSITIVE_WRITES.length);
    for (const e of SENSITIVE_WRITES) expect([e.source.length > 3, e.effect.length > 10, ["high", "critical"].includes(e.risk)], e.id).toEqual([true, true, true]);
  });
});

// Review (s24): through a directory link the approver's text warned about the resolved path (cron: critical) while the
// step's risk_level, which the model and the approval's typed confirmation go by, stayed the action's high.
describe("WriteFile through a symlinked directory: the resolved target is judged, for the model as for the approver", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "hg-wf-link-"));
    symlinkSync("/etc/cron.d", join(dir, "jobs"));
  });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it("a path whose directory links to /etc/cron.d plans critical with the cron warning, and the model is told where the link resolves", async () => {
    const ctx = await realContext();
    const path = join(dir, "jobs", "hg-x");
    const p = await writeFile.preview({ path, content: "* * * * * root /tmp/x\n" }, ctx);
    expect(p.risk_level).toBe("critical");
    const model = agentPreview(p);
    expect(model.warnings?.some((w) => w.includes("WriteFile/cron: /etc/cron.d/hg-x is read by cron"))).toBe(true);
    expect(model.text).toContain(`${join(dir, "jobs")} resolves to /etc/cron.d`);
    expect(p.text).toContain("!! (through the resolved directory /etc/cron.d) WriteFile/cron");
  });

  it("a link to an ordinary directory changes nothing: the action's own risk, no warning", async () => {
    const ctx = await realContext();
    symlinkSync(dir, join(dir, "self"));
    const p = await writeFile.preview({ path: join(dir, "self", "app.conf"), content: "a = 1\n" }, ctx);
    expect([p.risk_level, p.warnings]).toEqual([undefined, undefined]);
  });
});

describe("errors give the real reason (issue 24 trial, finding 4)", () => {
  it("/etc/ld.so.preload is refused as the dynamic linker's preload list, not as an account database", async () => {
    const ctx = await realContext();
    const err = await writeFile.preview({ path: "/etc/ld.so.preload", content: "/tmp/x.so\n" }, ctx).then(() => null, (e: unknown) => e as Error & { code: string });
    expect(err?.code).toBe("forbidden_path");
    expect(err?.message).toMatch(/lists libraries the dynamic linker loads into every program/);
    expect(err?.message).not.toMatch(/account/);
    const shadow = await writeFile.preview({ path: "/etc/shadow", content: "x" }, ctx).then(() => null, (e: unknown) => e as Error);
    expect(shadow?.message).toMatch(/is an account database/);
  });

  it("vm.drop_caches (write-only, mode 0200) is refused as write-only, not as a lack of privilege", async () => {
    const ctx = await realContext();
    const err = await setSysctl.preview(setSysctl.params.parse({ key: "vm.drop_caches", value: "3" }), ctx).then(() => null, (e: unknown) => e as Error & { code: string; hint?: string });
    expect(err?.code).toBe("invalid_params");
    expect(err?.message).toMatch(/vm\.drop_caches is write-only/);
    expect(err?.message).not.toMatch(/privilege/);
  });

  it("SetSysctl's refusal of a code-running key does not point to WriteFile or RunCommand as the way around it", async () => {
    const ctx = await realContext();
    const err = await setSysctl.preview(setSysctl.params.parse({ key: "kernel.core_pattern", value: "|/tmp/x" }), ctx).then(() => null, (e: unknown) => e as Error & { hint?: string });
    expect(err?.message).toMatch(/refuses kernel.core_pattern/);
    expect(`${err?.message} ${err?.hint}`).not.toMatch(/WriteFile|RunCommand/);
    expect(await errorCode(() => setSysctl.preview(setSysctl.params.parse({ key: "kernel.modprobe", value: "/tmp/x" }), ctx))).toBe("invalid_params");
  });
});

describe("plan records the raised risk on the transaction (a real daemon, mock systemd)", () => {
  let d: DaemonProcess;
  beforeAll(async () => { d = await startDaemon("backend:\n  type: mock\n"); }, 60_000);
  afterAll(async () => { await d?.stop(); });

  it("WriteFile into /etc/cron.d plans critical with the cron warning; an ordinary path stays the action's high", async () => {
    const cron = await plan(d, "WriteFile", { path: "/etc/cron.d/hg-trial", content: "* * * * * root /tmp/x\n" });
    expect(cron.ok).toBe(true);
    const step = (cron.ok ? cron.value.steps[0] : null) as unknown as { risk_level: string; preview: { warnings?: string[] } };
    expect(step.risk_level).toBe("critical");
    expect(step.preview.warnings?.[0]).toMatch(/^WriteFile\/cron: /);
    // Through a directory link to /etc/cron.d: the step the model gets back is critical too (review s24).
    const linkDir = mkdtempSync(join(tmpdir(), "hg-wf-plan-"));
    try {
      symlinkSync("/etc/cron.d", join(linkDir, "jobs"));
      const viaLink = await plan(d, "WriteFile", { path: join(linkDir, "jobs", "hg-trial"), content: "* * * * * root /tmp/x\n" });
      expect(viaLink.ok ? (viaLink.value.steps[0] as unknown as { risk_level: string }).risk_level : viaLink.error.message).toBe("critical");
    } finally {
      rmSync(linkDir, { recursive: true, force: true });
    }
    const plain = await plan(d, "WriteFile", { path: "/etc/hg-trial/app.conf", content: "a = 1\n" });
    expect((plain.ok ? plain.value.steps[0] : null) as unknown as { risk_level: string }).toMatchObject({ risk_level: "high" });
  });
});
