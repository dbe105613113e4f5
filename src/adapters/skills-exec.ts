import { spawn, spawnSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, mkdtemp, open, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { DIGEST_RE, type SkillDigest } from "../core/skills/digest.ts";
import type { ExecGrant, ExecRunner, GrantStore, RunOutcome, RunRequest } from "../ports/skill-store.ts";

const GrantsSchema = z.object({
  grants_version: z.literal(1),
  // `files`: the per-file digest set the grant was given for (SEP-2640's content binding); absent in grants
  // written before it was recorded, which stay bound by the tree digest alone.
  grants: z.array(z.object({
    name: z.string(), digest: z.string().regex(DIGEST_RE), entrypoint: z.string(), granted_by: z.string(), granted_at: z.string(),
    files: z.array(z.object({ path: z.string(), digest: z.string().regex(DIGEST_RE), size: z.number().int().min(0) }).strict()).optional(),
  }).strict()),
}).strict();

/**
 * Exec grants in one JSON file owned by the daemon (`<state>/skills/grants.json`, mode 0600), replaced
 * atomically on every change. A file that does not parse is an error, never "no grants" and never "all".
 */
export function fileGrantStore(path: string): GrantStore {
  const read = async (): Promise<ExecGrant[]> => {
    let fh;
    try {
      fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    try {
      const parsed = GrantsSchema.safeParse(JSON.parse(await fh.readFile("utf8")));
      if (!parsed.success) throw new Error(`${path} is not a valid grants file: ${parsed.error.issues[0]?.message ?? ""}`);
      return parsed.data.grants.map(({ files, ...g }) => ({ ...g, digest: g.digest as SkillDigest, ...(files ? { files: files.map((f) => ({ ...f, digest: f.digest as SkillDigest })) } : {}) }));
    } finally {
      await fh.close();
    }
  };
  const write = async (grants: ExecGrant[]): Promise<void> => {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
    const sorted = [...grants].sort((a, b) => (a.name + a.digest + a.entrypoint < b.name + b.digest + b.entrypoint ? -1 : 1));
    await writeFile(tmp, `${JSON.stringify({ grants_version: 1, grants: sorted }, null, 2)}\n`, { flag: "wx", mode: 0o600 });
    await rename(tmp, path);
  };
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => { const p = chain.then(fn, fn); chain = p.catch(() => undefined); return p; };
  return {
    list: read,
    add: (g) => serial(async () => {
      const all = (await read()).filter((x) => !(x.digest === g.digest && x.entrypoint === g.entrypoint));
      await write([...all, g]);
    }),
    remove: (digest, entrypoint) => serial(async () => {
      const all = await read();
      const kept = all.filter((x) => !(x.digest === digest && x.entrypoint === entrypoint));
      if (kept.length === all.length) return false;
      await write(kept);
      return true;
    }),
  };
}

/** How long the pipes may stay open after the main process exited before the run is over anyway (ms). */
export const DRAIN_MS = 500;

/**
 * The launcher that gives a run its own PID namespace: `unshare --pid --fork --kill-child` (util-linux), plus
 * `--user --map-current-user` when not root. The entrypoint is PID 1 there: when it exits the kernel kills
 * every process left in the namespace, `setsid` children included, and `--kill-child` kills it if unshare
 * dies. /proc stays the host's, so `ps` still lists the host's processes. Checked once by running `true`
 * through it; null when it cannot be used here (then runs keep the process group and the drain deadline).
 */
function pidNamespacePrefix(): string[] | null {
  const prefix = ["unshare", ...(process.getuid?.() === 0 ? [] : ["--user", "--map-current-user"]), "--pid", "--fork", "--kill-child", "--"];
  const probe = spawnSync(prefix[0]!, [...prefix.slice(1), "true"], { stdio: "ignore", timeout: 5000, env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } });
  return probe.status === 0 ? prefix : null;
}

/** Options of {@link processRunner}. */
export interface RunnerOptions {
  /** Run each entrypoint in its own PID namespace when the host allows it (default true). */
  pidNamespace?: boolean;
  /** See {@link DRAIN_MS}. */
  drainMs?: number;
}

/**
 * The exec runner: `spawn` with `detached: true` so the child leads a new process group, stdin from
 * /dev/null, only the environment given, cwd and HOME a fresh private directory removed afterwards, inside
 * its own PID namespace when available ({@link pidNamespacePrefix}; `confinement` in the outcome says which).
 * The run is over when the main process exits plus at most `drainMs` for its pipes (a child that escaped with
 * `setsid` and holds them cannot keep skills_execute waiting, issue 21); then the group is killed, and with
 * the namespace everything the script started. On timeout or cancel, SIGTERM then SIGKILL after 2 s go to the
 * whole group (`kill(-pgid)`). Output beyond `captureBytes` per stream is read and counted but not kept.
 */
export function processRunner(opts: RunnerOptions = {}): ExecRunner {
  const drainMs = opts.drainMs ?? DRAIN_MS;
  let prefix: string[] | null | undefined = opts.pidNamespace === false ? null : undefined;
  const live = new Set<number>();
  const killGroup = (pgid: number, sig: NodeJS.Signals): void => { try { process.kill(-pgid, sig); } catch { /* already gone */ } };
  process.once("exit", () => { for (const p of live) killGroup(p, "SIGKILL"); });
  return {
    killAll: () => { for (const p of live) killGroup(p, "SIGKILL"); },
    run: async (req: RunRequest): Promise<RunOutcome> => {
      if (prefix === undefined) prefix = pidNamespacePrefix();
      const argv = [...(prefix ?? []), ...req.argv];
      const cwd = await mkdtemp(join(tmpdir(), "hostgate-skill-"));
      const started = performance.now();
      try {
        return await new Promise<RunOutcome>((resolve, reject) => {
          const child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...req.env, HOME: cwd, TMPDIR: cwd }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
          const pgid = child.pid;
          if (pgid === undefined) { child.once("error", reject); return; }
          live.add(pgid);
          const streams = { stdout: { chunks: [] as Buffer[], kept: 0, total: 0 }, stderr: { chunks: [] as Buffer[], kept: 0, total: 0 } };
          for (const name of ["stdout", "stderr"] as const) {
            child[name].on("data", (c: Buffer) => {
              const s = streams[name];
              s.total += c.length;
              if (s.kept < req.captureBytes) { const part = c.subarray(0, req.captureBytes - s.kept); s.chunks.push(part); s.kept += part.length; }
            });
          }
          let timedOut = false;
          let cancelled = false;
          let hardKill: NodeJS.Timeout | undefined;
          let drain: NodeJS.Timeout | undefined;
          let exited: { code: number | null; sig: NodeJS.Signals | null } | null = null;
          const stop = (): void => {
            killGroup(pgid, "SIGTERM");
            hardKill ??= setTimeout(() => { killGroup(pgid, "SIGKILL"); }, 2000);
          };
          const timer = setTimeout(() => { timedOut = true; stop(); }, req.timeoutMs);
          const onAbort = (): void => { cancelled = true; stop(); };
          if (req.signal?.aborted) onAbort();
          req.signal?.addEventListener("abort", onAbort, { once: true });
          let done = false;
          const finish = (): void => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            if (hardKill) clearTimeout(hardKill);
            if (drain) clearTimeout(drain);
            req.signal?.removeEventListener("abort", onAbort);
            // Whatever the script left in its group goes with it; pipes still held open are closed on our side.
            killGroup(pgid, "SIGKILL");
            live.delete(pgid);
            child.stdout.destroy();
            child.stderr.destroy();
            resolve({
              exit_code: exited?.code ?? null, signal: exited?.sig ?? null, timed_out: timedOut, cancelled, duration_ms: Math.round(performance.now() - started),
              stdout: Buffer.concat(streams.stdout.chunks), stderr: Buffer.concat(streams.stderr.chunks), stdout_bytes: streams.stdout.total, stderr_bytes: streams.stderr.total,
              confinement: prefix ? "pid_namespace" : "process_group",
            });
          };
          child.once("exit", (code, sig) => {
            exited = { code, sig };
            // The main process is gone: its group goes too, and the pipes get a short deadline to drain.
            killGroup(pgid, "SIGKILL");
            drain = setTimeout(finish, drainMs);
          });
          child.once("error", (err) => { clearTimeout(timer); if (drain) clearTimeout(drain); live.delete(pgid); reject(err); });
          child.once("close", (code, sig) => {
            exited ??= { code, sig };
            finish();
          });
        });
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    },
  };
}
