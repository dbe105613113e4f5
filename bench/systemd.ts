/**
 * systemd adapter benchmark against a real PID-1 systemd booted in systemd-nspawn (test/peers/nspawn.ts).
 * Prints ONE JSON object: p50/p99 latency in ms of read_unit (UnitManager.getUnit) and list_units
 * (listUnits over the supported types) through the D-Bus adapter, side by side with spawning
 * `systemctl show` / `systemctl list-units` inside the container via nsenter for the same data, plus the
 * unit count and payload bytes per unit. Usage: npx tsx bench/systemd.ts [iterations=1000]
 */
import { spawnSync } from "node:child_process";
import { DbusUnitManager } from "../src/adapters/systemd-dbus.ts";
import { createUnitManagerSet } from "../src/adapters/unit-manager-set.ts";
import { readUnitResource } from "../src/app/unit-resources.ts";
import { ListUnits } from "../src/core/catalogue/actions/list-units.ts";
import type { ActionContext } from "../src/core/catalogue/action.ts";
import { SUPPORTED_UNIT_TYPES } from "../src/core/systemd/unit-name.ts";
import { formatUnitUri } from "../src/core/systemd/uri.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";
import { nspawnPrereqs, startNspawn } from "../test/peers/nspawn.ts";

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(3));
}

async function time(n: number, fn: (i: number) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

const iterations = Number(process.argv[2] ?? 1000);
const missing = nspawnPrereqs();
if (missing !== null) {
  console.error(`bench/systemd: cannot boot the nspawn peer: ${missing}`);
  process.exit(2);
}
const bootStart = performance.now();
const peer = await startNspawn();
const bootMs = performance.now() - bootStart;
const m = new DbusUnitManager({ busAddress: peer.busAddress, fileRoot: peer.fileRoot });
try {
  const types = [...SUPPORTED_UNIT_TYPES];
  const connectStart = performance.now();
  const listed = await m.listUnits({ types });
  const firstCallMs = performance.now() - connectStart;
  const loaded = listed.filter((u) => u.load_state === "loaded").map((u) => u.unit);
  const services = loaded.filter((u) => u.endsWith(".service"));
  // warm-up: JIT, and let the freshly booted container settle (every unit read twice, 10 lists)
  for (let i = 0; i < loaded.length * 2; i++) await m.getUnit(loaded[i % loaded.length]!);
  for (let i = 0; i < 10; i++) await m.listUnits({ types });

  const readUnit = await time(iterations, (i) => m.getUnit(loaded[i % loaded.length]!));
  const readService = await time(iterations, (i) => m.getUnit(services[i % services.length]!));
  const set = createUnitManagerSet(m, new Map());
  const readResource = await time(iterations, (i) => readUnitResource(formatUnitUri({ scope: "system" }, loaded[i % loaded.length]!), set));
  const listUnits = await time(Math.max(20, iterations / 4), () => m.listUnits({ types }));
  const ctx = { units: set } as unknown as ActionContext;
  const listTool = await time(Math.max(20, iterations / 4), () => ListUnits.run(ListUnits.params.parse({ limit: 1000 }), ctx));

  const nsenter = (argv: string[]) => spawnSync("nsenter", ["-t", String(peer.leaderPid), "-a", ...argv], { encoding: "utf8" });
  const props = "Description,LoadState,ActiveState,SubState,UnitFileState,MainPID,StateChangeTimestamp";
  const showN = Math.min(iterations, 50);
  const systemctlShow = await time(showN, (i) => nsenter(["systemctl", "show", "-p", props, "--", loaded[i % loaded.length]!]));
  const systemctlList = await time(Math.min(iterations, 30), () => nsenter(["systemctl", "list-units", "--all", "--no-legend", "--plain", `--type=${types.join(",")}`]));
  const systemctlCount = nsenter(["systemctl", "list-units", "--all", "--no-legend", "--plain", `--type=${types.join(",")}`]).stdout.trim().split("\n").length;

  // The same reads over MCP: the SDK client ↔ `hostgate mcp` (stdio) ↔ embedded daemon ↔ this container's bus.
  const mcpDir = mkdtempSync(join(tmpdir(), "hg-bench-mcp-"));
  writeFileSync(join(mcpDir, "config.yaml"), `backend:\n  type: dbus\n  bus_address: "${peer.busAddress}"\n  file_root: "${peer.fileRoot}"\n`);
  const mcp = new Client({ name: "bench", version: "1" });
  await mcp.connect(new StdioClientTransport({ command: HOSTGATE_BIN, args: ["mcp", "--config", join(mcpDir, "config.yaml")], env: { ...process.env, XDG_RUNTIME_DIR: join(mcpDir, "run"), XDG_STATE_HOME: join(mcpDir, "state") }, stderr: "ignore" }));
  const uris = loaded.map((u) => formatUnitUri({ scope: "system" }, u));
  for (let i = 0; i < 100; i++) await mcp.callTool({ name: "read_unit", arguments: { uri: uris[i % uris.length]! } });
  const mcpReadUnit = await time(iterations, (i) => mcp.callTool({ name: "read_unit", arguments: { uri: uris[i % uris.length]! } }));
  const mcpResourceRead = await time(iterations, (i) => mcp.readResource({ uri: uris[i % uris.length]! }));
  const mcpListUnits = await time(Math.max(20, iterations / 4), () => mcp.callTool({ name: "list_units", arguments: { limit: 500 } }));
  await mcp.close();
  rmSync(mcpDir, { recursive: true, force: true });

  const stateBytes: number[] = [];
  for (const u of loaded) stateBytes.push(Buffer.byteLength(JSON.stringify(await m.getUnit(u))));
  const listOut = await ListUnits.run(ListUnits.params.parse({ limit: 1000 }), ctx);
  const showBytes = Buffer.byteLength(nsenter(["systemctl", "show", "--", services[0]!]).stdout);

  console.log(JSON.stringify({
    peer: "systemd-nspawn, Debian 12 systemd 252, PID-1",
    iterations,
    boot_ms: Math.round(bootMs),
    first_call_ms_incl_connect: Number(firstCallMs.toFixed(2)),
    units_listed: listed.length,
    units_systemctl_list_units: systemctlCount,
    read_unit_ms: { p50: pct(readUnit, 50), p99: pct(readUnit, 99) },
    read_unit_service_ms: { p50: pct(readService, 50), p99: pct(readService, 99) },
    read_unit_resource_ms: { p50: pct(readResource, 50), p99: pct(readResource, 99) },
    list_units_ms: { p50: pct(listUnits, 50), p99: pct(listUnits, 99) },
    list_units_tool_ms: { p50: pct(listTool, 50), p99: pct(listTool, 99) },
    mcp_read_unit_ms: { p50: pct(mcpReadUnit, 50), p99: pct(mcpReadUnit, 99) },
    mcp_resources_read_ms: { p50: pct(mcpResourceRead, 50), p99: pct(mcpResourceRead, 99) },
    mcp_list_units_ms: { p50: pct(mcpListUnits, 50), p99: pct(mcpListUnits, 99) },
    systemctl_show_spawn_ms: { p50: pct(systemctlShow, 50), p99: pct(systemctlShow, 99) },
    systemctl_list_units_spawn_ms: { p50: pct(systemctlList, 50), p99: pct(systemctlList, 99) },
    payload_bytes_per_unit: {
      read_unit_mean: Math.round(stateBytes.reduce((a, b) => a + b, 0) / stateBytes.length),
      read_unit_max: Math.max(...stateBytes),
      list_units_row_mean: Math.round(Buffer.byteLength(JSON.stringify(listOut.units)) / listOut.units.length),
      systemctl_show_all_properties_one_service: showBytes,
    },
    targets: { read_unit_p50_ms: 5, list_units_150_ms: 30 },
  }));
} finally {
  await m.close();
  await peer.stop();
}
