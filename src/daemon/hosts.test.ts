import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localConfineHelper } from "../adapters/confine-helper.ts";
import { composeHosts } from "./hosts.ts";

const state = mkdtempSync(join(tmpdir(), "hg-hosts-compose-"));

describe("composeHosts", () => {
  it("defaults: no inventory configured → the user's ~/.ssh/config and known_hosts", () => {
    const h = composeHosts({}, { mode: "embedded", stateDir: state, env: {} });
    const b = h.inventory.listBackends();
    expect(b.defaulted).toBe(true);
    expect(b.backends.map((x) => x.kind)).toEqual(["ssh_config", "known_hosts"]);
    h.close();
  });

  it("doctor is loud about risk.disabled and trust on first use (exec.allow_unverified: the policy service says it)", async () => {
    const h = composeHosts({ exec: { allow_unverified: true, host_keys: "tofu" }, risk: { disabled: true } }, { mode: "embedded", stateDir: state, env: {} });
    const warn = (await h.doctor()).filter((f) => f.level === "warn").map((f) => f.message).join(" | ");
    expect(warn).toContain("RISK ENGINE BYPASSED");
    expect(warn).toContain("trust on first use");
    // The daemon's own host: the sandbox unapproved commands run in, probed for real (the build's
    // hostgate-confine helper as root when the build had a compiler, else bubblewrap here when installed).
    const sb = (await h.doctor()).find((f) => f.check === "sandbox")!;
    expect(sb.message).toMatch(/^local: (hostgate-confine|bubblewrap|systemd-run|no sandbox)/);
    const helper = localConfineHelper();
    if (process.getuid?.() === 0 && "path" in helper) expect(sb.message).toMatch(/^local: hostgate-confine /);
    expect(sb.level).toBe(sb.message.includes("no sandbox") ? "warn" : "ok");
    h.close();
  });

  it("the system daemon uses its own key and known_hosts, never the agent", async () => {
    const h = composeHosts({}, { mode: "system", stateDir: state, env: { SSH_AUTH_SOCK: "/tmp/agent" } });
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
