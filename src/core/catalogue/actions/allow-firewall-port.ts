import { z } from "zod";
import { defineMutatingAction, type Preview } from "../action.ts";
import { addRule, firewallParams, NFT_TABLE, readRule, restoreRule, ruleComment, ruleStateSchema } from "./firewall-nft.ts";

/**
 * AllowFirewallPort: an nftables accept rule for one port in hostgate's own table `inet hostgate` (created on
 * first use; no other table is touched). Reverts unless confirmed (issue 24) unless `auto_revert` is false.
 * nft is spawned (argv only): nftables has no file or /proc interface.
 */
export default defineMutatingAction({
  name: "AllowFirewallPort",
  title: "Allow a port in the firewall",
  description: "Add an nftables accept rule for one tcp/udp port to hostgate's own table `inet hostgate` (spawns nft; no other table is touched; a drop in another table still wins). Reverts by itself unless the human confirms in time (auto_revert, default true).",
  params: firewallParams,
  output: z.object({ table: z.string(), port: z.number(), protocol: z.string(), comment: z.string(), added: z.boolean() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["network"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(p, ctx): Promise<Preview> {
    const current = await readRule(p, ctx);
    const rule = `${p.protocol} dport ${p.port} accept comment "${ruleComment(p)}"`;
    const summary = current.present
      ? `Nothing to do: ${p.protocol}/${p.port} is already allowed in ${NFT_TABLE}`
      : `Allow ${p.protocol}/${p.port} in nftables table ${NFT_TABLE}${current.table ? "" : " (creating the table and its input chain)"}`;
    const text = current.present ? `${summary}\n` : `${summary}\nnft: add rule ${NFT_TABLE} input ${rule}\nNo other table is read or changed.\n`;
    return { summary, text, current, intended: { table: true, present: true } };
  },
  async apply(p, ctx, approved) {
    const seen = ruleStateSchema.parse(approved.current);
    if (!seen.present) await addRule(p, ctx);
    return { table: NFT_TABLE, port: p.port, protocol: p.protocol, comment: ruleComment(p), added: !seen.present };
  },
  revert: {
    applies: (p) => p.auto_revert,
    capture: (p, ctx) => readRule(p, ctx),
    restore: restoreRule,
  },
});
