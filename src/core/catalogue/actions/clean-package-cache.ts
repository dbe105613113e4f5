import { z } from "zod";
import { defineMutatingAction, type ActionContext, type DistroFamily } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { humanBytes } from "./log-target.ts";

/** Longest a cache clean may run, in milliseconds. */
const CLEAN_TIMEOUT_MS = 5 * 60_000;

/** Per family: the command that empties the downloaded-package cache, and the file names it removes. */
const TOOLS: Record<"debian" | "fedora" | "arch", { argv: string[]; note: string }> = {
  debian: { argv: ["apt-get", "clean"], note: "apt-get clean removes every downloaded .deb (archives/ and archives/partial/); installed packages are untouched" },
  fedora: { argv: ["dnf", "clean", "packages"], note: "dnf clean packages removes cached .rpm files; installed packages are untouched (untested on a live Fedora host)" },
  arch: { argv: ["pacman", "-Sc", "--noconfirm"], note: "pacman -Sc removes cached packages that are not installed, so it frees at most this much (untested on a live Arch host)" },
};

/** One cache directory and what it holds now: file count and bytes on disk. */
interface CacheDir { dir: string; files: number; bytes: number }

/** Files directly in `dir` whose name `keep` accepts, counted; a missing directory counts nothing. */
async function countFiles(ctx: ActionContext, dir: string, keep: (name: string) => boolean): Promise<CacheDir> {
  const out = { dir, files: 0, bytes: 0 };
  let names: string[];
  try {
    names = await ctx.host.readDir(dir);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return out;
    throw err;
  }
  for (const name of names) {
    if (!keep(name)) continue;
    const st = await ctx.host.stat(`${dir}/${name}`);
    if (!st.is_file) continue;
    out.files++;
    out.bytes += st.blocks_bytes ?? st.size;
  }
  return out;
}

/** Debian: the archives directory apt itself uses (`apt-config`, so APT_CONFIG and Dir:: overrides are honoured). */
async function debianDirs(ctx: ActionContext): Promise<CacheDir[]> {
  const apt = await ctx.host.which("apt-config");
  if (!apt) throw new HostgateError("unavailable", "apt-config is not installed on this host.");
  const r = await ctx.host.run([apt, "shell", "A", "Dir::Cache::archives/d"], { timeoutMs: 30_000 });
  const m = /^A='([^']+)'$/m.exec(r.stdout);
  if (r.exit_code !== 0 || !m) throw new HostgateError("backend_error", `apt-config could not name the package cache (exit ${r.exit_code ?? r.signal}).`);
  const archives = m[1]!.replace(/\/+$/, "");
  return [await countFiles(ctx, archives, (n) => n.endsWith(".deb")), await countFiles(ctx, `${archives}/partial`, () => true)];
}

/** Fedora: `<cache>/<repo>/packages/*.rpm` under dnf's (dnf4) or libdnf5's cache. */
async function fedoraDirs(ctx: ActionContext): Promise<CacheDir[]> {
  const out: CacheDir[] = [];
  for (const root of ["/var/cache/dnf", "/var/cache/libdnf5"]) {
    let repos: string[];
    try {
      repos = await ctx.host.readDir(root);
    } catch {
      continue;
    }
    for (const repo of repos.sort()) {
      const c = await countFiles(ctx, `${root}/${repo}/packages`, (n) => n.endsWith(".rpm"));
      if (c.files > 0) out.push(c);
    }
  }
  return out;
}

async function cacheDirs(ctx: ActionContext, family: DistroFamily): Promise<CacheDir[]> {
  if (family === "debian") return debianDirs(ctx);
  if (family === "fedora") return fedoraDirs(ctx);
  return [await countFiles(ctx, "/var/cache/pacman/pkg", (n) => n.includes(".pkg.tar"))];
}

function toolOf(family: DistroFamily): { argv: string[]; note: string } {
  if (family !== "debian" && family !== "fedora" && family !== "arch") throw new HostgateError("unavailable", `CleanPackageCache has no command for the ${family} family.`);
  return TOOLS[family];
}

/**
 * CleanPackageCache: empty the package manager's cache of downloaded packages (apt-get clean, dnf clean
 * packages, pacman -Sc). The preview counts the cached files and their size on disk from the cache directories
 * themselves. Issue 22 (the disk-full runbook).
 */
export default defineMutatingAction({
  name: "CleanPackageCache",
  title: "Clean the package cache",
  description: "Delete downloaded package files from the package manager's cache (apt-get clean / dnf clean packages / pacman -Sc). Installed packages are untouched. The plan shows how many files and bytes the cache holds.",
  params: z.object({}).strict(),
  output: z.object({ command: z.string(), freed_bytes: z.number(), files_left: z.number() }),
  risk_level: "low",
  access: "mutating",
  families: ["debian", "fedora", "arch"],
  min_role: "operator",
  toolsets: ["packages"],
  host_derived: false,
  async preview(_p, ctx) {
    const tool = toolOf(ctx.family);
    if (!(await ctx.host.which(tool.argv[0]!))) throw new HostgateError("unavailable", `${tool.argv[0]} is not installed on this host.`);
    const dirs = await cacheDirs(ctx, ctx.family);
    const files = dirs.reduce((n, d) => n + d.files, 0);
    const bytes = dirs.reduce((n, d) => n + d.bytes, 0);
    const summary = files === 0 ? "Clean the package cache: it is already empty (nothing to free)" : `Clean the package cache: ${files} file(s), ${humanBytes(bytes)}`;
    const text = [summary, `will run: ${tool.argv.join(" ")}`, tool.note, "", ...dirs.map((d) => `${String(d.files).padStart(6)} files ${humanBytes(d.bytes).padStart(9)}  ${d.dir}`)].join("\n");
    return { summary, text: `${text}\n`, current: { dirs }, intended: { command: tool.argv.join(" ") } };
  },
  async apply(_p, ctx) {
    const tool = toolOf(ctx.family);
    const path = await ctx.host.which(tool.argv[0]!);
    if (!path) throw new HostgateError("unavailable", `${tool.argv[0]} is not installed on this host.`);
    const before = (await cacheDirs(ctx, ctx.family)).reduce((n, d) => n + d.bytes, 0);
    const r = await ctx.mutator.run([path, ...tool.argv.slice(1)], { timeoutMs: CLEAN_TIMEOUT_MS, env: { DEBIAN_FRONTEND: "noninteractive" } });
    const details = { exit_code: r.exit_code, signal: r.signal, stderr_tail: r.stderr.slice(-4000) };
    if (r.timed_out) throw new HostgateError("timeout", `${tool.argv.join(" ")} did not finish within ${CLEAN_TIMEOUT_MS / 60_000} minutes.`, { details });
    if (r.exit_code !== 0) throw new HostgateError("action_failed", `${tool.argv.join(" ")} failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().split("\n").pop() ?? ""}`, { details });
    const after = await cacheDirs(ctx, ctx.family);
    const bytesAfter = after.reduce((n, d) => n + d.bytes, 0);
    return { command: tool.argv.join(" "), freed_bytes: Math.max(0, before - bytesAfter), files_left: after.reduce((n, d) => n + d.files, 0) };
  },
});
