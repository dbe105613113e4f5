// YAML client files (Goose's extensions map, Continue's mcpServers list) beyond the common cases of
// setup-clients.test.ts: files as the clients write them, refusals that say what to do, keys written once.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { applyPlan, planSetup, planSucceeded, type SetupChoices } from "../../src/cli/setup-run.ts";
import type { ClientId } from "../../src/core/clients/catalog.ts";
import { clientFile, freshHome, seed } from "./fixtures.ts";

function run(id: ClientId, env: NodeJS.ProcessEnv, cwd: string, extra: Partial<SetupChoices> = {}) {
  const plan = planSetup({ clients: [id], transport: "stdio", socket: null, url: "http://127.0.0.1:48000/mcp", planner: null, claudeScope: "user", ...extra }, env, cwd);
  const applied = applyPlan(plan);
  return { file: plan.files.find((f) => f.target === id)!, ok: planSucceeded(plan, applied) };
}

/** A Goose config.yaml as Goose itself writes it (serde_yaml: lists at their key's column, keys sorted). */
const GOOSE_WRITTEN = `GOOSE_MODEL: gpt-5
GOOSE_PROVIDER: openai
extensions:
  developer:
    available_tools: []
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  github:
    args:
    - -y
    - '@modelcontextprotocol/server-github'
    cmd: npx
    enabled: false
    envs: {}
    name: GitHub
    type: stdio
`;

describe("setup: Goose", () => {
  it("a file Goose wrote keeps every line byte for byte; our extension is added beside the others", () => {
    const { env, cwd, home } = freshHome("goose-real");
    const path = clientFile("goose", home, cwd);
    seed(path, GOOSE_WRITTEN);
    expect(run("goose", env, cwd).file.result.status).toBe("updated");
    const text = readFileSync(path, "utf8");
    expect(text.startsWith(GOOSE_WRITTEN)).toBe(true);
    const doc = parseYaml(text) as { extensions: Record<string, Record<string, unknown>> };
    expect(doc.extensions.hostgate).toMatchObject({ type: "stdio", enabled: true, name: "hostgate", timeout: 300 });
    expect(Object.keys(doc.extensions)).toEqual(["developer", "github", "hostgate"]);
  });

  it("an old entry without the keys written once (timeout, description) gets them; its other keys stay", () => {
    const { env, cwd, home } = freshHome("goose-old");
    const path = clientFile("goose", home, cwd);
    seed(path, "extensions:\n  hostgate:\n    type: stdio\n    cmd: /old/hostgate\n    args: [mcp]\n    bundled: false\n");
    expect(run("goose", env, cwd).file.result.status).toBe("updated");
    const e = (parseYaml(readFileSync(path, "utf8")) as { extensions: { hostgate: Record<string, unknown> } }).extensions.hostgate;
    expect(e).toMatchObject({ timeout: 300, bundled: false, description: expect.any(String) as unknown });
    expect(e.cmd).not.toBe("/old/hostgate");
  });

  it("a repeated key is refused (readers keep one of them); the file is left as it was", () => {
    const { env, cwd, home } = freshHome("goose-dup");
    const path = clientFile("goose", home, cwd);
    const text = "extensions:\n  docs:\n    cmd: a\nextensions:\n  other:\n    cmd: b\n";
    seed(path, text);
    const r = run("goose", env, cwd);
    expect(r.file.result).toMatchObject({ status: "malformed", reason: expect.stringMatching(/not valid YAML: .*unique/i) as unknown });
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("`extensions` that is not a mapping is refused with where", () => {
    const { env, cwd, home } = freshHome("goose-shape");
    seed(clientFile("goose", home, cwd), "extensions:\n  - developer\n");
    expect(run("goose", env, cwd).file.result).toMatchObject({ status: "malformed", reason: "`extensions` is not a mapping" });
  });
});

describe("setup: Continue", () => {
  it("adds an item to the mcpServers list; a second run finds it by name and changes nothing", () => {
    const { env, cwd, home } = freshHome("continue-list");
    const path = clientFile("continue", home, cwd);
    seed(path, "name: Mine\nversion: 0.0.1\nschema: v1\nmodels:\n  - name: local\n    provider: ollama\n    model: qwen\nmcpServers:\n  - name: docs\n    command: npx\n");
    expect(run("continue", env, cwd).file.result.status).toBe("updated");
    const doc = parseYaml(readFileSync(path, "utf8")) as { mcpServers: { name: string }[]; models: unknown[] };
    expect(doc.mcpServers.map((s) => s.name)).toEqual(["docs", "hostgate"]);
    expect(doc.models).toHaveLength(1);
    expect(run("continue", env, cwd).file.result.status).toBe("unchanged");
  });

  it("two servers named hostgate: refused, and the message says to keep one", () => {
    const { env, cwd, home } = freshHome("continue-two");
    seed(clientFile("continue", home, cwd), "mcpServers:\n  - name: hostgate\n    command: a\n  - name: hostgate\n    command: b\n");
    expect(run("continue", env, cwd).file.result).toMatchObject({ status: "malformed", reason: expect.stringMatching(/holds 2 servers named hostgate: keep one/) as unknown });
  });

  it("mcpServers that is a mapping (not Continue's list) is refused with where", () => {
    const { env, cwd, home } = freshHome("continue-map");
    seed(clientFile("continue", home, cwd), "mcpServers:\n  docs:\n    command: npx\n");
    expect(run("continue", env, cwd).file.result).toMatchObject({ status: "malformed", reason: "`mcpServers` is not a list" });
  });

  it("an empty `mcpServers:` key takes the list", () => {
    const { env, cwd, home } = freshHome("continue-empty");
    const path = clientFile("continue", home, cwd);
    seed(path, "name: Mine\nmcpServers:\n");
    expect(run("continue", env, cwd).ok).toBe(true);
    expect((parseYaml(readFileSync(path, "utf8")) as { mcpServers: { name: string }[] }).mcpServers[0]!.name).toBe("hostgate");
  });
});

describe("setup: Gemini CLI folder trust", () => {
  it("the Gemini entry comes with the Folder Trust note and how to trust a folder", () => {
    const { env, cwd } = freshHome("gemini-note");
    const r = run("gemini", env, cwd);
    expect(r.file.notes.join("\n")).toMatch(/Folder Trust .*untrusted folder.*\/permissions.*trustedFolders\.json/);
  });
});

describe("setup: OpenCode entry written before the timeout key existed", () => {
  it("gets the timeout added instead of being refused", () => {
    const { env, cwd, home } = freshHome("opencode-old");
    const path = clientFile("opencode", home, cwd);
    seed(path, JSON.stringify({ mcp: { hostgate: { type: "local", command: ["/old/hostgate", "mcp"], enabled: true } } }, null, 2));
    expect(run("opencode", env, cwd).file.result.status).toBe("updated");
    expect((JSON.parse(readFileSync(path, "utf8")) as { mcp: { hostgate: { timeout: number } } }).mcp.hostgate.timeout).toBeGreaterThan(5000);
  });
});
