// `hostgate config path|check|show` and `hostgate completion bash|zsh` as processes.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHostgate, writeConfig } from "../helpers/hostgate.ts";
import { redactConfig } from "../../src/cli/config.ts";

const TOKEN = "x".repeat(40);

describe("hostgate config", () => {
  it("show: the effective configuration with every secret redacted", async () => {
    const path = writeConfig(`server:\n  token: abcdefghijklmnopqrstuv\ndaemon:\n  token: ${TOKEN}\n  socket: tcp://127.0.0.1:7420\nplanner:\n  mode: llm\n  llm:\n    base_url: https://bob:hunter2@llm.example/v1\n    model: m\n    api_key_env: OPENAI_API_KEY\n`);
    const r = await runHostgate(["config", "show", "--config", path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`# from: ${path}`);
    expect(r.stdout).not.toContain(TOKEN);
    expect(r.stdout).not.toContain("abcdefghijklmnopqrstuv");
    expect(r.stdout).not.toContain("hunter2");
    expect(r.stdout).toMatch(/token: <redacted>[\s\S]*token: <redacted>/);
    expect(r.stdout).toContain("api_key_env: OPENAI_API_KEY");
    expect(r.stdout).toContain("port: 48000"); // defaults are shown too
  });

  it("check: exit 0 and the source when valid; exit 1 and every problem when not", async () => {
    expect(await runHostgate(["config", "check", "--config", writeConfig("server:\n  port: 0\n")])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^valid: /) as unknown });
    const bad = await runHostgate(["config", "check", "--config", writeConfig("server:\n  port: -1\nbogus: 1\n")]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/unknown key\(s\) "bogus"/);
    expect(bad.stdout).toMatch(/server\.port/);
    const absent = await runHostgate(["config", "check", "--config", "/nonexistent/hostgate.yaml"]);
    expect(absent.code).toBe(1);
    expect(absent.stdout).toMatch(/does not exist/);
  });

  it("check and show take the file as an argument too; a second, different file by --config is refused (exit 2)", async () => {
    const good = writeConfig("server:\n  port: 48123\n");
    expect(await runHostgate(["config", "check", good])).toMatchObject({ code: 0, stdout: `valid: ${good}\n` });
    expect((await runHostgate(["config", "show", good])).stdout).toContain("port: 48123");
    const bad = await runHostgate(["config", "check", writeConfig("bogus: 1\n")]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/unknown key\(s\) "bogus"/);
    const both = await runHostgate(["config", "check", good, "--config", "/etc/other.yaml"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/two configuration files given .*give one/);
  });

  it("T2-22: a repeated key (tools.exposure twice, server twice) is refused, by check (exit 1) and at start (exit 2), naming where", async () => {
    const path = writeConfig("tools:\n  exposure: read_only\n  exposure: all\nserver:\n  port: 1\nserver:\n  port: 2\n");
    const check = await runHostgate(["config", "check", "--config", path]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/keys must be unique at line 3[\s\S]*exposure: all/);
    expect(check.stdout).toMatch(/unique at line 6[\s\S]*server:/);
    const start = await runHostgate(["mcp", "--config", path]);
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/keys must be unique at line 3/);
  });

  it("T2-23: a typo in a security key (tools.exposre) is refused, never the permissive default", async () => {
    const path = writeConfig("tools:\n  exposre: read_only\n");
    const check = await runHostgate(["config", "check", "--config", path]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/tools: unknown key\(s\) "exposre"/);
    expect((await runHostgate(["serve", "--port", "0", "--config", path])).code).toBe(2);
    const show = await runHostgate(["config", "show", "--config", path]);
    expect(show.code).toBe(1);
    expect(show.stdout).not.toMatch(/exposure: all/);
  });

  it("path: the file in use; --all lists every place looked at", async () => {
    const path = writeConfig("{}\n");
    expect((await runHostgate(["config", "path", "--config", path])).stdout.trim()).toBe(path);
    const all = await runHostgate(["config", "path", "--all", "--config", path]);
    expect(all.stdout).toContain(`* ${path}  (--config)`);
    // The system file is /etc/hostgate/config.yaml, moved with HOSTGATE_CONFIG_DIR (which the test run sets).
    expect(all.stdout).toContain(`${join(process.env.HOSTGATE_CONFIG_DIR ?? "/etc/hostgate", "config.yaml")}  (system default`);
  });

  it("check warns about each file holding daemon.token or server.token that others can read (file and drop-in); exit stays 0", async () => {
    const path = writeConfig(`daemon:\n  token: ${TOKEN}\n`);
    chmodSync(path, 0o644);
    const dropIns = join(dirname(path), "config.d");
    mkdirSync(dropIns);
    const dropIn = join(dropIns, "10-serve.yaml");
    writeFileSync(dropIn, "server:\n  token: abcdefghijklmnopqrstuv\n", { mode: 0o644 });
    writeFileSync(join(dropIns, "20-plain.yaml"), "server:\n  port: 48001\n", { mode: 0o644 });
    const open = await runHostgate(["config", "check", "--config", path]);
    expect(open.code).toBe(0);
    expect(open.stdout).toContain(`warning: ${path} holds daemon.token and is readable by every user (mode 0644)\n  fix: chmod o-r ${path}`);
    expect(open.stdout).toContain(`warning: ${dropIn} holds server.token and is readable by every user (mode 0644)`);
    expect(open.stdout).not.toContain("20-plain.yaml holds");
    expect(open.stdout).not.toContain(TOKEN);
    chmodSync(path, 0o600);
    chmodSync(dropIn, 0o640);
    const closed = await runHostgate(["config", "check", "--config", path]);
    expect(closed.code).toBe(0);
    expect(closed.stdout).not.toMatch(/warning/);
  });

  it("doctor warns about a token file readable by others, with the fix", async () => {
    const path = writeConfig(`daemon:\n  token: ${TOKEN}\n  socket: tcp://127.0.0.1:1\n`);
    chmodSync(path, 0o604);
    const r = await runHostgate(["doctor", "--no-clients", "--config", path], { timeoutMs: 60_000 });
    expect(r.stdout).toContain(`! token file: ${path} holds daemon.token and is readable by every user (mode 0604)\n      fix: chmod o-r ${path}`);
    expect(r.stdout).not.toContain(TOKEN);
    chmodSync(path, 0o600);
    expect((await runHostgate(["doctor", "--no-clients", "--config", path], { timeoutMs: 60_000 })).stdout).not.toMatch(/token file/);
  });

  it("redaction keeps names of variables and non-secret values", () => {
    expect(redactConfig({ a: { token: "t", api_key_env: "K", client_secret: "s", url: "http://u:p@h/", plain: "v" } })).toEqual({ a: { token: "<redacted>", api_key_env: "K", client_secret: "<redacted>", url: "http://u:<redacted>@h/", plain: "v" } });
  });
});

describe("hostgate completion", () => {
  it("bash: a script bash accepts, completing subcommands and options", async () => {
    const r = await runHostgate(["completion", "bash"]);
    expect(r.code).toBe(0);
    // Load it into a real bash and ask it to complete `hostgate se` and `hostgate setup --cl`.
    const probe = (line: string) => spawnSync("bash", ["-c", `${r.stdout}\nCOMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _hostgate; echo "\${COMPREPLY[*]}"`], { encoding: "utf8" }).stdout.trim();
    expect(probe("hostgate se").split(" ").sort()).toEqual(["serve", "setup"]);
    expect(probe("hostgate setup --cl").split(" ").sort()).toEqual(["--claude", "--claude-desktop", "--cline"]);
    expect(probe("hostgate daemon ins")).toBe("install");
  });

  it("zsh: a compdef script; an unknown shell is exit 2", async () => {
    const z = await runHostgate(["completion", "zsh"]);
    expect(z.stdout).toMatch(/^#compdef hostgate/);
    expect(z.stdout).toContain("'daemon install'");
    expect((await runHostgate(["completion", "fish"])).code).toBe(2);
  });
});
