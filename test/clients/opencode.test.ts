/**
 * OpenCode (the real `opencode` binary) against the Chat Completions scripted model and the real hostgate
 * (test/clients/scenario.ts). The model is a custom provider in ~/.config/opencode/opencode.json built on
 * `@ai-sdk/openai-compatible` (bundled with OpenCode: nothing is fetched) with `options.baseURL`; the MCP
 * entry: `hostgate setup --opencode` (the `mcp` table of the same file). `opencode run` allows MCP tools by
 * default (no permission prompt). OPENCODE_DISABLE_MODELS_FETCH and OPENCODE_DISABLE_AUTOUPDATE (documented)
 * keep it off the network.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openaiChat } from "./model/openai-chat.ts";
import { describeClient } from "./scenario.ts";

describeClient({
  label: "OpenCode",
  package: { pkg: "opencode-ai", bin: "opencode" },
  setupFlag: "opencode",
  vendor: openaiChat,
  prepare(ws, model) {
    const path = join(ws.home, ".config", "opencode", "opencode.json");
    const config = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    if (typeof config.mcp !== "object" || config.mcp === null || !("hostgate" in config.mcp)) throw new Error(`hostgate setup --opencode wrote no mcp.hostgate entry: ${JSON.stringify(config)}`);
    config.provider = {
      scripted: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted model",
        options: { baseURL: `${model.origin}/v1`, apiKey: "scripted-model-not-a-key" },
        models: { "scripted-model": { name: "Scripted model", tool_call: true } },
      },
    };
    config.model = "scripted/scripted-model";
    writeFileSync(path, JSON.stringify(config, null, 2));
  },
  args: () => ["run", "Plan writing the file."],
  env: () => ({ OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" }),
  timeoutMs: 180_000,
});
