/**
 * Claude Code (the real `claude` binary) against the Anthropic Messages scripted model and the real hostgate
 * (test/clients/scenario.ts). Base URL and key: ANTHROPIC_BASE_URL + a dummy ANTHROPIC_API_KEY; the MCP entry:
 * `hostgate setup --claude` (~/.claude.json, user scope); the call is allowed by `--allowedTools
 * mcp__hostgate__plan` (no prompt in -p mode). Environment settings (Claude Code's documented variables):
 * MCP_CONNECTION_NONBLOCKING=false and MCP_TIMEOUT / MCP_CONNECT_TIMEOUT_MS make -p wait for the server's tools
 * (by default -p starts the turn after 5 s without them), ENABLE_TOOL_SEARCH=false sends MCP tools to the model
 * up front instead of behind its tool-search tool, and the rest turn off update checks and telemetry.
 */
import { anthropicMessages } from "./model/anthropic-messages.ts";
import { describeClient } from "./scenario.ts";

describeClient({
  label: "Claude Code",
  package: { pkg: "@anthropic-ai/claude-code", bin: "claude" },
  setupFlag: "claude",
  vendor: anthropicMessages,
  args: () => ["-p", "Plan writing the file.", "--allowedTools", "mcp__hostgate__plan", "--output-format", "text"],
  env: (_ws, model) => ({
    ANTHROPIC_BASE_URL: model.origin,
    ANTHROPIC_API_KEY: "sk-ant-scripted-model-not-a-key",
    MCP_CONNECTION_NONBLOCKING: "false",
    MCP_TIMEOUT: "60000",
    MCP_CONNECT_TIMEOUT_MS: "60000",
    ENABLE_TOOL_SEARCH: "false",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  }),
  timeoutMs: 150_000,
});
