/**
 * Skills benchmark (issue 11). Prints one JSON object:
 * - search_us: p50/p99 of skills_search through MCP (stdio, real binary, embedded daemon) over 2,000 generated skills;
 * - first_search_ms: the first skills_search (scan of the roots + index build on the request path);
 * - index_build_ms: MiniSearch build time for the 2,000 skills as the daemon measured it (skills_diagnose);
 * - scan_ms: one fresh scan of the 2,000 skill folders (skills_diagnose, which rescans);
 * - install_1mib_ms: skills_install_plan + skills_install_apply of a 1 MiB skill from a local (path) registry;
 * - cold_start_ms: spawn → tools/list of `hostgate mcp` with the skills toolset on and off (median of N),
 *   to show the skills code adds nothing at start.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";
import { writeRegistry } from "../test/helpers/skill-registry.ts";

const SKILLS = Number(process.env.BENCH_SKILLS ?? 2000);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 7);

const dir = mkdtempSync(join(tmpdir(), `bench-skills-${process.pid}-`));
const root = join(dir, "root");
mkdirSync(root);
mkdirSync(join(dir, "run"), { mode: 0o700 });
const WORDS = "disk full inode journal log rotate service restart flap crash memory oom swap pressure certificate expiry tls renew boot unit fstab mount network dns latency packet firewall port socket cpu load thread kernel module driver backup restore snapshot database replica lag query index cache queue worker cron timer container image registry volume permission owner selinux apparmor user group ssh key password audit ntp clock drift".split(" ");
let seed = 42;
const rnd = (): number => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed / 2 ** 31; };
const pick = (n: number): string => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
for (let i = 0; i < SKILLS; i++) {
  const name = `gen-${pick(1)}-${i}`;
  mkdirSync(join(root, name));
  writeFileSync(join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: Runbook ${i}: ${pick(14)}.\n---\n# ${name}\n\n${Array.from({ length: 12 }, () => `- ${pick(12)}`).join("\n")}\n`);
}
// A 1 MiB skill in a registry served from a path.
const big: Record<string, string | Uint8Array> = { "SKILL.md": "---\nname: big-skill\ndescription: A large skill for the install benchmark.\n---\n# big\n", "references/data.txt": "x".repeat(1024 * 1024 - 200) };
writeRegistry(join(dir, "registry"), [{ name: "big-skill", version: "1.0.0", files: big }]);
const config = join(dir, "config.yaml");
writeFileSync(config, `skills:\n  roots: [${JSON.stringify(root)}]\n  user_roots: false\n  registry:\n    url: ${JSON.stringify(join(dir, "registry"))}\n`);
const env = { ...process.env, HOME: dir, XDG_STATE_HOME: join(dir, "state"), XDG_RUNTIME_DIR: join(dir, "run"), HOSTGATE_SOCKET: "" } as Record<string, string>;

const q = (s: number[], p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "-c", config, "--allow-install"], env, cwd: dir, stderr: "ignore" });
const client = new Client({ name: "bench", version: "1" });
await client.connect(transport);
type R = { structuredContent?: { ok: boolean; data?: Record<string, unknown>; error?: unknown }; _meta?: Record<string, unknown> };
const call = async (name: string, args: Record<string, unknown>): Promise<R> => (await client.callTool({ name, arguments: args })) as unknown as R;

let t0 = performance.now();
const first = await call("skills_search", { query: "disk full inode" });
const firstMs = performance.now() - t0;
if (!first.structuredContent?.ok) throw new Error(JSON.stringify(first));
const diag = (await call("skills_diagnose", {})).structuredContent!.data!;
t0 = performance.now();
await call("skills_diagnose", {});
const scanMs = performance.now() - t0;
const lat: number[] = [];
for (let i = 0; i < CALLS; i++) {
  const query = pick(1 + (i % 4));
  const s = performance.now();
  const r = await call("skills_search", { query, limit: 10 });
  lat.push((performance.now() - s) * 1000);
  if (!r.structuredContent?.ok) throw new Error(JSON.stringify(r));
}
lat.sort((a, b) => a - b);
t0 = performance.now();
const plan = await call("skills_install_plan", { ref: "big-skill@1.0.0", scope: "user", runtimes: ["claude"] });
const token = (plan._meta?.["dev.hostgate/confirm"] as { token: string } | undefined)?.token;
const applied = await call("skills_install_apply", { ref: "big-skill@1.0.0", scope: "user", runtimes: ["claude"], confirm: token });
const installMs = performance.now() - t0;
if (!applied.structuredContent?.ok) throw new Error(JSON.stringify(applied));
await client.close();

function coldStart(cfg: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [HOSTGATE_BIN, "mcp", "-c", cfg], { env, cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes('"id":2')) { resolve(performance.now() - started); child.kill("SIGKILL"); }
    });
    child.on("error", reject);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
  });
}
const off = join(dir, "off.yaml");
writeFileSync(off, "tools:\n  groups:\n    skills: false\n");
const cold: Record<string, number> = {};
for (const [k, cfg] of [["skills_on", config], ["skills_off", off]] as const) {
  const runs: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) runs.push(await coldStart(cfg));
  runs.sort((a, b) => a - b);
  cold[k] = Math.round(q(runs, 0.5));
}
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({
  skills: SKILLS,
  search_us: { p50: Math.round(q(lat, 0.5)), p99: Math.round(q(lat, 0.99)), calls: CALLS },
  first_search_ms: Math.round(firstMs),
  index_build_ms: diag.index_build_ms,
  scan_ms: Math.round(scanMs),
  install_1mib_ms: Math.round(installMs),
  cold_start_ms: cold,
}));
