/**
 * `npm run bench`: runs every bench/*.ts (each prints one JSON object on stdout) one after another and
 * prints one JSON object keyed by benchmark name. A benchmark that fails is reported with its error. Each runs with
 * bench/support/scratch-env.ts imported first (a scratch HOSTGATE_CONFIG_DIR, an embedded daemon), so a benchmark
 * never writes /etc/hostgate or joins a system daemon: run one with `npm run bench -- <name>`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const only = process.argv.slice(2);
const results: Record<string, unknown> = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "run.ts").sort()) {
  const name = file.replace(/\.ts$/, "");
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  const r = spawnSync(process.execPath, ["--import", "tsx", "--import", `${dir}support/scratch-env.ts`, `${dir}${file}`], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "inherit"] });
  const last = r.stdout.trim().split("\n").pop() ?? "";
  try {
    results[name] = JSON.parse(last);
  } catch {
    results[name] = { error: `exit ${r.status}`, output: r.stdout.slice(-2000) };
  }
}
console.log(JSON.stringify(results, null, 2));
