import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { checkZone, currentZone, ETC_TIMEZONE, LOCALTIME, timedatectl, timedatedPresent, ZONE_NAME, ZONEINFO } from "./timedated.ts";

const params = z.object({
  zone: z.string().min(1).max(64).regex(ZONE_NAME, "a zone name such as Europe/Berlin or UTC").describe("IANA zone name, e.g. Europe/Berlin or UTC"),
}).strict();

/**
 * The time zone as set now: `timedated` — what timedated reports; `files` — /etc/localtime's zone (null: not a
 * link into zoneinfo) and /etc/timezone's text (null: absent, and not kept on this host).
 */
const stateSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("timedated"), zone: z.string() }),
  z.object({ mode: z.literal("files"), localtime: z.string().nullable(), timezone: z.string().nullable() }),
]);
type State = z.infer<typeof stateSchema>;

/** The link hostgate makes first and renames over /etc/localtime (rename(2): atomic, never through the old link). */
const TEMP_LINK = "/etc/.hostgate-localtime";

async function readState(ctx: ActionContext): Promise<State> {
  const bin = await timedatedPresent(ctx);
  if (bin !== null) return { mode: "timedated", zone: (await timedatectl(ctx, bin, ["show", "-p", "Timezone", "--value"], "probe")).trim() };
  let timezone: string | null = null;
  try {
    const st = await ctx.host.stat(ETC_TIMEZONE);
    if (st.is_symlink || !st.is_file) throw new HostgateError("forbidden_path", `${ETC_TIMEZONE} is not a regular file; SetTimezone never writes through a link.`, { hint: `Remove ${ETC_TIMEZONE} first.` });
    timezone = await ctx.host.readText(ETC_TIMEZONE, { maxBytes: 4096 });
  } catch (err) {
    if (!(err instanceof HostgateError && err.code === "not_found")) throw err;
    if (ctx.family === "debian") timezone = "";
  }
  return { mode: "files", localtime: await currentZone(ctx), timezone };
}

function intendedOf(current: State, zone: string): State {
  return current.mode === "timedated" ? { mode: "timedated", zone } : { mode: "files", localtime: zone, timezone: current.timezone === null ? null : `${zone}\n` };
}

/**
 * SetTimezone: the host's time zone, through systemd-timedated (`timedatectl set-timezone`, its D-Bus
 * SetTimezone) where systemd runs, else as files: /etc/localtime made a link to /usr/share/zoneinfo/<zone>
 * (a new link renamed over it) and, on Debian or where it exists, /etc/timezone. The zone is checked against
 * /usr/share/zoneinfo: no dots in the name, the resolved file inside zoneinfo, a TZif file. Not reverted.
 */
export default defineMutatingAction({
  name: "SetTimezone",
  title: "Set the time zone",
  description: "Set the host's time zone: timedated (timedatectl set-timezone, spawned) where systemd runs, else the /etc/localtime link and /etc/timezone. The zone must be a file under /usr/share/zoneinfo.",
  params,
  output: z.object({ zone: z.string(), previous: z.string().nullable(), mode: z.enum(["timedated", "files"]) }),
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["time"],
  host_derived: false,
  needs: ["files", "mutate"],
  async preview(p, ctx): Promise<Preview> {
    await checkZone(p.zone, ctx);
    const current = await readState(ctx);
    const intended = intendedOf(current, p.zone);
    const now = current.mode === "timedated" ? current.zone : current.localtime;
    if (JSON.stringify(current) === JSON.stringify(intended)) {
      const summary = `Nothing to do: the time zone is already ${p.zone}`;
      return { summary, text: `${summary}\n`, current, intended };
    }
    const summary = `Set the time zone to ${p.zone} (now ${now ?? "unknown"})`;
    const how = current.mode === "timedated" ? "through systemd-timedated (timedatectl set-timezone)" : `${LOCALTIME} → ${ZONEINFO}/${p.zone}${current.timezone === null ? "" : `; ${ETC_TIMEZONE}: ${p.zone}`}`;
    return { summary, text: `${summary}\n${how}\n`, current, intended };
  },
  async apply(p, ctx, approved) {
    const seen = stateSchema.parse(approved.current);
    const want = stateSchema.parse(approved.intended);
    await checkZone(p.zone, ctx);
    const previous = seen.mode === "timedated" ? seen.zone : seen.localtime;
    if (want.mode === "timedated") {
      const bin = await timedatedPresent(ctx);
      if (bin === null) throw new HostgateError("precondition_failed", "systemd-timedated is no longer reachable on this host.", { hint: "Plan again." });
      if (seen.mode === "timedated" && seen.zone !== want.zone) await timedatectl(ctx, bin, ["set-timezone", want.zone], "mutator");
      return { zone: p.zone, previous, mode: want.mode };
    }
    if (seen.mode !== "files") throw new HostgateError("precondition_failed", "The host's time zone is no longer set the way the preview saw.", { hint: "Plan again." });
    if ((await currentZone(ctx)) !== seen.localtime) throw new HostgateError("precondition_failed", `${LOCALTIME} changed since the preview.`, { hint: "Plan again." });
    if (seen.localtime !== want.localtime) {
      for (const argv of [["ln", "-sfn", `${ZONEINFO}/${p.zone}`, TEMP_LINK], ["mv", "-Tf", TEMP_LINK, LOCALTIME]]) {
        const r = await ctx.mutator.run(argv, { timeoutMs: 10_000 });
        if (r.exit_code !== 0) throw new HostgateError("action_failed", `${argv[0]} failed: ${r.stderr.trim().slice(0, 300)}`);
      }
    }
    if (want.timezone !== null && want.timezone !== seen.timezone) {
      await ctx.mutator.writeFileAtomic(ETC_TIMEZONE, want.timezone, { mode: 0o644, expectedRealDir: "/etc", expectedSha256: seen.timezone === null || seen.timezone === "" ? undefined : ctx.hash.sha256Hex(seen.timezone) });
    }
    return { zone: p.zone, previous, mode: want.mode };
  },
});
