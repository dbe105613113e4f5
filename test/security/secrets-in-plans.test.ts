import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";

/**
 * Red team, route "put a secret into the signed, permanent audit chain through a plan": a WriteFile whose
 * content holds an AWS key, a GitHub token and a URL password (issue 12), planned through the daemon's use
 * case on real SQLite stores. Neither the preview the model sees nor any byte of the database files may hold them.
 */
const SECRETS = ["AKIAIOSFODNN7EXAMPLE", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", "Pa@ss0rdXy12"];
let d: ComposedDaemon;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "hg-trust-plan-"));
  process.env.HOSTGATE_STATE_DIR = join(root, "state");
  process.env.HOSTGATE_RUNTIME_DIR = join(root, "run");
  process.env.HOSTGATE_CONFIG_DIR = join(root, "config");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  delete process.env.HOSTGATE_RUNTIME_DIR;
  delete process.env.HOSTGATE_CONFIG_DIR;
});
afterAll(async () => {
  await d.close();
  rmSync(root, { recursive: true, force: true });
});

describe("route: secrets in a WriteFile plan", () => {
  it("reach neither the plan's preview nor the audit database files (the params echo the model's own input)", async () => {
    const content = `AWS_ACCESS_KEY_ID=${SECRETS[0]}\nGITHUB=${SECRETS[1]}\nDATABASE_URL=postgres://app:${SECRETS[2]}@db.example.com/app\n`;
    const p = await d.service.agent("red-team").call("plan", { steps: [{ action: "WriteFile", params: { path: join(root, "app.env"), content } }] });
    expect(p.ok).toBe(true);
    const answer = JSON.stringify(p.ok ? p.value.steps.map((s) => s.preview) : p);
    d.openStores().audit.checkpointNow();
    await d.close();
    const bytes = readdirSync(join(root, "state")).filter((f) => f.startsWith("audit.db")).map((f) => readFileSync(join(root, "state", f)).toString("latin1")).join("");
    expect(bytes).toContain("plan.created");
    for (const s of SECRETS) {
      expect(answer).not.toContain(s);
      expect(bytes).not.toContain(s);
    }
    d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" }, state: { dir: join(root, "state") } }), { mode: "embedded", announce: () => undefined });
  });
});
