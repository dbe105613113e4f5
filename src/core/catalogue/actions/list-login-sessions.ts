import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { parseUtmp } from "../../host/utmp.ts";

const session = z.object({
  user: z.string(),
  /** Terminal (pts/0, tty1) or null. */
  tty: z.string().nullable(),
  /** Remote host or display the session came from, or null for a local login. */
  remote_host: z.string().nullable(),
  /** Start, ISO 8601. */
  since: z.string(),
  /** Session leader pid (the login shell, sshd's session process). */
  leader_pid: z.number().nullable(),
  /** logind's session id, or null when read from utmp. */
  session_id: z.string().nullable(),
  /** logind's state (active, online, closing), or null when read from utmp. */
  state: z.string().nullable(),
});

const LOGIND_SESSIONS = "/run/systemd/sessions";
const UTMP = ["/run/utmp", "/var/run/utmp"];

/** Parses one logind session file (KEY=VALUE lines, what sd-login's sd_session_* functions read). */
export function parseLogindSession(id: string, text: string): z.infer<typeof session> | null {
  const kv = new Map<string, string>();
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) kv.set(line.slice(0, eq), line.slice(eq + 1));
  }
  const user = kv.get("USER");
  const realtime = Number(kv.get("REALTIME") ?? NaN);
  if (!user || !Number.isFinite(realtime)) return null;
  const leader = Number(kv.get("LEADER") ?? NaN);
  return {
    user,
    tty: kv.get("TTY") ?? null,
    remote_host: kv.get("REMOTE_HOST") ?? kv.get("DISPLAY") ?? null,
    since: new Date(Math.floor(realtime / 1000)).toISOString(),
    leader_pid: Number.isFinite(leader) ? leader : null,
    session_id: id,
    state: kv.get("STATE") ?? (kv.get("ACTIVE") === "1" ? "active" : null),
  };
}

async function fromLogind(ctx: ActionContext): Promise<z.infer<typeof session>[] | null> {
  let ids: string[];
  try {
    ids = await ctx.host.readDir(LOGIND_SESSIONS);
  } catch {
    return null;
  }
  const out: z.infer<typeof session>[] = [];
  for (const id of ids.filter((n) => /^[A-Za-z0-9]+$/.test(n)).sort()) {
    const s = parseLogindSession(id, await ctx.host.readText(`${LOGIND_SESSIONS}/${id}`).catch(() => ""));
    if (s) out.push(s);
  }
  return out;
}

async function fromUtmp(ctx: ActionContext): Promise<z.infer<typeof session>[]> {
  for (const path of UTMP) {
    let data: string;
    try {
      data = await ctx.host.readText(path, { encoding: "latin1", maxBytes: 4 * 1024 * 1024 });
    } catch {
      continue;
    }
    return parseUtmp(data).filter((r) => r.type === "user_process" && r.user !== "").map((r) => ({
      user: r.user,
      tty: r.line || null,
      remote_host: r.host || null,
      since: new Date(r.time_ms).toISOString(),
      leader_pid: r.pid > 0 ? r.pid : null,
      session_id: null,
      state: null,
    }));
  }
  return [];
}

/**
 * ListLoginSessions: who is logged in. logind's session files (/run/systemd/sessions, what sd-login and
 * `loginctl` read) where logind runs, else utmp (what `who` reads).
 */
export default defineReadOnlyAction({
  name: "ListLoginSessions",
  title: "Login sessions",
  description: "Who is logged in now (logind, else utmp): user, tty, remote host, since when.",
  params: z.object({}).strict(),
  output: z.object({ source: z.enum(["logind", "utmp"]), sessions: z.array(session) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files"],
  async run(_params, ctx) {
    const logind = await fromLogind(ctx);
    if (logind !== null) return { source: "logind" as const, sessions: logind };
    return { source: "utmp" as const, sessions: await fromUtmp(ctx) };
  },
});
