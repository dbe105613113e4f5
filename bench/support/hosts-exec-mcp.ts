import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { HOSTGATE_BIN } from "../../test/helpers/hostgate.ts";
import type { NetnsLab } from "../../test/peers/netns-sshd.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * exec_on_host `true` through `hostgate mcp` over stdio (embedded daemon, its own state dir), with a static
 * inventory of the lab hosts, the lab's known_hosts and key, and a policy allowing low-risk commands.
 * Returns cold (first call: dial) and warm p50/p90 in ms.
 */
export async function mcpWarmExec(o: { lab: NetnsLab; cfgDir: string; policyDir: string }): Promise<Record<string, unknown>> {
  const state = join(o.cfgDir, "state");
  mkdirSync(state, { recursive: true });
  const cfg = join(o.cfgDir, "config.yaml");
  writeFileSync(cfg, [
    "backend:", "  type: mock",
    "tools:", "  enable: [exec_on_host]",
    `state:`, `  dir: ${state}`,
    "inventory:", "  providers:", "    - kind: static", "      name: lab", "      hosts:",
    ...o.lab.hosts.map((h) => `        - { name: ${h.name}, address: ${h.ip}, user: root, tags: [lab] }`),
    "exec:", `  known_hosts: [${o.lab.knownHosts}]`, `  identity_files: [${o.lab.clientKey}]`, "  use_agent: false",
    "policy:", `  dir: ${o.policyDir}`, "",
  ].join("\n"));
  const env = { ...process.env, HOSTGATE_CONFIG: cfg, HOSTGATE_RUNTIME_DIR: join(o.cfgDir, "run") } as Record<string, string>;
  delete env.HOSTGATE_SOCKET;
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "--config", cfg], env, stderr: "inherit" }));
  try {
    const call = async (): Promise<number> => {
      const t = performance.now();
      const r = await client.callTool({ name: "exec_on_host", arguments: { host: o.lab.hosts[0]!.name, command: "true" } });
      const ms = performance.now() - t;
      if (r.isError) throw new Error(`exec_on_host failed: ${JSON.stringify(r.content)}`);
      return ms;
    };
    const cold = await call();
    for (let i = 0; i < 20; i++) await call();
    const warm: number[] = [];
    for (let i = 0; i < 200; i++) warm.push(await call());
    return { cold_first_call_ms: r2(cold), n: warm.length, p50_ms: r2(pct(warm, 0.5)), p90_ms: r2(pct(warm, 0.9)), min_ms: r2(Math.min(...warm)) };
  } finally {
    await client.close();
  }
}
