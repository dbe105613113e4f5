import { z } from "zod";
import { defineMutatingAction, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { deleteRules, firewallParams, NFT_TABLE, readRule, restoreRule, ruleComment, ruleStateSchema, sshPorts } from "./firewall-nft.ts";

/**
 * RemoveFirewallPort: deletes the accept rule AllowFirewallPort added for one port from `inet hostgate` (rules of
 * other tables are never read or changed). Reverts unless confirmed (issue 24); closing an SSH port (sshd_config's
 * `Port`, 22 by default) with `auto_revert: false` is refused: it could lock the operator out with no way back.
 */
export default defineMutatingAction({
  name: "RemoveFirewallPort",
  title: "Remove a port's allow rule",
  description: "Delete hostgate's nftables accept rule for one tcp/udp port from the table `inet hostgate` (spawns nft; other tables untouched). Reverts by itself unless the human confirms in time; removing an SSH port's rule with auto_revert false is refused.",
  params: firewallParams,
  output: z.object({ table: z.string(), port: z.number(), protocol: z.string(), removed: z.number() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["network"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(p, ctx): Promise<Preview> {
    if (!p.auto_revert && p.protocol === "tcp" && (await sshPorts(ctx)).includes(p.port)) {
      throw new HostgateError("invalid_params", `Refused: port ${p.port} is an SSH port of this host, and closing it without auto_revert could lock everyone out with no way back.`, {
        hint: "Plan it again with auto_revert true (the default): the human then confirms with `hostgate confirm` once SSH still works.",
      });
    }
    const current = await readRule(p, ctx);
    const summary = current.present
      ? `Remove the allow rule for ${p.protocol}/${p.port} from ${NFT_TABLE}`
      : `Nothing to do: ${NFT_TABLE} has no allow rule for ${p.protocol}/${p.port}`;
    const text = current.present ? `${summary}\nnft: delete rule ${NFT_TABLE} input handle ${current.handles.join(", ")} (comment "${ruleComment(p)}")\nNo other table is read or changed.\n` : `${summary}\n`;
    return { summary, text, current, intended: { table: current.table, present: false } };
  },
  async apply(p, ctx, approved) {
    const seen = ruleStateSchema.parse(approved.current);
    await deleteRules(seen.handles, ctx);
    return { table: NFT_TABLE, port: p.port, protocol: p.protocol, removed: seen.handles.length };
  },
  revert: {
    applies: (p) => p.auto_revert,
    capture: (p, ctx) => readRule(p, ctx),
    restore: restoreRule,
  },
});
