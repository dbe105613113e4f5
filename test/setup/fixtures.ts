// Fixture home directories for `hostgate setup` tests: one temp HOME per case, the project dir inside it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { clientById, type ClientId } from "../../src/core/clients/catalog.ts";
import { clientContext } from "../../src/cli/setup-run.ts";

const created: string[] = [];
// Each test file runs in its own process (vitest pool: forks): the fixture homes go when it exits.
process.on("exit", () => { for (const d of created) rmSync(d, { recursive: true, force: true }); });

/** A fresh HOME with a project directory; env carries only what setup reads. Removed when the process exits. */
export function freshHome(tag: string): { home: string; cwd: string; env: NodeJS.ProcessEnv } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), `hg-setup-${tag}-${process.pid}-`)));
  created.push(home);
  const cwd = join(home, "project");
  mkdirSync(cwd, { recursive: true });
  // Every variable setup reads, pinned: nothing from the runner's environment leaks into the fixture.
  return { home, cwd, env: { HOME: home, PATH: process.env.PATH, XDG_CONFIG_HOME: "", CODEX_HOME: "", XDG_RUNTIME_DIR: "", XDG_STATE_HOME: join(home, "state"), HOSTGATE_TOKEN: "", HOSTGATE_HTTP_TOKEN: "", HOSTGATE_SOCKET: "" } };
}

/** The file setup edits for `id` in that home. */
export function clientFile(id: ClientId, home: string, cwd: string, scope: "user" | "project" = "user"): string {
  return clientById(id).file(clientContext({ HOME: home }, cwd, scope));
}

/** Writes `text` to the client's file (creating directories). */
export function seed(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text, { mode });
}

/** A file with another server already configured (YAML: as the client writes it, Goose's lists unindented). */
export function otherServers(id: ClientId): string {
  const def = clientById(id);
  if (def.list === true) return `name: Local Config\nversion: 1.0.0\nschema: v1\n${def.table[0]}:\n  - name: docs\n    command: npx\n    args:\n      - -y\n      - docs-server\n`;
  if (def.format === "yaml") return `GOOSE_PROVIDER: openai\n${def.table[0]}:\n  docs:\n    command: npx\n    args:\n    - -y\n    - docs-server\n`;
  if (def.format === "toml") return `[${def.table.join(".")}.docs]\ncommand = "npx"\nargs = ["-y", "docs-server"]\n`;
  return `${JSON.stringify({ [def.table[0]!]: { docs: { command: "npx", args: ["-y", "docs-server"] } } }, null, 2)}\n`;
}

/** A file with comments everywhere (JSONC, or TOML/YAML comments). */
export function withComments(id: ClientId): string {
  const def = clientById(id);
  if (def.list === true) return `# my continue config\nname: Local Config # shown in the picker\nversion: 1.0.0\nschema: v1\n\n# servers\n${def.table[0]}:\n  # documentation server\n  - name: docs\n    command: npx # inline\n`;
  if (def.format === "yaml") return `# my goose settings\nGOOSE_PROVIDER: openai # the provider\n\n# servers\n${def.table[0]}:\n  # documentation server\n  docs:\n    command: npx # inline\n`;
  if (def.format === "toml") {
    return `# my codex settings\nmodel = "o3" # the model\n\n# documentation server\n[${def.table[0]}.docs]\ncommand = "npx" # inline\n\n# approvals\n[tools]\nweb = true\n`;
  }
  return `// user settings\n{\n  "theme": "dark", // trailing comment\n  /* block comment */\n  "${def.table[0]}": {\n    "docs": { "command": "npx" }, // docs server\n  },\n}\n`;
}

/** A file that already has an old hostgate entry with one key the user added. */
export function existingEntry(id: ClientId): { text: string; userKey: string; userValue: unknown } {
  const def = clientById(id);
  if (def.list === true) return { text: `${def.table[0]}:\n  - name: hostgate\n    command: /old/bin/hostgate\n    args: [mcp]\n    timeout: 12000\n`, userKey: "timeout", userValue: 12000 };
  if (def.format === "yaml") return { text: `${def.table[0]}:\n  hostgate:\n    cmd: /old/bin/hostgate\n    args: [mcp]\n    timeout: 12000\n`, userKey: "timeout", userValue: 12000 };
  if (def.format === "toml") return { text: `[${def.table[0]}.hostgate]\ncommand = "/old/bin/hostgate"\nargs = ["mcp"]\ntool_timeout_sec = 99\n`, userKey: "tool_timeout_sec", userValue: 99 };
  const old = id === "opencode" ? { type: "local", command: ["/old/bin/hostgate", "mcp"], timeout: 12000 } : { command: "/old/bin/hostgate", args: ["mcp"], timeout: 12000 };
  return { text: `${JSON.stringify({ [def.table[0]!]: { hostgate: old } }, null, 2)}\n`, userKey: "timeout", userValue: 12000 };
}

/** A syntactically broken file. */
export function malformed(id: ClientId): string {
  if (clientById(id).format === "yaml") return `${clientById(id).table[0]}:\n  docs: [unclosed\n`;
  return clientById(id).format === "toml" ? `[${clientById(id).table[0]}.docs\ncommand = "npx"\n` : `{ "${clientById(id).table[0]}": { "docs": `;
}
