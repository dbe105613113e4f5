import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfigPaths, discoverConfig } from "./discover.ts";
import { ENV_VARS } from "./env.ts";
import { ConfigError, loadConfig } from "./loader.ts";

const tmp = (): string => mkdtempSync(join(tmpdir(), `hg-seams-config-${process.pid}-`));
const write = (path: string, text: string): string => { mkdirSync(join(path, ".."), { recursive: true }); writeFileSync(path, text); return path; };

describe("one precedence: defaults → file → drop-ins → environment → flags", () => {
  it("applies drop-ins in name order over the file, the environment over both, flags last", () => {
    const dir = tmp();
    const file = write(join(dir, "config.yaml"), "server:\n  port: 1000\n  host: 127.0.0.2\ndaemon:\n  socket: /from/file.sock\nstate:\n  dir: /from/file\n");
    write(join(dir, "config.d", "20-port.yaml"), "server:\n  port: 2000\n");
    write(join(dir, "config.d", "10-port.yaml"), "server:\n  port: 1500\n  allowed_hosts: [a]\n");
    write(join(dir, "config.d", "30-hosts.yaml"), "server:\n  allowed_hosts: [b, c]\n");
    write(join(dir, "config.d", "notes.txt"), "not: yaml config\n");
    const env = { HOSTGATE_SOCKET: "/from/env.sock", HOSTGATE_STATE_DIR: "/from/env" };
    const { config, source } = loadConfig({ path: file, env });
    expect(config.server.port).toBe(2000);
    expect(config.server.host).toBe("127.0.0.2");
    expect(config.server.allowed_hosts).toEqual(["b", "c"]);
    expect(config.daemon.socket).toBe("/from/env.sock");
    expect(config.state.dir).toBe("/from/env");
    expect(source).toBe(`${file} + ${join(dir, "config.d", "10-port.yaml")} + ${join(dir, "config.d", "20-port.yaml")} + ${join(dir, "config.d", "30-hosts.yaml")}`);
    expect(loadConfig({ path: file, env, overrides: { port: 3000 } }).config.server.port).toBe(3000);
  });

  it("finds the file: --config, then $HOSTGATE_CONFIG, then $XDG_CONFIG_HOME/hostgate/config.yaml, then the system file", () => {
    const dir = tmp();
    const user = write(join(dir, "xdg", "hostgate", "config.yaml"), "server:\n  port: 4001\n");
    const named = write(join(dir, "named.yaml"), "server:\n  port: 4002\n");
    const flag = write(join(dir, "flag.yaml"), "server:\n  port: 4003\n");
    const env = { XDG_CONFIG_HOME: join(dir, "xdg") };
    expect(discoverConfig({ env }).file).toBe(user);
    expect(discoverConfig({ env }).candidates.map((c) => c.why)).toEqual(["user default", "system default"]);
    expect(loadConfig({ env }).config.server.port).toBe(4001);
    expect(loadConfig({ env: { ...env, HOSTGATE_CONFIG: named } }).config.server.port).toBe(4002);
    expect(loadConfig({ path: flag, env: { ...env, HOSTGATE_CONFIG: named } }).config.server.port).toBe(4003);
    expect(discoverConfig({ flag, env: { ...env, HOSTGATE_CONFIG: named } }).candidates.map((c) => c.why)).toEqual(["--config", "$HOSTGATE_CONFIG", "user default", "system default"]);
  });

  it("$HOSTGATE_CONFIG_DIR moves the system file (/etc/hostgate/config.yaml) and leaves the user's first", () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-sysdir-"));
    try {
      const system = write(join(dir, "etc", "config.yaml"), "server:\n  port: 4011\n");
      const env = { XDG_CONFIG_HOME: join(dir, "xdg"), HOSTGATE_CONFIG_DIR: join(dir, "etc") };
      expect(defaultConfigPaths(env)).toEqual([join(dir, "xdg", "hostgate", "config.yaml"), system]);
      expect(loadConfig({ env }).config.server.port).toBe(4011);
      write(join(dir, "xdg", "hostgate", "config.yaml"), "server:\n  port: 4012\n");
      expect(loadConfig({ env }).config.server.port).toBe(4012);
      expect(defaultConfigPaths({ XDG_CONFIG_HOME: "/x" })[1]).toBe("/etc/hostgate/config.yaml");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says what to do when $HOSTGATE_CONFIG names a missing file, a drop-in is not YAML, or an environment value is bad", () => {
    const dir = tmp();
    expect(() => loadConfig({ env: { HOSTGATE_CONFIG: join(dir, "nope.yaml") } })).toThrow(/does not exist.*HOSTGATE_CONFIG/);
    const file = write(join(dir, "c", "config.yaml"), "server: {}\n");
    write(join(dir, "c", "config.d", "50-bad.yaml"), "server: [unclosed\n");
    expect(() => loadConfig({ path: file, env: {} })).toThrow(/50-bad\.yaml is not valid YAML/);
    const other = write(join(dir, "d", "config.yaml"), "server: {}\n");
    let err: unknown;
    try { loadConfig({ path: other, env: { HOSTGATE_STATE_DIR: "relative/dir" } }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain("state.dir (from HOSTGATE_STATE_DIR)");
  });

  it("an unknown key in a drop-in is an error, like in the file", () => {
    const dir = tmp();
    const file = write(join(dir, "config.yaml"), "server: {}\n");
    write(join(dir, "config.d", "10.yaml"), "server:\n  prot: 1\n");
    expect(() => loadConfig({ path: file, env: {} })).toThrow(/server: unknown key\(s\) "prot"/);
  });
});

describe("environment variables", () => {
  it("every HOSTGATE_* name read in src/ is listed in config/env.ts and in the generated docs/configuration.md", () => {
    const root = join(import.meta.dirname, "..");
    const names = new Set<string>();
    const walk = (d: string): void => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith(".ts") && !p.endsWith(".test.ts")) for (const m of readFileSync(p, "utf8").matchAll(/\bHOSTGATE_[A-Z][A-Z_]*[A-Z]\b/g)) names.add(m[0]);
      }
    };
    walk(root);
    // Constant names that only look like variables (not read from the environment).
    names.delete("HOSTGATE_ROOTS");
    // Set by hostgate for the skill scripts it runs (app/skills/exec.ts), never read by hostgate: docs/skills.md.
    names.delete("HOSTGATE_SKILL");
    names.delete("HOSTGATE_SKILL_DIGEST");
    const listed = new Set(ENV_VARS.map((v) => v.name));
    const doc = readFileSync(join(root, "..", "docs", "configuration.md"), "utf8");
    for (const n of names) {
      expect(listed, `${n} is read in src/ but missing from config/env.ts`).toContain(n);
      expect(doc, `${n} missing from docs/configuration.md (run npx tsx scripts/gen-docs.ts)`).toContain(`\`${n}\``);
    }
    expect(names.size).toBeGreaterThanOrEqual(8);
  });
});
