import { z } from "zod";
import type { ActionContext } from "../action.ts";
import type { ExecResult } from "../../exec.ts";
import { HostgateError } from "../../errors.ts";

/**
 * The nftables table hostgate owns (issue 24): `inet hostgate`, one base chain `input` (filter hook, priority
 * filter, policy accept). AllowFirewallPort / RemoveFirewallPort add and delete rules there and nowhere else;
 * every nft command they run names this table. nftables runs every base chain of a hook, so an accept here does
 * not override a drop in another table: it is one table's say.
 */
export const NFT_TABLE = "inet hostgate";
const CHAIN = "input";

/** Params shared by the firewall actions. */
export const firewallParams = z.object({
  port: z.number().int().min(1).max(65535).describe("Port number"),
  protocol: z.enum(["tcp", "udp"]).default("tcp").describe("tcp (default) or udp"),
  auto_revert: z.boolean().default(true).describe("Restore the previous rules unless the human runs `hostgate confirm` in time (default true)"),
}).strict();
export type FirewallParams = z.infer<typeof firewallParams>;

/** The comment that names hostgate's rule for one port: `hostgate:allow:tcp:8080`. */
export function ruleComment(p: Pick<FirewallParams, "port" | "protocol">): string {
  return `hostgate:allow:${p.protocol}:${p.port}`;
}

/** The presence of hostgate's rule for one port: what the preview shows and the revert restores. */
export const ruleStateSchema = z.object({ table: z.boolean(), present: z.boolean(), handles: z.array(z.number()) });
export type RuleState = z.infer<typeof ruleStateSchema>;

const nftRule = z.object({ rule: z.object({ table: z.string(), chain: z.string(), handle: z.number(), comment: z.string().optional() }) });

/** Parses `nft -j list table inet hostgate`: the handles of the rules commented `comment`. */
export function handlesIn(json: string, comment: string): number[] {
  let doc: { nftables?: unknown[] };
  try {
    doc = JSON.parse(json) as { nftables?: unknown[] };
  } catch {
    throw new HostgateError("unavailable", "nft -j printed something that is not JSON.");
  }
  const out: number[] = [];
  for (const item of doc.nftables ?? []) {
    const r = nftRule.safeParse(item);
    if (r.success && r.data.rule.table === "hostgate" && r.data.rule.chain === CHAIN && r.data.rule.comment === comment) out.push(r.data.rule.handle);
  }
  return out;
}

/**
 * `nft -j <words>`'s answer on the action's host: through the probe's kept nft co-process where it has one
 * (HostProbe.nftList: the daemon's own host), else one exec of the nft `which` finds (SSH hosts). nft reads the
 * kernel's ruleset for every command, so the answer is never stale. `limits`: timeout in ms, output cap in bytes
 * (`truncated` beyond it). Null when the host has no nft. Used by GetFirewallRuleset and {@link readRule}.
 */
export async function nftJson(ctx: ActionContext, words: readonly string[], limits: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult | null> {
  if (ctx.host.nftList) return ctx.host.nftList(words, limits);
  const nft = await ctx.host.which("nft");
  return nft ? ctx.host.run([nft, "-j", ...words], limits) : null;
}

/**
 * Reads hostgate's table (`nft -j list table inet hostgate` through {@link nftJson}; nftables has no file
 * interface). A missing table is `table: false`; `unavailable` without nft, when nft fails otherwise, or when the
 * listing is larger than 4 MiB.
 */
export async function readRule(p: Pick<FirewallParams, "port" | "protocol">, ctx: ActionContext): Promise<RuleState> {
  const limits = { timeoutMs: 10_000, maxOutputBytes: 4 * 1024 * 1024 };
  const r = await nftJson(ctx, ["list", "table", "inet", "hostgate"], limits);
  if (r === null) throw new HostgateError("unavailable", "nft is not installed on this host.", { hint: "Install the nftables package (apt-get install nftables / dnf install nftables)." });
  if (r.exit_code !== 0) {
    if (/No such file or directory/.test(r.stderr)) return { table: false, present: false, handles: [] };
    throw new HostgateError("unavailable", `nft list failed: ${r.stderr.trim().slice(0, 300)}`);
  }
  if (r.truncated) throw new HostgateError("unavailable", `nft's listing of table ${NFT_TABLE} is larger than ${limits.maxOutputBytes} bytes; hostgate's table holds one rule per port.`);
  const handles = handlesIn(r.stdout, ruleComment(p));
  return { table: true, present: handles.length > 0, handles };
}

/** Runs one nft batch (atomic: all or nothing) through the mutator; `action_failed` with nft's words otherwise. */
async function nftBatch(batch: string, ctx: ActionContext): Promise<void> {
  const r = await ctx.mutator.run(["nft", batch], { timeoutMs: 15_000 });
  if (r.exit_code !== 0) throw new HostgateError("action_failed", `nft refused the change: ${r.stderr.trim().slice(0, 300)}`, { details: { exit_code: r.exit_code } });
}

/** Adds hostgate's accept rule for the port (creating the table and chain when missing). */
export async function addRule(p: Pick<FirewallParams, "port" | "protocol">, ctx: ActionContext): Promise<void> {
  await nftBatch(`add table ${NFT_TABLE}; add chain ${NFT_TABLE} ${CHAIN} { type filter hook input priority filter; policy accept; }; add rule ${NFT_TABLE} ${CHAIN} ${p.protocol} dport ${p.port} accept comment "${ruleComment(p)}"`, ctx);
}

/** Deletes hostgate's rules for the port by handle (the handles read just before). Nothing to delete: no-op. */
export async function deleteRules(handles: readonly number[], ctx: ActionContext): Promise<void> {
  if (handles.length === 0) return;
  await nftBatch(handles.map((h) => `delete rule ${NFT_TABLE} ${CHAIN} handle ${h}`).join("; "), ctx);
}

/** Makes the port's rule present or absent again, reading the table first (the revert of both actions). */
export async function restoreRule(p: FirewallParams, ctx: ActionContext, prior: unknown): Promise<void> {
  const was = ruleStateSchema.parse(prior);
  const now = await readRule(p, ctx);
  if (was.present && !now.present) await addRule(p, ctx);
  if (!was.present && now.present) await deleteRules(now.handles, ctx);
}

/**
 * The ports sshd listens on: `Port` lines of /etc/ssh/sshd_config and its sshd_config.d/*.conf drop-ins (22 when
 * none says), read as files. Used to refuse closing SSH without a confirm window.
 */
export async function sshPorts(ctx: ActionContext): Promise<number[]> {
  const files = ["/etc/ssh/sshd_config"];
  try {
    for (const f of (await ctx.host.readDir("/etc/ssh/sshd_config.d")).filter((n) => n.endsWith(".conf")).sort()) files.push(`/etc/ssh/sshd_config.d/${f}`);
  } catch {
    // no drop-in directory
  }
  const ports = new Set<number>();
  for (const f of files) {
    let text: string;
    try {
      text = await ctx.host.readText(f, { maxBytes: 256 * 1024 });
    } catch {
      continue;
    }
    for (const m of text.matchAll(/^\s*Port\s+(\d{1,5})\s*(?:#.*)?$/gim)) ports.add(Number(m[1]));
  }
  return ports.size === 0 ? [22] : [...ports].sort((a, b) => a - b);
}
