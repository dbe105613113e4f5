import { spawnSync } from "node:child_process";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";

/** Every entry under `root` with its permission bits (octal string), depth first. */
function modes(root: string): Array<{ path: string; kind: "dir" | "file"; mode: string }> {
  const out: Array<{ path: string; kind: "dir" | "file"; mode: string }> = [];
  const walk = (p: string): void => {
    const st = lstatSync(p);
    out.push({ path: p, kind: st.isDirectory() ? "dir" : "file", mode: (st.mode & 0o777).toString(8) });
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
  };
  walk(root);
  return out;
}

// Issue 25, trial finding 1: a daemon given its own state directory under a 0755 directory, run with umask 022
// (outside the packaged unit's UMask=0077), left audit.db and state.db 0644. Every file it creates there must be
// 0600 and every directory 0700, whatever the umask, SQLite's -wal/-shm side files included.
describe("state directory modes under umask 022 (issue 25)", () => {
  let d: DaemonProcess;
  let dir: string;
  const umask022 = ["sh", "-c", 'umask 022 && exec "$@"', "sh"];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "hg-modes-"));
    chmodSync(dir, 0o755);
    d = await startDaemon("", { dir, wrap: umask022, env: { HOSTGATE_CONFIG_DIR: join(dir, "etc"), HOSTGATE_CHECKPOINT_COPY: join(dir, "log", "checkpoints.jsonl") } });
    // A plan opens state.db and writes audit entries (audit.db, keys, checkpoint).
    const r = await rawIpc(d.agentSocket, "plan", { host: "local", steps: [{ action: "WriteFile", params: { path: join(dir, "target.txt"), content: "x\n" } }] });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  }, 30_000);
  afterAll(async () => {
    await d?.stop();
    spawnSync("chattr", ["-R", "-a", join(dir, "log")]); // the system daemon made its checkpoint copy append-only
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves no file readable by group or others and no directory open to them", () => {
    const state = join(dir, "state");
    const seen = modes(state);
    const names = seen.map((e) => e.path.slice(state.length));
    // The files the trial found 0644 are there (so the check below is not vacuous).
    expect(names).toEqual(expect.arrayContaining(["/audit.db", "/state.db"]));
    expect(names.some((n) => n.endsWith("-wal"))).toBe(true);
    const wrong = seen.filter((e) => e.mode !== (e.kind === "dir" ? "700" : "600"));
    expect(wrong).toEqual([]);
  });

  it("fixes the modes of databases and directories an older daemon left open, at the next start", async () => {
    await d.stop();
    const state = join(dir, "state");
    // Not the key files: a signing key others could read is refused, not repaired (signer-ed25519.ts).
    for (const e of modes(state)) if (!e.path.includes("/audit-keys/")) chmodSync(e.path, e.kind === "dir" ? 0o755 : 0o644);
    d = await startDaemon("", { dir, wrap: umask022, env: { HOSTGATE_CONFIG_DIR: join(dir, "etc"), HOSTGATE_CHECKPOINT_COPY: join(dir, "log", "checkpoints.jsonl") } });
    const r = await rawIpc(d.agentSocket, "plan", { host: "local", steps: [{ action: "WriteFile", params: { path: join(dir, "target.txt"), content: "y\n" } }] });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const wrong = modes(state).filter((e) => e.mode !== (e.kind === "dir" ? "700" : "600"));
    expect(wrong).toEqual([]);
  }, 30_000);
});
