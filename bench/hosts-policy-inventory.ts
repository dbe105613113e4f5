/**
 * Hosts benchmark, in-process parts (issue 10). Run: `npx tsx bench/hosts-policy-inventory.ts`. Prints ONE
 * JSON object on stdout:
 * - cedar: one policy decision (shipped examples/policies, varied commands/hosts/roles) — wall p50 / p99 / max
 *   and CPU-time p50 / p99 in microseconds (wall p99 on a shared, loaded machine is mostly time descheduled);
 *   target p99 ≤ 1 ms;
 * - search_hosts: the search use case over 5,000 hosts (2,500 static + 2,500 ssh_config aliases) with a warm
 *   cache — p50 / p99 in ms for an unfiltered first page and for a name filter; target p50 ≤ 20 ms.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { loadShellParser } from "../src/adapters/shell-parser.ts";
import { createRiskEngine } from "../src/core/risk/index.ts";
import { CedarPolicyEngine } from "../src/adapters/policy-cedar/cedar-engine.ts";
import { execPolicyRequest } from "../src/core/policy/exec-request.ts";
import { Inventory } from "../src/app/inventory.ts";
import { InventoryCache } from "../src/adapters/inventory/cache.ts";
import { StaticProvider } from "../src/adapters/inventory/static.ts";
import { SshConfigProvider } from "../src/adapters/inventory/ssh-config.ts";
import { ProviderConfigSchema } from "../src/config/hosts.ts";

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

// Cedar
const risk = createRiskEngine(await loadShellParser());
const cedar = CedarPolicyEngine.load(new URL("../examples/policies", import.meta.url).pathname);
const commands = ["uptime", "df -h /", "touch /tmp/x", "systemctl stop nginx", "apt-get remove -y nginx", "journalctl -u ssh -n 50", "cat /etc/os-release"];
const hosts = [["lab", "web"], ["prod"], ["pci"], []].map((tags, i) => ({ name: `h${i}`, primary_ip: `10.0.0.${i}`, provider: "static" as const, backend: "static", tags }));
const requests = commands.flatMap((c) => {
  const a = risk.assess(c, { interpreter: "bash" });
  return hosts.flatMap((h) => ["operator", "observer"].map((role) => execPolicyRequest(a, c, "bash", { role, client: "bench", uid: 1000 }, h)));
});
for (let i = 0; i < 2000; i++) cedar.decide(requests[i % requests.length]!);
const cedarUs: number[] = [];
const cedarCpuUs: number[] = [];
for (let i = 0; i < 20_000; i++) {
  const c = process.cpuUsage();
  const t = performance.now();
  cedar.decide(requests[i % requests.length]!);
  cedarUs.push((performance.now() - t) * 1000);
  const d = process.cpuUsage(c);
  cedarCpuUs.push(d.user + d.system);
}

// search_hosts over 5,000 hosts
const dir = mkdtempSync(join(tmpdir(), "hg-bench-inv-"));
const sshLines: string[] = [];
for (let i = 0; i < 2500; i++) sshLines.push(`Host node-${i}`, `  HostName 10.1.${i >> 8}.${i & 255}`, `  User ops${i % 7}`);
sshLines.push("Host *", "  IdentityFile ~/.ssh/fleet_key");
writeFileSync(join(dir, "ssh_config"), sshLines.join("\n"));
const staticCfg = ProviderConfigSchema.parse({ kind: "static", name: "fleet", hosts: Array.from({ length: 2500 }, (_, i) => ({ name: `vm-${i}`, address: `10.2.${i >> 8}.${i & 255}`, tags: [i % 2 ? "prod" : "lab"] })) });
const sshCfg = ProviderConfigSchema.parse({ kind: "ssh_config", files: [join(dir, "ssh_config")] });
const inv = new Inventory({
  backends: [
    { provider: new StaticProvider(staticCfg as never), timeout_ms: 5000, cache_ttl_s: 3600, cache_dir: undefined },
    { provider: new SshConfigProvider(sshCfg as never, "/root"), timeout_ms: 30_000, cache_ttl_s: 3600, cache_dir: undefined },
  ],
  defaulted: false,
  cache: new InventoryCache(),
});
const tCold = performance.now();
const first = await inv.search({});
const coldMs = performance.now() - tCold;
const timeIt = async (q: object, n: number): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await inv.search(q);
    out.push(performance.now() - t);
  }
  return out;
};
await timeIt({}, 50);
const all = await timeIt({}, 300);
const named = await timeIt({ name: "node-24" }, 300);
const regex = await timeIt({ name_regex: "^vm-1\\d{2}$" }, 300);

console.log(JSON.stringify({
  cedar: { decisions: cedarUs.length, policies: cedar.status().policies, p50_us: r2(pct(cedarUs, 0.5)), p99_us: r2(pct(cedarUs, 0.99)), max_us: r2(Math.max(...cedarUs)), cpu_p50_us: pct(cedarCpuUs, 0.5), cpu_p99_us: pct(cedarCpuUs, 0.99), target_p99_us: 1000, load_avg_1m: r2(loadavg()[0]!) },
  search_hosts: {
    hosts: first.backends.reduce((n, b) => n + b.hosts, 0),
    cold_ms: r2(coldMs),
    warm_first_page_200: { p50_ms: r2(pct(all, 0.5)), p99_ms: r2(pct(all, 0.99)) },
    warm_name_filter: { p50_ms: r2(pct(named, 0.5)), p99_ms: r2(pct(named, 0.99)) },
    warm_regex_filter: { p50_ms: r2(pct(regex, 0.5)), p99_ms: r2(pct(regex, 0.99)) },
    target_p50_ms: 20,
  },
}));
