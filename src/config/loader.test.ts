import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./loader.ts";

const dir = mkdtempSync(join(tmpdir(), "hostgate-config-"));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

let n = 0;
function file(yaml: string): string {
  const p = join(dir, `config-${n++}.yaml`);
  writeFileSync(p, yaml);
  return p;
}

const NO_DEFAULT = join(dir, "absent-default.yaml");

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("uses built-in defaults when no path is given and the default file is absent", () => {
    const { config, source } = loadConfig({ defaultPath: NO_DEFAULT, env: {} });
    expect(source).toBe("built-in defaults");
    expect(config.server).toMatchObject({ host: "127.0.0.1", port: 48000, allowed_hosts: [], allowed_origins: [], max_body_bytes: 4194304 });
    expect(config.server.token).toBeUndefined();
    expect(config.tools).toEqual({ exposure: "all", groups: {}, enable: [], disable: [] });
  });

  it("reads the default path when it exists", () => {
    const p = file("server:\n  port: 5000\n");
    const { config, source } = loadConfig({ defaultPath: p, env: {} });
    expect(source).toBe(p);
    expect(config.server.port).toBe(5000);
    expect(config.server.host).toBe("127.0.0.1");
  });

  it("reads an explicit file and fills in defaults", () => {
    const p = file("tools:\n  exposure: read_only\n  groups:\n    logs: false\n  disable: [plan]\n");
    const { config } = loadConfig({ path: p, defaultPath: NO_DEFAULT, env: {} });
    expect(config.tools).toEqual({ exposure: "read_only", groups: { logs: false }, enable: [], disable: ["plan"] });
    expect(config.server.port).toBe(48000);
  });

  it("treats an empty file as all defaults", () => {
    expect(loadConfig({ path: file(""), env: {} }).config.server.port).toBe(48000);
  });

  it("rejects a missing explicit path, saying it does not exist", () => {
    const missing = join(dir, "nope.yaml");
    const err = configError(() => loadConfig({ path: missing, env: {} }));
    expect(err.message).toContain(missing);
    expect(err.message).toContain("does not exist");
  });

  it("rejects an unknown root key, naming it", () => {
    const err = configError(() => loadConfig({ path: file("server: {}\nbogus_key: 1\n"), env: {} }));
    expect(err.message).toContain('"bogus_key"');
  });

  it("rejects an unknown nested key, naming it and its parent", () => {
    const err = configError(() => loadConfig({ path: file("server:\n  prot: 8080\n"), env: {} }));
    expect(err.message).toMatch(/server: unknown key\(s\) "prot"/);
  });

  it("suggests the key a typo was meant to be, at the root and nested, and nothing for a word far from any key", () => {
    expect(configError(() => loadConfig({ path: file("aproval:\n  same_user: true\n"), env: {} })).message).toContain('(root): unknown key(s) "aproval" (did you mean "approval"?)');
    expect(configError(() => loadConfig({ path: file("server:\n  prot: 8080\n"), env: {} })).message).toContain('"prot" (did you mean "port"?)');
    expect(configError(() => loadConfig({ path: file("tools:\n  groups:\n    sytemd: false\n"), env: {} })).message).toContain('"sytemd" (did you mean "systemd"?)');
    const far = configError(() => loadConfig({ path: file("zzzzzz: 1\n"), env: {} })).message;
    expect(far).toContain('unknown key(s) "zzzzzz"');
    expect(far).not.toContain("did you mean");
  });

  it("rejects an unknown group name", () => {
    const err = configError(() => loadConfig({ path: file("tools:\n  groups:\n    gaming: true\n"), env: {} }));
    expect(err.message).toMatch(/tools\.groups: unknown key\(s\) "gaming"/);
  });

  it.each(["70000", "-1", "80.5", '"80"'])("rejects port %s, naming server.port", (port) => {
    const err = configError(() => loadConfig({ path: file(`server:\n  port: ${port}\n`), env: {} }));
    expect(err.message).toContain("server.port");
  });

  it("rejects a tool in both enable and disable", () => {
    const err = configError(() => loadConfig({ path: file("tools:\n  enable: [get_load]\n  disable: [get_load]\n"), env: {} }));
    expect(err.message).toContain("tools");
    expect(err.message).toContain("tools.enable");
    expect(err.message).toContain("tools.disable");
  });

  it("lists every problem in one error", () => {
    const err = configError(() => loadConfig({ path: file("server:\n  port: 99999\n  host: ''\nextra: 1\n"), env: {} }));
    expect(err.message).toContain("server.port");
    expect(err.message).toContain("server.host");
    expect(err.message).toContain('"extra"');
  });

  it("rejects invalid YAML, duplicate keys and a non-mapping top level", () => {
    expect(configError(() => loadConfig({ path: file("server: [unclosed\n"), env: {} })).message).toContain("not valid YAML");
    expect(configError(() => loadConfig({ path: file("server: {}\nserver: {}\n"), env: {} })).message).toContain("not valid YAML");
    expect(configError(() => loadConfig({ path: file("- a\n- b\n"), env: {} })).message).toContain("mapping");
    expect(configError(() => loadConfig({ path: file("just a string\n"), env: {} })).message).toContain("mapping");
  });

  it("applies HOSTGATE_HTTP_TOKEN over the file's token", () => {
    const p = file(`server:\n  token: ${"f".repeat(16)}\n`);
    expect(loadConfig({ path: p, env: {} }).config.server.token).toBe("f".repeat(16));
    expect(loadConfig({ path: p, env: { HOSTGATE_HTTP_TOKEN: "e".repeat(20) } }).config.server.token).toBe("e".repeat(20));
    expect(loadConfig({ path: p, env: { HOSTGATE_HTTP_TOKEN: "" } }).config.server.token).toBe("f".repeat(16));
  });

  it("does not leak an env token into a later load through shared defaults", () => {
    expect(loadConfig({ defaultPath: NO_DEFAULT, env: { HOSTGATE_HTTP_TOKEN: "t".repeat(16) } }).config.server.token).toBe("t".repeat(16));
    expect(loadConfig({ defaultPath: NO_DEFAULT, env: {} }).config.server.token).toBeUndefined();
  });

  it("rejects tokens shorter than 16 characters from env or file", () => {
    expect(configError(() => loadConfig({ defaultPath: NO_DEFAULT, env: { HOSTGATE_HTTP_TOKEN: "short" } })).message).toContain("HOSTGATE_HTTP_TOKEN");
    expect(configError(() => loadConfig({ defaultPath: NO_DEFAULT, env: { HOSTGATE_HTTP_TOKEN: "x".repeat(15) } })).message).toContain("16");
    expect(configError(() => loadConfig({ path: file("server:\n  token: tooshort\n"), env: {} })).message).toContain("server.token");
  });

  it("applies flag overrides last", () => {
    const p = file("server:\n  host: 127.0.0.2\n  port: 5000\n");
    const { config } = loadConfig({ path: p, env: {}, overrides: { host: "::1", port: 6000 } });
    expect(config.server.host).toBe("::1");
    expect(config.server.port).toBe(6000);
  });
});
