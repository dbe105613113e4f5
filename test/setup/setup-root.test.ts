// Issue 21: `hostgate setup` run as root for another user's home (uid 65534 here, `nobody`, with a temp home
// it owns). Real symlinks planted by that user into root-owned directories, a real rename race on the user's
// hostgate config directory, and the user's own dotfile link (T3-32) which must keep working.
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHostgate } from "../helpers/hostgate.ts";
import { clientFile, freshHome, otherServers } from "./fixtures.ts";

const USER = 65534;
const isRoot = process.getuid?.() === 0;
const made: string[] = [];
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

/** A home owned by USER (mode 0755 so the test, as root, can look in), with the fixture's pinned env. */
function userHome(tag: string): { home: string; cwd: string; env: NodeJS.ProcessEnv } {
  const fx = freshHome(`root-${tag}`);
  chownSync(fx.home, USER, USER);
  chownSync(fx.cwd, USER, USER);
  return fx;
}

/** mkdir -p as USER below `home`. */
function userDir(home: string, rel: string): string {
  let cur = home;
  for (const part of rel.split("/")) {
    cur = join(cur, part);
    if (!existsSync(cur)) { mkdirSync(cur, { mode: 0o755 }); chownSync(cur, USER, USER); }
  }
  return cur;
}

/** A directory root owns, standing in for /etc/hostgate or another root-only place, outside the home. */
function rootDir(tag: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `hg-root-${tag}-`)));
  chmodSync(d, 0o755); // readable by all, writable by root alone, as /etc/hostgate is
  made.push(d);
  return d;
}

/** A symlink created and owned by USER, as that user would plant it. */
function userLink(target: string, path: string): void {
  symlinkSync(target, path);
  lchownSync(path, USER, USER);
}

function setup(env: NodeJS.ProcessEnv, cwd: string, args: string[]) {
  return runHostgate(["setup", "--yes", ...args], { env, cwd, timeoutMs: 60_000 });
}

describe.skipIf(!isRoot)("setup as root for another user's home (issue 21)", () => {
  it("runs as the home's owner: files it creates belong to that user", async () => {
    const { env, cwd, home } = userHome("owner");
    const r = await setup(env, cwd, ["--cursor", "--socket", "/run/hostgate/agent.sock"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toMatch(/belongs to uid 65534: running as that user/);
    for (const p of [clientFile("cursor", home, cwd), join(home, ".cursor"), join(home, ".config", "hostgate", "config.yaml")]) {
      expect(statSync(p).uid, p).toBe(USER);
    }
  });

  it("root's own XDG_RUNTIME_DIR never reaches the user's entry (newcomer trial: HOME set by hand, not sudo)", async () => {
    const { env, cwd, home } = userHome("runtime");
    const r = await setup({ ...env, XDG_RUNTIME_DIR: "/run/user/0" }, cwd, ["--cursor"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const entry = readFileSync(clientFile("cursor", home, cwd), "utf8");
    expect(entry).not.toContain("/run/user/0");
  });

  it("~/.cursor as a symlink to a root-owned directory: the root-owned mcp.json there is not edited", async () => {
    const { env, cwd, home } = userHome("dirlink");
    const victimDir = rootDir("cursor");
    const victim = join(victimDir, "mcp.json");
    writeFileSync(victim, otherServers("cursor"), { mode: 0o644 });
    userLink(victimDir, join(home, ".cursor"));
    const r = await setup(env, cwd, ["--cursor"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ Cursor: .*mcp\.json: not written: .*EACCES/);
    expect(readFileSync(victim, "utf8")).toBe(otherServers("cursor"));
    expect(readdirSync(victimDir)).toEqual(["mcp.json"]);
  });

  it("~/.codex as a symlink to an empty root-owned directory: no file is created there", async () => {
    const { env, cwd, home } = userHome("codexlink");
    const victimDir = rootDir("codex");
    userLink(victimDir, join(home, ".codex"));
    const r = await setup(env, cwd, ["--codex"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ Codex CLI: .*config\.toml: not written: .*EACCES/);
    expect(readdirSync(victimDir)).toEqual([]);
  });

  it("~/.config/hostgate as a symlink to a root-owned stand-in for /etc/hostgate: nothing written there", async () => {
    const { env, cwd, home } = userHome("cfglink");
    const standIn = rootDir("etc-hostgate");
    userDir(home, ".config");
    userLink(standIn, join(home, ".config", "hostgate"));
    const r = await setup(env, cwd, ["--cursor", "--socket", "/run/hostgate/agent.sock"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ hostgate config: .*not written: .*EACCES/);
    expect(readdirSync(standIn)).toEqual([]);
  });

  it("a rename race on ~/.config/hostgate (swapped for a link to a root-owned stand-in) never lands the user's config there", async () => {
    const { env, cwd, home } = userHome("race");
    const standIn = rootDir("race-etc");
    const cfgDir = userDir(home, ".config/hostgate");
    const userText = "# mine\napproval:\n  same_user: allow\nexec:\n  allow_unverified: true\n";
    writeFileSync(join(cfgDir, "config.yaml"), userText);
    chownSync(join(cfgDir, "config.yaml"), USER, USER);
    // The racer runs as the user, as the attacker would: real dir ↔ link to the stand-in, as fast as it can.
    const racer = spawn("setpriv", ["--reuid", String(USER), "--regid", String(USER), "--clear-groups", process.execPath, "-e", `
      const fs = require("node:fs");
      const [dir, real, target] = process.argv.slice(1);
      let swaps = 0;
      // The link stays ≈ 300 µs, the real directory ≈ 30 µs: most of setup's path lookups meet the link.
      const spin = (ns) => { const t = process.hrtime.bigint(); while (process.hrtime.bigint() - t < ns); };
      process.on("SIGTERM", () => { process.stdout.write(String(swaps)); process.exit(0); });
      const round = () => {
        for (let k = 0; k < 200; k++) {
          try { fs.renameSync(dir, real); fs.symlinkSync(target, dir); spin(300000n); fs.unlinkSync(dir); fs.renameSync(real, dir); swaps++; spin(30000n); } catch { try { fs.unlinkSync(dir); } catch {} try { fs.renameSync(real, dir); } catch {} }
        }
        setImmediate(round); // lets SIGTERM in
      };
      round();`, cfgDir, `${cfgDir}.real`, standIn], { stdio: ["ignore", "pipe", "inherit"] });
    let swaps = "";
    racer.stdout.on("data", (c: Buffer) => { swaps += c.toString(); });
    try {
      for (let run = 0; run < 3; run++) {
        const r = await setup(env, cwd, ["--cursor", "--socket", `/run/hostgate/agent-${run}.sock`]);
        expect(readdirSync(standIn), `run ${run}: ${r.stdout}`).toEqual([]);
      }
    } finally {
      const exited = new Promise((done) => racer.once("exit", done));
      racer.kill("SIGTERM");
      const stuck = setTimeout(() => racer.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(stuck);
    }
    expect(Number(swaps), "the racer really swapped the directory while setup ran").toBeGreaterThan(100);
    expect(readdirSync(standIn)).toEqual([]);
    // Whatever won each round, what the user's directory holds is the user's, never root's.
    for (const d of [cfgDir, `${cfgDir}.real`]) {
      if (!existsSync(d) || lstatSync(d).isSymbolicLink()) continue;
      for (const n of readdirSync(d)) expect(statSync(join(d, n)).uid, n).toBe(USER);
    }
  }, 180_000);

  it("T3-32 as root: the user's own ~/.cursor/mcp.json link into their dotfiles is kept, the target edited, its backup beside it (0600, the user's)", async () => {
    const { env, cwd, home } = userHome("t3-32");
    const dotfiles = userDir(home, "dotfiles");
    const real = join(dotfiles, "cursor-mcp.json");
    writeFileSync(real, otherServers("cursor"), { mode: 0o644 });
    chownSync(real, USER, USER);
    const link = join(userDir(home, ".cursor"), "mcp.json");
    userLink(real, link);
    const r = await setup(env, cwd, ["--cursor"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8"))).toMatchObject({ mcpServers: { docs: { command: "npx" }, hostgate: { args: [expect.stringMatching(/hostgate\.js$/), "mcp"] } } });
    expect(statSync(real).uid).toBe(USER);
    const backups = readdirSync(dotfiles).filter((n) => n.startsWith("cursor-mcp.json.hostgate-backup-"));
    expect(backups).toHaveLength(1);
    const backup = join(dotfiles, backups[0]!);
    expect(readFileSync(backup, "utf8")).toBe(otherServers("cursor"));
    expect(statSync(backup).mode & 0o777).toBe(0o600);
    expect(statSync(backup).uid).toBe(USER);
    expect(readdirSync(dirname(link)).filter((n) => n.includes("backup"))).toEqual([]);
  });

  it("a home that does not exist is refused with what to do", async () => {
    const { env, cwd } = freshHome("root-nohome");
    const r = await setup({ ...env, HOME: "/nonexistent/home" }, cwd, ["--cursor"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/nonexistent\/home does not exist; set HOME to the user's home directory/);
  });
});
