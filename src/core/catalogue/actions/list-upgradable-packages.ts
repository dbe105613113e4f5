import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { paginate } from "../../pagination.ts";
import { HostgateError } from "../../errors.ts";
import type { HostProbe } from "../../../ports/host-probe.ts";
import { fileFingerprint, FileKeyedCache } from "./file-keyed-cache.ts";
import { runTool } from "./package-tools.ts";

const upgrade = z.object({ name: z.string(), from_version: z.string(), to_version: z.string(), origins: z.array(z.string()), security: z.boolean() });
type Upgrade = z.infer<typeof upgrade>;

/** `Inst NAME [OLD] (NEW ORIGIN[, ORIGIN…] [ARCH])`: apt-get -s lines that upgrade an installed package. */
const INST_UPGRADE = /^Inst (\S+) \[([^\]]+)\] \((\S+) (.*?)(?: \[[^\]]+\])?\)/;

/**
 * Upgrades in `apt-get -s dist-upgrade` output (LC_ALL=C). An upgrade is a security update when one of its
 * origins is a `-security` suite (Debian-Security:12/bookworm-security, Ubuntu's jammy-security), which is what
 * unattended-upgrades' default origins pattern keys on.
 */
export function parseAptUpgrades(stdout: string): Upgrade[] {
  const out: Upgrade[] = [];
  for (const line of stdout.split("\n")) {
    const m = INST_UPGRADE.exec(line);
    if (!m) continue;
    const origins = m[4]!.split(", ").map((o) => o.trim()).filter((o) => o !== "");
    out.push({ name: m[1]!, from_version: m[2]!, to_version: m[3]!, origins, security: origins.some((o) => /-security$/.test(o)) });
  }
  return out;
}

/** `dnf check-update` rows: `NAME.ARCH  VERSION-RELEASE  REPO`; security names from `dnf updateinfo list --security`. */
export function parseDnfCheckUpdate(stdout: string, installed: ReadonlyMap<string, string>, security: ReadonlySet<string>): Upgrade[] {
  const out: Upgrade[] = [];
  for (const line of stdout.split("\n")) {
    if (/^(Obsoleting|Security:|Last metadata)/.test(line)) break;
    const m = /^(\S+)\.(\S+)\s+(\S+)\s+(\S+)\s*$/.exec(line);
    if (!m) continue;
    out.push({ name: m[1]!, from_version: installed.get(m[1]!) ?? "", to_version: m[3]!, origins: [m[4]!], security: security.has(m[1]!) });
  }
  return out;
}

/**
 * The files a family's upgrade answer is computed from, so a change to any of them invalidates the cached answer.
 * Debian (apt(8), apt_preferences(5), sources.list(5)): the dpkg database, the downloaded index files in
 * /var/lib/apt/lists (their newest mtime is how old the index is), the sources, pins and apt configuration.
 * Fedora (dnf.conf(5)): the rpm database and dnf's metadata cache in /var/cache/dnf, plus repos and dnf.conf.
 */
const INDEX_SOURCES = {
  debian: {
    files: ["/var/lib/dpkg/status", "/etc/apt/sources.list", "/etc/apt/preferences", "/etc/apt/apt.conf"],
    index_dirs: ["/var/lib/apt/lists"],
    config_dirs: ["/etc/apt/sources.list.d", "/etc/apt/preferences.d", "/etc/apt/apt.conf.d"],
  },
  fedora: {
    files: ["/var/lib/rpm/rpmdb.sqlite", "/var/lib/rpm/Packages", "/etc/dnf/dnf.conf", "/etc/dnf/plugins/versionlock.list"],
    index_dirs: ["/var/cache/dnf"],
    config_dirs: ["/etc/yum.repos.d"],
  },
} as const;

/**
 * How long a call waits for the package manager before answering `timeout` (ms). The computation goes on in the
 * background and fills the cache, so calling again returns its answer. apt without its binary cache
 * (Dir::Cache::pkgcache "", as Docker images set it) re-reads the whole index on every run: 10–20 s here.
 */
export const UPGRADE_WAIT_MS = 8_000;
/** The package manager's own limit (ms): killed beyond it, and the call says so. */
export const UPGRADE_RUN_TIMEOUT_MS = 120_000;

/** One computed answer: every upgrade (unfiltered) and when it was computed (ms since the epoch). */
interface Computed { all: Upgrade[]; computed_at_ms: number }
const cache = new FileKeyedCache<Computed>();
/** Runs under way per host, by fingerprint; a failure is kept until one caller has been told. */
interface Running { key: string; promise: Promise<Computed>; failure?: Error }
const running = new WeakMap<HostProbe, Running>();

/** The package manager's answer, unfiltered and sorted by name (see the action's description). */
async function computeUpgrades(ctx: ActionContext): Promise<Upgrade[]> {
  let all: Upgrade[];
  if (ctx.family === "debian") {
    all = parseAptUpgrades(await runTool(ctx, ["apt-get", "-s", "-o", "Debug::NoLocking=true", "dist-upgrade"], [0], UPGRADE_RUN_TIMEOUT_MS));
  } else {
    const listed = await runTool(ctx, ["dnf", "--quiet", "--cacheonly", "check-update"], [0, 100], UPGRADE_RUN_TIMEOUT_MS);
    const sec = await runTool(ctx, ["dnf", "--quiet", "--cacheonly", "updateinfo", "list", "--security"], [0], UPGRADE_RUN_TIMEOUT_MS).catch(() => "");
    const installedText = await runTool(ctx, ["rpm", "-qa", "--queryformat", "%{NAME}\t%{VERSION}-%{RELEASE}\n"]);
    all = parseDnfCheckUpdate(listed, parseRpmVersions(installedText), parseDnfSecurityNames(sec));
  }
  return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `rpm -qa --queryformat '%{NAME}\t%{VERSION}-%{RELEASE}\n'` rows as name → version-release. */
export function parseRpmVersions(text: string): Map<string, string> {
  return new Map(text.split("\n").map((l) => l.split("\t") as [string, string]).filter(([n, v]) => n && v));
}

/**
 * Package names of `dnf updateinfo list --security` rows (`ADVISORY  SEVERITY/Sec.  NAME-VERSION-RELEASE.ARCH`):
 * the third column with its `-VERSION-RELEASE.ARCH` tail removed.
 */
export function parseDnfSecurityNames(text: string): Set<string> {
  return new Set(text.split("\n").map((l) => l.trim().split(/\s+/)[2]?.replace(/-[^-]+-[^-]+$/, "") ?? "").filter((n) => n !== ""));
}

/**
 * The host's upgrades: from the cache while the index files are unchanged, else from one package-manager run
 * per host (concurrent callers share it). Waits at most {@link UPGRADE_WAIT_MS}; beyond that `timeout`, with the
 * run still going so the next call answers from it.
 */
async function upgradesOf(ctx: ActionContext): Promise<Computed & { lists_newest_ms: number | null }> {
  const src = INDEX_SOURCES[ctx.family === "debian" ? "debian" : "fedora"];
  const [index, config] = await Promise.all([fileFingerprint(ctx.host, [], src.index_dirs), fileFingerprint(ctx.host, src.files, src.config_dirs)]);
  const key = `${config.key}\n${index.key}`;
  const hit = cache.get(ctx.host, key);
  if (hit !== undefined) return { ...hit, lists_newest_ms: index.newest_dir_mtime_ms };
  let run = running.get(ctx.host);
  if (run?.key === key && run.failure !== undefined) {
    running.delete(ctx.host);
    throw run.failure;
  }
  if (run?.key !== key) {
    const started: Running = { key, promise: computeUpgrades(ctx).then((all) => ({ all, computed_at_ms: ctx.clock.now() })) };
    running.set(ctx.host, started);
    started.promise.then((c) => {
      cache.set(ctx.host, key, c);
      if (running.get(ctx.host) === started) running.delete(ctx.host);
    }, (err: unknown) => {
      if (running.get(ctx.host) === started) started.failure = err instanceof Error ? err : new Error(String(err));
    });
    run = started;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<"waited">((resolve) => { timer = setTimeout(() => { resolve("waited"); }, UPGRADE_WAIT_MS); });
  try {
    const got = await Promise.race([run.promise, waited]);
    if (got === "waited") {
      const tool = ctx.family === "debian" ? "apt-get -s dist-upgrade" : "dnf check-update";
      throw new HostgateError("timeout", `${tool} has not finished within ${UPGRADE_WAIT_MS / 1000} s: it reads the whole package index, which is slow on this host. It goes on in the background.`, {
        hint: "Call read_action { action: \"ListUpgradablePackages\" } again in a few seconds: it answers from that run as soon as it ends (and from a cache until the package index or dpkg database changes).",
      });
    }
    return { ...got, lists_newest_ms: index.newest_dir_mtime_ms };
  } catch (err) {
    if (running.get(ctx.host) === run && run.failure !== undefined) running.delete(ctx.host);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * ListUpgradablePackages: packages with a newer candidate in the local package index (no download: run
 * UpdatePackageIndex first for a fresh answer). Debian: spawns `apt-get -s dist-upgrade` (a simulation, no
 * lock); Fedora: `dnf --cacheonly check-update` and `updateinfo list --security`. The answer is cached per host
 * and recomputed only when the dpkg/rpm database, the index files or the package manager's sources, pins or
 * configuration change; it says when it was computed and how old the index is (newest file in
 * /var/lib/apt/lists or /var/cache/dnf).
 */
export default defineReadOnlyAction({
  name: "ListUpgradablePackages",
  title: "Upgradable packages",
  description: "Pending upgrades from the local index (no download), security updates marked, with the index's age. Spawns apt-get -s dist-upgrade / dnf check-update once, then cached until the package database or index changes; a first run over 8 s answers timeout and finishes in the background: call again.",
  params: z.object({
    security_only: z.boolean().default(false),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(200).optional(),
  }).strict(),
  output: z.object({
    upgrades: z.array(upgrade),
    total: z.number(),
    security_total: z.number(),
    next_cursor: z.string().nullable(),
    index_updated_at: z.string().nullable().describe("Newest file of the package index (/var/lib/apt/lists, /var/cache/dnf), ISO 8601; null when there is none"),
    index_age_s: z.number().nullable().describe("Seconds since index_updated_at; UpdatePackageIndex refreshes the index"),
    computed_at: z.string().describe("When the package manager computed this answer (ISO 8601); reused until its inputs change"),
  }),
  risk_level: "low",
  access: "read_only",
  families: ["debian", "fedora"],
  min_role: "observer",
  toolsets: ["packages"],
  host_derived: true,
  async run(params, ctx) {
    const { all, computed_at_ms, lists_newest_ms } = await upgradesOf(ctx);
    const chosen = params.security_only ? all.filter((u) => u.security) : all;
    const page = paginate(chosen, params.limit, params.cursor, `upgradable\0${params.security_only}`);
    return {
      upgrades: page.items, total: page.total, security_total: all.filter((u) => u.security).length, next_cursor: page.next_cursor,
      index_updated_at: lists_newest_ms === null ? null : new Date(lists_newest_ms).toISOString(),
      index_age_s: lists_newest_ms === null ? null : Math.max(0, Math.round((ctx.clock.now() - lists_newest_ms) / 1000)),
      computed_at: new Date(computed_at_ms).toISOString(),
    };
  },
});
