import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { capabilitiesOf } from "../needs.ts";

export const RESOLV_CONF = "/etc/resolv.conf";
/** systemd-resolved's drop-in directory and hostgate's file there (resolved.conf(5): later files win; 90 sorts late). */
export const RESOLVED_DROPIN_DIR = "/etc/systemd/resolved.conf.d";
export const RESOLVED_DROPIN = `${RESOLVED_DROPIN_DIR}/90-hostgate-dns.conf`;
const RESOLVED_UNIT = "systemd-resolved.service";
/** glibc reads at most three `nameserver` lines (resolv.conf(5), MAXNS). */
const MAXNS = 3;

const params = z.object({
  servers: z.array(z.union([z.ipv4(), z.ipv6()])).min(1).max(8).describe("DNS server addresses in order of preference (IPv4 or IPv6; at most 3 when /etc/resolv.conf is a plain file)"),
}).strict();
type Params = z.infer<typeof params>;

/**
 * Where the host's DNS servers are set and what is there now: `file` — /etc/resolv.conf is a plain file (its
 * content); `resolved` — it is systemd-resolved's link and resolved runs (hostgate's drop-in, null when absent).
 */
const stateSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("file"), content: z.string() }),
  z.object({ mode: z.literal("resolved"), dropin: z.string().nullable() }),
]);
type State = z.infer<typeof stateSchema>;

/** resolv.conf's text with its `nameserver` lines replaced by `servers`, at the place of the first one (else at the end). */
export function withNameservers(text: string, servers: readonly string[]): string {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const first = lines.findIndex((l) => /^\s*nameserver\s/.test(l));
  const kept = lines.filter((l) => !/^\s*nameserver\s/.test(l));
  const at = first < 0 ? kept.length : lines.slice(0, first).filter((l) => !/^\s*nameserver\s/.test(l)).length;
  kept.splice(at, 0, ...servers.map((s) => `nameserver ${s}`));
  return `${kept.join("\n")}\n`;
}

/** The resolved drop-in's content for `servers`. */
export function resolvedDropIn(servers: readonly string[]): string {
  return `# Set by hostgate (SetDnsServers). Remove this file and restart systemd-resolved to go back.\n[Resolve]\nDNS=${servers.join(" ")}\n`;
}

/** Whether systemd-resolved runs, through the host's service manager; false when it has none or no such unit. */
async function resolvedRuns(ctx: ActionContext): Promise<boolean> {
  if (!capabilitiesOf(ctx).includes("systemd")) return false;
  try {
    const u = await ctx.units.system.getUnit(RESOLVED_UNIT);
    return u.active_state === "active" && ctx.units.system.simulated !== true;
  } catch {
    return false;
  }
}

/** Reads where DNS is set and its current state; refuses a resolv.conf some other manager owns, saying which. */
async function readState(ctx: ActionContext): Promise<State> {
  const st = await ctx.host.stat(RESOLV_CONF);
  if (st.is_file && !st.is_symlink) return { mode: "file", content: await ctx.host.readText(RESOLV_CONF, { maxBytes: 64 * 1024 }) };
  if (!st.is_symlink) throw new HostgateError("invalid_params", `${RESOLV_CONF} is not a regular file; SetDnsServers leaves it alone.`);
  const target = await ctx.host.readLink(RESOLV_CONF);
  if (/systemd\/resolve\//.test(target)) {
    if (!(await resolvedRuns(ctx))) throw new HostgateError("invalid_params", `${RESOLV_CONF} is a link to ${target}, managed by systemd-resolved, which is not running here.`, { hint: `Start systemd-resolved (StartService ${RESOLVED_UNIT}) and plan again, or replace the link with a plain file (WriteFile).` });
    let dropin: string | null = null;
    try {
      const d = await ctx.host.stat(RESOLVED_DROPIN);
      if (d.is_symlink || !d.is_file) throw new HostgateError("forbidden_path", `${RESOLVED_DROPIN} is not a regular file; SetDnsServers never writes through a link.`, { hint: `Remove ${RESOLVED_DROPIN} first.` });
      dropin = await ctx.host.readText(RESOLVED_DROPIN, { maxBytes: 64 * 1024 });
    } catch (err) {
      if (!(err instanceof HostgateError && err.code === "not_found")) throw err;
    }
    return { mode: "resolved", dropin };
  }
  if (/resolvconf/.test(target)) throw new HostgateError("invalid_params", `${RESOLV_CONF} is a link to ${target}, managed by resolvconf: a change there would be overwritten.`, { hint: "Set the servers in the network configuration resolvconf reads (/etc/network/interfaces dns-nameservers, or /etc/resolvconf/resolv.conf.d/head), with an approved WriteFile." });
  throw new HostgateError("invalid_params", `${RESOLV_CONF} is a link to ${target}; SetDnsServers never writes through a link.`, { hint: "Change the file the link's owner manages, or replace the link with a plain file (WriteFile)." });
}

/** The state that sets `servers` in the same place as `current`. */
function intendedOf(current: State, servers: readonly string[]): State {
  return current.mode === "file" ? { mode: "file", content: withNameservers(current.content, servers) } : { mode: "resolved", dropin: resolvedDropIn(servers) };
}

/** Puts `want` in place (a precondition on `seen`), restarting resolved in its mode. */
async function put(want: State, seen: State, ctx: ActionContext): Promise<void> {
  if (want.mode === "file" && seen.mode === "file") {
    await ctx.mutator.writeFileAtomic(RESOLV_CONF, want.content, { expectedRealDir: "/etc", expectedSha256: ctx.hash.sha256Hex(seen.content) });
    return;
  }
  if (want.mode !== "resolved" || seen.mode !== "resolved") throw new HostgateError("precondition_failed", `${RESOLV_CONF} changed hands since the preview (file ↔ systemd-resolved).`, { hint: "Plan again." });
  if (want.dropin === null) {
    const st = await ctx.host.stat(RESOLVED_DROPIN);
    if (st.dev === undefined || st.ino === undefined) throw new HostgateError("unavailable", `Cannot identify ${RESOLVED_DROPIN} on this host to remove it.`);
    await ctx.mutator.removeFile(RESOLVED_DROPIN, { how: "delete", expectedRealDir: RESOLVED_DROPIN_DIR, expectedDev: st.dev, expectedIno: st.ino });
  } else {
    await ctx.mutator.writeFileAtomic(RESOLVED_DROPIN, want.dropin, { mode: 0o644, expectedSha256: seen.dropin === null ? null : ctx.hash.sha256Hex(seen.dropin) });
  }
  await ctx.units.system.restartUnit(RESOLVED_UNIT);
}

/** The servers a state names, for the preview. */
function serversIn(s: State): string[] {
  const text = s.mode === "file" ? s.content : (s.dropin ?? "");
  if (s.mode === "file") return [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]!);
  return /^DNS=(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
}

/**
 * SetDnsServers: the host's DNS servers. Where /etc/resolv.conf is systemd-resolved's link and resolved runs, a
 * global drop-in (/etc/systemd/resolved.conf.d/90-hostgate-dns.conf) and a restart of resolved; where it is a
 * plain file, its `nameserver` lines (search and options kept). Refuses a link owned by resolvconf or anything
 * else. Reverts unless confirmed: a wrong resolver can cut the operator off.
 */
export default defineMutatingAction({
  name: "SetDnsServers",
  title: "Set the DNS servers",
  description: "Set the host's DNS servers: a systemd-resolved global drop-in (+ restart) when /etc/resolv.conf is resolved's link, else the nameserver lines of a plain /etc/resolv.conf. Refuses a resolv.conf managed by resolvconf or another link. Reverts by itself unless the human confirms in time.",
  params,
  output: z.object({ mode: z.enum(["file", "resolved"]), servers: z.array(z.string()), previous: z.array(z.string()) }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["network"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(p: Params, ctx): Promise<Preview> {
    const current = await readState(ctx);
    if (current.mode === "file" && p.servers.length > MAXNS) throw new HostgateError("invalid_params", `${RESOLV_CONF} is a plain file and the C library reads only its first ${MAXNS} nameserver lines; ${p.servers.length} were given.`, { hint: `Give at most ${MAXNS} servers.` });
    const intended = intendedOf(current, p.servers);
    const where = current.mode === "file" ? RESOLV_CONF : `${RESOLVED_DROPIN} (systemd-resolved, restarted)`;
    const same = JSON.stringify(current) === JSON.stringify(intended);
    const before = serversIn(current);
    const summary = same ? `Nothing to do: the DNS servers are already ${p.servers.join(", ")} (${where})` : `Set the DNS servers to ${p.servers.join(", ")} (now ${before.join(", ") || "none"}) in ${where}`;
    const text = same ? `${summary}\n` : `${summary}\n${current.mode === "file" ? "other lines of resolv.conf (search, options) are kept\n" : ""}`;
    return { summary, text, current, intended };
  },
  async apply(p, ctx, approved) {
    const seen = stateSchema.parse(approved.current);
    const want = stateSchema.parse(approved.intended);
    if (JSON.stringify(seen) !== JSON.stringify(want)) await put(want, seen, ctx);
    return { mode: want.mode, servers: p.servers, previous: serversIn(seen) };
  },
  revert: {
    capture: (_p, ctx) => readState(ctx),
    async restore(_p, ctx, prior) {
      const was = stateSchema.parse(prior);
      const now = await readState(ctx);
      if (JSON.stringify(was) !== JSON.stringify(now)) await put(was, now, ctx);
    },
  },
});
