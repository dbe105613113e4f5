import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { nftJson } from "./firewall-nft.ts";

const table = z.object({ family: z.string(), name: z.string(), chains: z.number(), rules: z.number(), sets: z.number() });

type NftObject = Record<string, Record<string, unknown> | undefined>;

/** Per table: how many chains, rules and sets the ruleset holds (keys of libnftables-json(5) objects). */
export function summarizeRuleset(objects: readonly NftObject[]): z.infer<typeof table>[] {
  const tables = new Map<string, z.infer<typeof table>>();
  const key = (o: Record<string, unknown>, name: string): string => `${String(o.family)}\0${name}`;
  for (const o of objects) {
    if (o.table) tables.set(key(o.table, String(o.table.name)), { family: String(o.table.family), name: String(o.table.name), chains: 0, rules: 0, sets: 0 });
  }
  for (const o of objects) {
    for (const [kind, field] of [["chain", "chains"], ["rule", "rules"], ["set", "sets"], ["map", "sets"]] as const) {
      const v = o[kind];
      if (v === undefined) continue;
      const t = tables.get(key(v, String(v.table)));
      if (t) t[field]++;
    }
  }
  return [...tables.values()];
}

/**
 * GetFirewallRuleset: the nftables ruleset as `nft -j list ruleset` prints it (libnftables-json(5)). The kernel
 * offers it only over netlink, so nft answers: on the daemon's own host a kept `nft -j -i` co-process
 * (HostProbe.nftList, issue 24: spawning nft per call cost ≈ 20 ms of the 20 ms budget), elsewhere (SSH hosts) one
 * `nft -j list ruleset` exec per call. Either way nft reads the kernel's ruleset for this call: never a cached
 * answer. Needs CAP_NET_ADMIN.
 */
export default defineReadOnlyAction({
  name: "GetFirewallRuleset",
  title: "Firewall ruleset",
  description: "nftables ruleset as JSON, plus per-table counts. Asks nft (`nft -j list ruleset`): a kept nft process on the daemon's host, one exec per call on SSH hosts.",
  params: z.object({}).strict(),
  output: z.object({ tables: z.array(table), ruleset: z.array(z.record(z.string(), z.unknown())).describe("nft JSON objects, metainfo removed") }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["network"],
  host_derived: true,
  async run(_params, ctx) {
    const limits = { timeoutMs: 10_000, maxOutputBytes: 4 * 1024 * 1024 };
    const r = await nftJson(ctx, ["list", "ruleset"], limits);
    if (!r) throw new HostgateError("unavailable", "nft is not installed on this host (nftables userspace tool).", { hint: "Install the nftables package, or the host may use legacy iptables only." });
    if (r.exit_code !== 0) {
      const reason = r.stderr.trim().split("\n")[0] ?? "";
      const code = /Operation not permitted|Permission denied/i.test(reason) ? "permission_denied" : "backend_error";
      throw new HostgateError(code, `nft -j list ruleset failed (exit ${r.exit_code ?? r.signal}): ${reason}`, { hint: code === "permission_denied" ? "Reading the ruleset needs CAP_NET_ADMIN: the daemon must run as root." : "See the nft error above." });
    }
    if (r.truncated) throw new HostgateError("answer_too_large", "The nftables ruleset is larger than 4 MiB.", { hint: "Inspect one table with exec_on_host (when an admin has set exec.enabled: true), e.g. nft -j list table inet filter." });
    let parsed: { nftables?: NftObject[] };
    try {
      parsed = JSON.parse(r.stdout) as { nftables?: NftObject[] };
    } catch {
      throw new HostgateError("backend_error", "nft -j printed something that is not JSON.", { hint: "nft older than 0.9 has no JSON output." });
    }
    const ruleset = (parsed.nftables ?? []).filter((o) => o.metainfo === undefined);
    return { tables: summarizeRuleset(ruleset), ruleset };
  },
});
