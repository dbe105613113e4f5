/**
 * Issue 22: exec_on_host on a name no inventory lists. The refusal's headline says the host is unknown (in no
 * inventory), not that the command is risky: the real risk engine, the shipped Cedar policies, a real static
 * inventory and a real SQLite audit chain; nothing is dialed (the decision refuses before any connection).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execOnHost, type ExecCaller, type ExecDeps } from "../../src/app/exec-on-host.ts";
import { Inventory } from "../../src/app/inventory.ts";
import { InventoryCache } from "../../src/adapters/inventory/cache.ts";
import { StaticProvider } from "../../src/adapters/inventory/static.ts";
import { SshExecutor } from "../../src/adapters/exec-ssh/ssh-executor.ts";
import { LocalExecutor } from "../../src/adapters/exec-local.ts";
import { Sandboxes } from "../../src/app/sandbox.ts";
import { CedarPolicyEngine } from "../../src/adapters/policy-cedar/cedar-engine.ts";
import type { SqliteAuditStore } from "../../src/adapters/audit-sqlite.ts";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { ProviderConfigSchema } from "../../src/config/hosts.ts";
import { HostgateError } from "../../src/core/errors.ts";
import { testEngine } from "../support/risk-engine.ts";

const operator: ExecCaller = { role: "operator", client: "test-client", uid: 0, actor: "uid:0" };

describe("exec_on_host on a host in no inventory (issue 22)", () => {
  let store: SqliteAuditStore;
  let executor: SshExecutor;
  let deps: ExecDeps;
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "hg-exec-unknown-"));
    const cfg = ProviderConfigSchema.parse({ kind: "static", name: "lab", hosts: [{ name: "web1", address: "192.0.2.10", user: "root", tags: ["lab"] }] });
    const inventory = new Inventory({ backends: [{ provider: new StaticProvider(cfg as never), timeout_ms: 2000, cache_ttl_s: 60, cache_dir: undefined }], defaulted: false, cache: new InventoryCache() });
    executor = new SshExecutor({ known_hosts: [], host_keys: "strict", default_user: "root", default_identity_files: [], connect_timeout_ms: 500 });
    store = openAuditStore(join(dir, "state"), { checkpointIdleMs: 0 });
    const settings = { allow_unverified: false, risk_disabled: false, max_output_bytes: 64 * 1024, fanout_concurrency: 4, max_hosts: 10, max_timeout_sec: 60, max_per_caller: 4, local_hide_dirs: [] };
    deps = { engine: testEngine(), policy: CedarPolicyEngine.load("examples/policies"), inventory, executor, local: new LocalExecutor(), sandboxes: new Sandboxes(), audit: store, settings };
  });
  afterAll(() => {
    executor?.close();
    store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function refusal(input: Record<string, unknown>): Promise<HostgateError> {
    const e = await execOnHost(input, operator, deps).then(() => null, (err: unknown) => err);
    if (!(e instanceof HostgateError)) throw new Error(`expected a HostgateError, got ${String(e)}`);
    return e;
  }

  it("a harmless command on an unknown name: the headline names the unknown host, not the command's risk", async () => {
    const e = await refusal({ host: "no-such-host", command: "uptime" });
    expect(e.code).toBe("refused");
    expect(e.message).toMatch(/^blocked: unknown host no-such-host: in no inventory/);
    expect(e.message).not.toMatch(/risk/i);
    expect(e.hint).toContain("search_hosts");
    expect(e.details).toMatchObject({ unknown_hosts: ["no-such-host"], decision: "deny" });
  });

  it("a fan-out names only the unknown hosts; a refusal of known hosts keeps the policy's reason", async () => {
    const fan = await refusal({ hosts: ["web1", "typo-web2"], command: "uptime" });
    expect(fan.message).toMatch(/^blocked: unknown host typo-web2: in no inventory/);
    expect(fan.details).toMatchObject({ unknown_hosts: ["typo-web2"] });
    // web1 is listed: a critical command there is refused for the command, and no host is called unknown.
    const known = await refusal({ host: "web1", command: "rm -rf /" });
    expect(known.message).not.toContain("unknown host");
    expect(known.message).toContain("critical");
    expect(known.details).not.toHaveProperty("unknown_hosts");
  });
});
