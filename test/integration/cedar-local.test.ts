/**
 * A configured Cedar policy applies to every path that judges a command (reviewer report: plan_command without a
 * target used the risk-only engine even with policy.dir set). A composed daemon (real cedar-wasm, real policy
 * files, mock systemd), called through its in-process client as the MCP front calls it.
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";

const work = mkdtempSync(join(tmpdir(), `hg-cedar-local-polish-${process.pid}-`));
const open: ComposedDaemon[] = [];

async function daemon(policyDir: string | undefined): Promise<ComposedDaemon> {
  process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
  const d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" }, ...(policyDir ? { policy: { dir: policyDir } } : {}) }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  open.push(d);
  return d;
}
afterAll(async () => { for (const d of open) await d.close(); });

function policies(extra: string): string {
  const dir = mkdtempSync(join(work, "policies-"));
  cpSync("examples/policies", dir, { recursive: true });
  writeFileSync(join(dir, "90-test.cedar"), extra);
  return dir;
}

const FORBID_LS = `@id("no-ls-here")\n@reason("ls is not run from an AI client on this host")\nforbid (principal, action == Hostgate::Action::"exec", resource)\nwhen { context.programs.contains("ls") };\n`;

describe("plan_command without a target answers to the configured Cedar policy", () => {
  it("a Cedar forbid on a low-risk command is honoured on the local host; a permitted one is allowed by cedar", async () => {
    const d = await daemon(policies(FORBID_LS));
    const agent = d.service.agent("cedar-test");
    const ls = await agent.call("plan_command", { command: "ls -la /tmp" });
    if (!ls.ok) throw new Error(ls.error.message);
    expect(ls.value).toMatchObject({ decision: "deny", risk_level: "low", target: null, policy: { source: "cedar" } });
    expect(ls.value.policy.note).toContain("ls is not run from an AI client on this host");
    const df = await agent.call("plan_command", { command: "df -h" });
    expect(df.ok && df.value).toMatchObject({ decision: "allow", policy: { source: "cedar" } });
  });

  it("without a policy directory the risk engine alone decides, as before", async () => {
    const d = await daemon(undefined);
    const ls = await d.service.agent("t").call("plan_command", { command: "ls -la /tmp" });
    expect(ls.ok && ls.value).toMatchObject({ decision: "allow", policy: { source: "risk_engine_only" } });
  });

  it("a policy directory that does not load refuses the call (fail closed), never falls back to risk-only", async () => {
    const dir = join(work, "broken");
    mkdirSync(dir);
    writeFileSync(join(dir, "bad.cedar"), "permit (principal, action, resource) when { this is not cedar };\n");
    const d = await daemon(dir);
    const r = await d.service.agent("t").call("plan_command", { command: "ls -la /tmp" });
    expect(r.ok).toBe(false);
  });
});
