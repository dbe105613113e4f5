/**
 * A front started with `--config` runs its embedded daemon where that file says (state.dir, daemon.agent_socket,
 * daemon.admin_socket): the terminal commands that talk to that daemon must be pointable at the same file, or the
 * plan the model just made cannot be found (issue 14: approve and the fronts find the same daemon by one rule).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runHostgate } from "../helpers/hostgate.ts";
import { RawStdio } from "../helpers/raw-stdio.ts";

let started: RawStdio[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(started.map((r) => r.stop()));
  started = [];
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("a front started with --config", () => {
  it("is found by `hostgate pending -c` (and `pending` without it says which daemon it asked)", async () => {
    const dir = mkdtempSync(join(tmpdir(), `hg-front-config-${process.pid}-`));
    dirs.push(dir);
    const config = join(dir, "config.yaml");
    writeFileSync(config, `state:\n  dir: ${join(dir, "state")}\ndaemon:\n  agent_socket: ${join(dir, "sockets", "agent.sock")}\n  admin_socket: ${join(dir, "sockets", "admin.sock")}\n`);
    // The default runtime directory exists but holds no daemon: only the config's sockets do.
    const env = { HOSTGATE_STATE_DIR: "", HOSTGATE_RUNTIME_DIR: join(dir, "run"), HOSTGATE_SOCKET: "", HOSTGATE_ADMIN_SOCKET: "", HOSTGATE_CONFIG: "" };
    const raw = new RawStdio(["--config", config], env);
    started.push(raw);
    await raw.initialize();
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: "plan", method: "tools/call", params: { name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: join(dir, "motd"), content: "hello\n" } }] } } }));
    const planned = await raw.waitFor((m) => m.id === "plan", 30_000);
    const id = ((planned.result as { structuredContent: { steps: { transaction_id: string }[] } }).structuredContent.steps[0]!).transaction_id;

    const withConfig = await runHostgate(["pending", "--config", config, "--json"], { env });
    expect(withConfig.code, withConfig.stderr).toBe(0);
    expect((JSON.parse(withConfig.stdout) as { plans: { steps: { transaction_id: string }[] }[] }).plans.flatMap((p) => p.steps.map((t) => t.transaction_id))).toEqual([id]);
    expect((await runHostgate(["pending", "-c", config, "--json"], { env })).code).toBe(0);

    // Without it, no daemon answers at the default socket: pending lists this user's state directory (the plan is
    // not there: it lives in the configured daemon's) and says which socket it asked and how to name the other.
    const without = await runHostgate(["pending", "--json"], { env });
    expect(without.code, without.stderr).toBe(0);
    expect((JSON.parse(without.stdout) as { plans: unknown[] }).plans).toEqual([]);
    expect(without.stderr).toContain(join(dir, "run", "agent.sock"));
    expect(without.stderr).toContain("--config");
  });
});
