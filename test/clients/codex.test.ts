/**
 * Codex (the real `codex` binary) against the OpenAI Responses scripted model and the real hostgate
 * (test/clients/scenario.ts). The model provider is a `model_providers` entry in $CODEX_HOME/config.toml
 * (`base_url`, `wire_api = "responses"`, no `env_key`: no login); the MCP entry: `hostgate setup --codex`, plus
 * `required = true` on it (Codex's documented key: the session waits for the server, which `codex exec`
 * otherwise does not, and fails if it cannot start). `codex exec` runs with approval policy `never`: the MCP
 * call needs no prompt.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openaiResponses } from "./model/openai-responses.ts";
import { describeClient } from "./scenario.ts";

describeClient({
  label: "Codex",
  package: { pkg: "@openai/codex", bin: "codex" },
  setupFlag: "codex",
  vendor: openaiResponses,
  prepare(ws, model) {
    const path = join(ws.home, ".codex", "config.toml");
    const written = readFileSync(path, "utf8");
    const header = "[mcp_servers.hostgate]\n";
    if (!written.includes(header)) throw new Error(`hostgate setup --codex wrote no ${header.trim()} table: ${written}`);
    const provider = `model = "scripted-model"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "Scripted model"\nbase_url = "${model.origin}/v1"\nwire_api = "responses"\n\n`;
    writeFileSync(path, provider + written.replace(header, `${header}required = true\n`));
  },
  args: () => ["exec", "--skip-git-repo-check", "Plan writing the file."],
  env: () => ({}),
  timeoutMs: 150_000,
});
