import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** Longest `apt-get update` / `dnf makecache` may run, in milliseconds. */
const UPDATE_TIMEOUT_MS = 10 * 60_000;

/** One configured repository source (apt: `deb URI SUITE COMPONENT`; dnf: repo id in `uri`). */
export const packageSourceSchema = z.object({ type: z.string(), uri: z.string(), suite: z.string(), component: z.string() });
type Source = z.infer<typeof packageSourceSchema>;

/** Tab-separated `apt-get indextargets` fields, in this order. */
const INDEXTARGETS_FORMAT = "$(TARGET_OF)\t$(REPO_URI)\t$(RELEASE)\t$(COMPONENT)\t$(FILENAME)";

/**
 * Parses `apt-get indextargets --format INDEXTARGETS_FORMAT`: distinct sources in apt's order and the
 * downloaded index file paths (which may not exist yet before the first update).
 */
export function parseIndexTargets(stdout: string): { sources: Source[]; files: string[] } {
  const sources: Source[] = [];
  const files: string[] = [];
  const seen = new Set<string>();
  for (const line of stdout.split("\n")) {
    const [type, uri, suite, component, file] = line.split("\t");
    if (!type || !uri || suite === undefined || component === undefined) continue;
    const key = `${type} ${uri} ${suite} ${component}`;
    if (!seen.has(key)) { seen.add(key); sources.push({ type, uri, suite, component }); }
    if (file) files.push(file);
  }
  return { sources, files };
}

/** The configured sources and when the index was last refreshed (newest index file mtime), Debian family. */
async function debianState(ctx: ActionContext): Promise<{ sources: Source[]; last_update: string | null }> {
  const path = await ctx.host.which("apt-get");
  if (!path) throw new HostgateError("unavailable", "apt-get is not installed on this host.");
  const r = await ctx.host.run([path, "indextargets", "--format", INDEXTARGETS_FORMAT], { timeoutMs: 30_000 });
  if (r.exit_code !== 0) throw new HostgateError("backend_error", `apt-get indextargets failed (exit ${r.exit_code ?? r.signal}).`);
  const { sources, files } = parseIndexTargets(r.stdout);
  let newest: number | null = null;
  for (const file of files) {
    try {
      const st = await ctx.host.stat(file);
      newest = Math.max(newest ?? 0, st.mtime_ms);
    } catch {
      // not downloaded yet
    }
  }
  return { sources, last_update: newest === null ? null : new Date(Math.floor(newest / 1000) * 1000).toISOString() };
}

/** Enabled repositories from `dnf repolist --enabled` (Fedora family; untested on a live Fedora host). */
async function fedoraState(ctx: ActionContext): Promise<{ sources: Source[]; last_update: string | null }> {
  const path = await ctx.host.which("dnf");
  if (!path) throw new HostgateError("unavailable", "dnf is not installed on this host.");
  const r = await ctx.host.run([path, "repolist", "--enabled", "--quiet"], { timeoutMs: 60_000 });
  return { sources: parseDnfRepolist(r.stdout), last_update: null };
}

/** `dnf repolist --enabled --quiet`: a `repo id  repo name` header, then one repository a line (its id first). */
export function parseDnfRepolist(stdout: string): Source[] {
  return stdout.split("\n").slice(1).map((l) => l.trim()).filter(Boolean)
    .map((l) => ({ type: "rpm-md", uri: l.split(/\s+/)[0]!, suite: "", component: "" }));
}

/**
 * UpdatePackageIndex: refresh the package index from the configured repositories (`apt-get update`;
 * `dnf makecache` on Fedora, untested there). Mutating although low-risk: it rewrites /var/lib/apt/lists
 * (or dnf's cache), which changes what later installs resolve to.
 */
export default defineMutatingAction({
  name: "UpdatePackageIndex",
  title: "Refresh the package index",
  description: "Download fresh package lists from the configured repositories (apt-get update / dnf makecache). Installs nothing. The plan lists the configured sources and when the index was last refreshed.",
  params: z.object({}).strict(),
  output: z.object({ summary: z.string(), exit_code: z.number(), duration_ms: z.number(), warnings: z.array(z.string()) }),
  risk_level: "low",
  access: "mutating",
  families: ["debian", "fedora"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: true,
  async preview(_p, ctx) {
    const state = ctx.family === "debian" ? await debianState(ctx) : await fedoraState(ctx);
    const command = ctx.family === "debian" ? "apt-get update" : "dnf makecache";
    const summary = `Refresh the package index from ${state.sources.length} source(s)`;
    const text = [
      summary,
      `will run: ${command}`,
      `last refreshed: ${state.last_update ?? "unknown"}`,
      "",
      ...state.sources.map((s) => `${s.type} ${s.uri} ${s.suite} ${s.component}`.trimEnd()),
    ].join("\n");
    return { summary, text: `${text}\n`, current: state };
  },
  async apply(_p, ctx) {
    const argv = ctx.family === "debian" ? ["apt-get", "update"] : ["dnf", "makecache"];
    const path = await ctx.host.which(argv[0]!);
    if (!path) throw new HostgateError("unavailable", `${argv[0]} is not installed on this host.`);
    const r = await ctx.mutator.run([path, ...argv.slice(1)], { timeoutMs: UPDATE_TIMEOUT_MS, env: { DEBIAN_FRONTEND: "noninteractive" } });
    const warnings = `${r.stderr}\n${r.stdout}`.split("\n").map((l) => l.trim()).filter((l) => /^(W:|E:|Err:|Error)/.test(l));
    const details = { exit_code: r.exit_code, signal: r.signal, stderr_tail: r.stderr.slice(-4000) };
    if (r.timed_out) throw new HostgateError("timeout", `${argv.join(" ")} did not finish within ${UPDATE_TIMEOUT_MS / 60_000} minutes.`, { details });
    if (r.exit_code !== 0) throw new HostgateError("action_failed", `${argv.join(" ")} failed (exit ${r.exit_code ?? r.signal}): ${warnings[0] ?? ""}`, { details });
    return { summary: `${argv.join(" ")} succeeded`, exit_code: r.exit_code, duration_ms: r.duration_ms, warnings };
  },
});
