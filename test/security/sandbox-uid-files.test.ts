/**
 * The files the bubblewrap wrapper keeps for a root login's per-run uid (RUN_UID_POOL in core/sandbox/confine.ts):
 * its lock directory and lock files, and the userdb records that name the uid (review leftovers of issue 19).
 * Each test runs the real wrapper (real sh, flock, setpriv, bwrap) in a mount namespace of its own whose /run is a
 * directory the test made, so the host's /run/hostgate-uids and /run/userdb, which other runs use, are not touched.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chooseSandbox, confine, parseProbe, probeCommand, RUN_UID_POOL, type HostSandbox } from "../../src/core/sandbox/confine.ts";
import { REQUIRE_PEERS, whichSync } from "../peers/proc.ts";

const missing = process.getuid?.() !== 0 ? "needs root (a root login's wrapper)"
  : !whichSync("bwrap") ? "no bubblewrap (apt-get install bubblewrap)"
  : !whichSync("setpriv") || !whichSync("flock") || !whichSync("unshare") ? "no setpriv/flock/unshare (util-linux)" : null;
if (missing && REQUIRE_PEERS) throw new Error(`sandbox uid file tests: ${missing}`);
if (missing) process.stderr.write(`SKIPPING sandbox uid file tests: ${missing}\n`);

const probed = missing === null ? parseProbe(spawnSync("/bin/sh", ["-c", probeCommand()], { encoding: "utf8" }).stdout) : undefined;
/** Whether this machine's NSS asks nss-systemd (which then reads the userdb records). */
const nssSystemd = probed?.nss_systemd === true;

/** This machine's bubblewrap sandbox as a root login's, with nss-systemd (so the wrapper writes userdb records). */
function localBwrap(): HostSandbox {
  const facts = probed!;
  const sb = chooseSandbox({ ...facts, nss_systemd: true, uid_pool_clash: [] });
  if (sb.mechanism !== "bwrap") throw new Error(`expected bubblewrap here: ${sb.summary}`);
  return sb;
}

/** The wrapper of `line` (its `$$` picks the pool's first uid tried), for the shell. */
const wrapper = (sb: HostSandbox, line: string): string => confine(["sh", "-c", line], sb, { network: "none", timeout_sec: 20, run_id: "uidfiles" }).command;

/**
 * Runs `script` (sh) with umask 022 in a private mount namespace whose /run is `run` (bind mounted); `$W` is the
 * wrapper. The lock directory is then `run`/hostgate-uids and the userdb directory `run`/userdb.
 */
function inRun(run: string, script: string, w: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", `umask 022; mount --bind "$1" /run && cd / && W=$2 && ${script}`, "sh", run, w], { encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(missing !== null)("the bubblewrap wrapper's per-run uid files (issue 19 review leftovers)", () => {
  const made: string[] = [];
  const fresh = (): string => {
    const d = mkdtempSync(join(tmpdir(), "hg-uid-run-"));
    made.push(d);
    return d;
  };
  afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
  const sb = missing === null ? localBwrap() : (undefined as unknown as HostSandbox);
  const lockDir = (run: string): string => join(run, RUN_UID_POOL.lock_dir.slice("/run/".length));
  const userdbDir = (run: string): string => join(run, RUN_UID_POOL.userdb_dir.slice("/run/".length));

  it("refuses a uid lock directory whose mode is not 0700, saying which path, which mode and how to fix it", () => {
    const run = fresh();
    mkdirSync(lockDir(run), { mode: 0o755 });
    chmodSync(lockDir(run), 0o755);
    const r = inRun(run, `sh -c "$W"`, wrapper(sb, "echo ran"));
    // Before: only the owner was checked, so the command ran with its lock in a directory every user could enter.
    expect(r.status, r.stderr).toBe(125);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`hostgate: the uid lock directory ${RUN_UID_POOL.lock_dir} must be a directory root owns with mode 0700 (drwx------); it is drwxr-xr-x`);
    expect(r.stderr).toContain(`fix: chmod 0700 ${RUN_UID_POOL.lock_dir}`);
    expect(readdirSync(lockDir(run))).toEqual([]);
    // Group-readable is refused too; a directory another user owns, and a symlink, as before.
    chmodSync(lockDir(run), 0o750);
    expect(inRun(run, `sh -c "$W"`, wrapper(sb, "echo ran")).stderr).toContain("it is drwxr-x---");
    chmodSync(lockDir(run), 0o700);
    spawnSync("chown", ["65534", lockDir(run)]);
    const foreign = inRun(run, `sh -c "$W"`, wrapper(sb, "echo ran"));
    expect(foreign.status).toBe(125);
    expect(foreign.stderr).toMatch(/must be a directory root owns with mode 0700 \(drwx------\); it is drwx------ \d+ 65534 /);
    // A link to a directory root owns with mode 0700 is refused too (test -O follows it; the mode ls shows is the link's).
    rmSync(lockDir(run), { recursive: true });
    const target = join(run, "elsewhere");
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, lockDir(run));
    const linked = inRun(run, `sh -c "$W"`, wrapper(sb, "echo ran"));
    expect(linked.status, linked.stderr).toBe(125);
    expect(linked.stdout).toBe("");
    expect(linked.stderr).toMatch(/must be a directory root owns with mode 0700 \(drwx------\); it is lrwxrwxrwx /);
    expect(readdirSync(target)).toEqual([]);
  });

  it("makes a missing lock directory 0700 and its lock files 0600, and runs in it", () => {
    const run = fresh();
    const r = inRun(run, `sh -c "$W"`, wrapper(sb, "id -u"));
    expect(r.status, r.stderr).toBe(0);
    const uid = Number(r.stdout.trim());
    expect(uid).toBeGreaterThanOrEqual(RUN_UID_POOL.first);
    expect(statSync(lockDir(run)).mode & 0o7777).toBe(0o700);
    // Before: 0644 (the shell's umask), so any user who could enter the directory could flock another run's uid.
    expect(statSync(join(lockDir(run), String(uid))).mode & 0o7777).toBe(0o600);
    // The wrapper's umask is the command's again: a file it makes in its private /tmp is 0644.
    const umask = inRun(run, `sh -c "$W"`, wrapper(sb, "umask"));
    expect(umask.stdout.trim()).toBe("0022");
  });

  it("writes each userdb record whole: a reader sees a record absent or complete, never in part, over many writes", async () => {
    const run = fresh();
    const db = userdbDir(run);
    mkdirSync(db, { mode: 0o755 });
    // Written in place, a record name would be created empty, then written (inotify IN_CREATE then IN_MODIFY, which
    // fs.watch reports as "change"); written whole it only ever appears by a rename (IN_MOVED_TO: "rename").
    const changed: string[] = [];
    let sentinelSeen: () => void = () => undefined;
    const sentinel = new Promise<void>((res) => { sentinelSeen = res; });
    const watcher = watch(db, (event, name) => {
      if (name === "zz-sentinel") sentinelSeen();
      else if (event === "change" && name !== null && /\.(user|group)$/.test(name)) changed.push(name);
    });
    const rounds = 25;
    const done = join(run, "done");
    // Each round removes the records, so the next run (another `$$`, maybe another uid) writes them again.
    const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c",
      `umask 022; mount --bind "$1" /run && cd / && i=0; while [ $i -lt ${rounds} ]; do sh -c "$2" >/dev/null 2>&1; rm -f /run/userdb/*; i=$((i + 1)); done; : > /run/done`,
      "sh", run, wrapper(sb, "true")], { stdio: "ignore" });
    const exited = new Promise<number | null>((res) => { child.on("exit", (code) => { res(code); }); });
    // The reader, meanwhile: every record it finds must parse as the whole JSON object.
    let reads = 0;
    const partial: string[] = [];
    const until = Date.now() + 120_000;
    while (!existsSync(done) && Date.now() < until) {
      for (const name of readdirSync(db)) {
        if (!/\.(user|group)$/.test(name)) continue;
        let text: string;
        try {
          text = readFileSync(join(db, name), "utf8");
        } catch {
          continue; // removed between the listing and the read
        }
        reads++;
        try {
          const rec = JSON.parse(text) as Record<string, unknown>;
          if (typeof (rec.userName ?? rec.groupName) !== "string") partial.push(`${name}: ${text}`);
        } catch {
          partial.push(`${name}: ${JSON.stringify(text)}`);
        }
      }
    }
    expect(await exited).toBe(0);
    // inotify reports events in order: once a file made after the child exited is seen, every earlier event was.
    writeFileSync(join(db, "zz-sentinel"), "");
    await sentinel;
    watcher.close();
    expect(reads, "the reader saw records while they were written").toBeGreaterThan(0);
    expect(partial).toEqual([]);
    expect(changed).toEqual([]);
  }, 180_000);

  it("leaves whole records and no temporary file behind; a write that fails (a full file system) leaves neither", () => {
    const run = fresh();
    // The host's NSS reads the records where it asks nss-systemd (the probe's nss_systemd): the run's uid has a name.
    const r = inRun(run, `u=$(sh -c "$W") && echo "$u" && { [ -z "$NSS" ] || getent passwd "$u"; }`, wrapper(sb, "id -u"), { NSS: nssSystemd ? "1" : "" });
    expect(r.status, r.stderr).toBe(0);
    const uid = Number(r.stdout.split("\n")[0]);
    expect(uid).toBeGreaterThanOrEqual(RUN_UID_POOL.first);
    if (nssSystemd) expect(r.stdout.split("\n")[1]).toBe(`hostgate-sandbox-${uid}:x:${uid}:${uid}:hostgate sandbox run:/:/usr/sbin/nologin`);
    expect(readdirSync(userdbDir(run)).sort()).toEqual([`${uid}.group`, `${uid}.user`, `hostgate-sandbox-${uid}.group`, `hostgate-sandbox-${uid}.user`]);
    for (const name of readdirSync(userdbDir(run))) {
      const rec = JSON.parse(readFileSync(join(userdbDir(run), name), "utf8")) as { uid?: number; gid: number };
      expect(rec.gid).toBe(uid);
    }
    // /run/userdb on a full tmpfs: the record cannot be written. The command still runs (as an unnamed uid), and
    // the directory holds only what filled it: no empty record, no temporary file.
    const full = fresh();
    writeFileSync(join(full, "x"), "");
    const f = inRun(full, `mkdir /run/userdb && mount -t tmpfs -o size=64k tmpfs /run/userdb && { head -c 1048576 /dev/zero > /run/userdb/fill; } 2>/dev/null; sh -c "$W"; echo "status=$?"; ls -A /run/userdb`, wrapper(sb, "echo ran"));
    expect(f.stdout).toBe("ran\nstatus=0\nfill\n");
  });
});
