import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { policyService } from "./policy.ts";

const dirWith = (files: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), "hg-policy-svc-"));
  for (const [n, text] of Object.entries(files)) writeFileSync(join(dir, n), text);
  return dir;
};

describe("policyService", () => {
  it("no policy.dir: no engine, the risk-only default for command lines, doctor says exec is refused", async () => {
    const p = policyService(undefined, { allowUnverified: false });
    expect(p.configured).toBe(false);
    expect(await p.engine()).toBeNull();
    expect((await p.forCommands()).configured).toBe(false);
    expect(await p.doctor!()).toEqual([{ level: "ok", check: "policy", message: expect.stringContaining("refuses every command") as unknown }]);
    expect(await p.reload!()).toMatch(/nothing to reload/);
  });

  it("doctor is loud about exec.allow_unverified with and without a policy", async () => {
    expect((await policyService(undefined, { allowUnverified: true }).doctor!())[0]).toMatchObject({ level: "warn", message: expect.stringContaining("NO POLICY and exec.allow_unverified is ON") as unknown });
    const dir = dirWith({ "ok.cedar": "permit (principal, action, resource) when { context.risk_rank == 0 };" });
    expect((await policyService({ dir }, { allowUnverified: true }).doctor!()).find((f) => f.check === "exec.allow_unverified")?.level).toBe("warn");
  });

  it("built on first use: a directory that does not load fails each use with the file named, and a fixed file is picked up next time", async () => {
    const dir = dirWith({ "bad.cedar": "permit (principal, action" });
    const p = policyService({ dir }, { allowUnverified: false });
    expect(await p.reload!()).toMatch(/not loaded yet/);
    await expect(p.engine()).rejects.toThrow(/bad\.cedar/);
    await expect(p.forCommands()).rejects.toThrow(/bad\.cedar/);
    writeFileSync(join(dir, "bad.cedar"), "permit (principal, action, resource) when { context.risk_rank == 0 };");
    expect((await p.engine())?.status().policies).toBe(1);
  });

  it("SIGHUP reload keeps the old set on a broken file and says so; doctor warns", async () => {
    const dir = dirWith({ "ok.cedar": "permit (principal, action, resource) when { context.risk_rank == 0 };" });
    const p = policyService({ dir }, { allowUnverified: false });
    const engine = await p.engine();
    writeFileSync(join(dir, "zz.cedar"), "forbid (");
    expect(await p.reload!()).toMatch(/FAILED, keeping the old set/);
    expect(await p.engine()).toBe(engine);
    expect((await p.doctor!()).find((f) => f.check === "policy")?.level).toBe("warn");
  });
});
