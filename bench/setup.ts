/**
 * The minute from install to a working client, measured in its parts that run here: `hostgate --version`,
 * `hostgate setup` writing all eight clients' entries, and an entry as setup wrote it (absolute node +
 * launcher, no PATH) started the way a client starts it until it answers tools/list (each start brings up
 * the embedded daemon). Prints one JSON object (milliseconds, wall clock; this machine is shared, so compare
 * medians from the same run). The npm install itself is measured by test/setup/package.test.ts's run time.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { probeStdio } from "../src/adapters/mcp-probe.ts";

const BIN = resolve(import.meta.dirname, "../bin/hostgate.js");
const RUNS = 7;
const env: NodeJS.ProcessEnv = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS; // adds 50–80 ms to every Node start on these machines (TESTING-PEERS.md)

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function timed(fn: () => void): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const dir = mkdtempSync(join(tmpdir(), "hg-bench-setup-"));
try {
  const version = Array.from({ length: RUNS }, () => timed(() => spawnSync(process.execPath, [BIN, "--version"], { env })));
  const setup: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const home = join(dir, `home-${i}`);
    mkdirSync(join(home, "project"), { recursive: true });
    const e = { ...env, HOME: home, XDG_CONFIG_HOME: "", CODEX_HOME: "", XDG_RUNTIME_DIR: join(home, "run"), XDG_STATE_HOME: join(home, "state") };
    setup.push(timed(() => {
      const r = spawnSync(process.execPath, [BIN, "setup", "--yes", "--claude", "--claude-desktop", "--cursor", "--codex", "--vscode", "--lmstudio", "--opencode", "--gemini"], { env: e, cwd: join(home, "project") });
      if (r.status !== 0) throw new Error(`setup failed: ${r.stderr.toString()}`);
    }));
  }
  const home = join(dir, "home-0");
  const entry = (JSON.parse(readFileSync(join(home, ".cursor", "mcp.json"), "utf8")) as { mcpServers: { hostgate: { command: string; args: string[]; env?: Record<string, string> } } }).mcpServers.hostgate;
  const toolsList: number[] = [];
  let tools = 0;
  for (let i = 0; i < RUNS; i++) {
    const r = await probeStdio(entry.command, entry.args, { HOME: home, XDG_RUNTIME_DIR: join(home, "run"), ...entry.env });
    if (!r.ok) throw new Error(`entry did not answer: ${r.reason}`);
    toolsList.push(r.ms);
    tools = r.tools;
  }
  console.log(JSON.stringify({
    runs: RUNS,
    version_ms_p50: Math.round(median(version)),
    setup_eight_clients_ms_p50: Math.round(median(setup)),
    entry_spawn_to_tools_list_ms_p50: Math.round(median(toolsList)),
    entry_spawn_to_tools_list_ms_max: Math.round(Math.max(...toolsList)),
    tools,
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
