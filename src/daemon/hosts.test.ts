import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { composeHosts } from "./hosts.ts";

const state = mkdtempSync(join(tmpdir(), "hg-hosts-compose-"));

describe("composeHosts", () => {
  it("defaults: no inventory configured → the user's ~/.ssh/config and known_hosts; no policy → exec refused (said plainly)", async () => {
    const h = composeHosts({}, { mode: "embedded", stateDir: state, env: {} });
    const b = h.inventory.listBackends();
    expect(b.defaulted).toBe(true);
    expect(b.backends.map((x) => x.kind)).toEqual(["ssh_config", "known_hosts"]);
    expect(h.policy).toBeNull();
    expect((await h.doctor()).find((f) => f.check === "policy")).toMatchObject({ level: "ok", message: expect.stringContaining("refuses every command") as unknown });
    h.close();
  });

  it("doctor is loud about exec.allow_unverified, risk.disabled and trust on first use", async () => {
    const h = composeHosts({ exec: { allow_unverified: true, host_keys: "tofu" }, risk: { disabled: true } }, { mode: "embedded", stateDir: state, env: {} });
    const warn = (await h.doctor()).filter((f) => f.level === "warn").map((f) => f.message).join(" | ");
    expect(warn).toContain("NO POLICY and exec.allow_unverified is ON");
    expect(warn).toContain("RISK ENGINE BYPASSED");
    expect(warn).toContain("trust on first use");
    // The daemon's own host: the sandbox unapproved commands run in, probed for real (bubblewrap here when installed).
    const sb = (await h.doctor()).find((f) => f.check === "sandbox")!;
    expect(sb.message).toMatch(/^local: (bubblewrap|systemd-run|no sandbox)/);
    expect(sb.level).toBe(sb.message.includes("no sandbox") ? "warn" : "ok");
    h.close();
  });

  it("a policy directory that does not load fails composition (the hosts calls then fail closed)", () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-hosts-pol-"));
    writeFileSync(join(dir, "bad.cedar"), "permit (principal, action");
    expect(() => composeHosts({ policy: { dir } }, { mode: "embedded", stateDir: state, env: {} })).toThrow(/bad\.cedar/);
  });

  it("SIGHUP reload keeps the old set on a broken file and says so; the system daemon uses its own key and known_hosts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-hosts-pol-"));
    writeFileSync(join(dir, "ok.cedar"), "permit (principal, action, resource) when { context.risk_rank == 0 };");
    const h = composeHosts({ policy: { dir } }, { mode: "system", stateDir: state, env: { SSH_AUTH_SOCK: "/tmp/agent" } });
    writeFileSync(join(dir, "zz.cedar"), "forbid (");
    expect(h.reloadPolicy()).toMatch(/FAILED, keeping the old set/);
    expect((await h.doctor()).find((f) => f.check === "policy")?.level).toBe("warn");
    expect((await h.doctor()).find((f) => f.check === "ssh")?.message).toContain(join(state, "ssh", "known_hosts"));
    expect((await h.doctor()).find((f) => f.check === "ssh")?.message).not.toContain("ssh-agent");
    h.close();
  });

  it("strict config: unknown keys and per-kind mistakes are errors", () => {
    expect(() => composeHosts({ exec: { sudo_password: "x" } as never }, { mode: "embedded", stateDir: state })).toThrow();
    expect(() => composeHosts({ inventory: { providers: [{ kind: "static", hosts: [], socket: "/x" }] } as never }, { mode: "embedded", stateDir: state })).toThrow();
    expect(() => composeHosts({ inventory: { providers: [{ kind: "static", hosts: [] }, { kind: "static", hosts: [] }] } }, { mode: "embedded", stateDir: state })).toThrow(/unique/);
  });
});
