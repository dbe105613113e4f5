import type { Command } from "commander";
import type { ClientId } from "../core/clients/catalog.ts";
import { EXIT } from "./common.ts";

/** Flags of `hostgate setup` as commander parses them. */
export interface SetupFlags {
  claude?: boolean; claudeDesktop?: boolean; cursor?: boolean; codex?: boolean; vscode?: boolean; lmstudio?: boolean; opencode?: boolean; gemini?: boolean;
  cline?: boolean; continue?: boolean; goose?: boolean; zed?: boolean; kiro?: boolean;
  scope?: string;
  transport?: string;
  socket?: string;
  token?: string;
  url?: string;
  httpToken?: string;
  plannerUrl?: string;
  plannerModel?: string;
  plannerKeyEnv?: string;
  dryRun?: boolean;
  yes?: boolean;
}

const FLAG_OF: Record<ClientId, keyof SetupFlags> = {
  claude: "claude", "claude-desktop": "claudeDesktop", cursor: "cursor", codex: "codex", vscode: "vscode", lmstudio: "lmstudio", opencode: "opencode", gemini: "gemini",
  cline: "cline", continue: "continue", goose: "goose", zed: "zed", kiro: "kiro",
};

/** The clients named by flags, in catalogue order. */
export function flaggedClients(flags: SetupFlags): ClientId[] {
  return (Object.keys(FLAG_OF) as ClientId[]).filter((id) => flags[FLAG_OF[id]] === true);
}

/**
 * `hostgate setup`: writes the hostgate entry into the AI clients' configuration files (and the user's
 * hostgate config). Interactive on a terminal (@clack/prompts); with --yes and client flags it runs without
 * one. --dry-run prints the diff and writes nothing. Exit 0 when every file is written or already up to date,
 * 1 when a file was left untouched (malformed, read-only…), 2 for bad flags.
 */
export function registerSetupCommand(program: Command): void {
  program
    .command("setup")
    .description("Configure your AI clients (Claude Code, Cursor, Codex, VS Code, LM Studio, OpenCode, Gemini CLI, Cline, Continue, Goose, Zed, Kiro, Claude Desktop) to use hostgate.")
    .option("--claude", "Claude Code (.mcp.json in this directory with --scope project, else ~/.claude.json)")
    .option("--claude-desktop", "Claude Desktop (~/.config/Claude/claude_desktop_config.json)")
    .option("--cursor", "Cursor (~/.cursor/mcp.json)")
    .option("--codex", "Codex CLI ($CODEX_HOME/config.toml, default ~/.codex)")
    .option("--vscode", "VS Code (.vscode/mcp.json in this directory)")
    .option("--lmstudio", "LM Studio (~/.lmstudio/mcp.json)")
    .option("--opencode", "OpenCode (~/.config/opencode/opencode.json)")
    .option("--gemini", "Gemini CLI (~/.gemini/settings.json; with Folder Trust on, only trusted folders connect MCP servers)")
    .option("--cline", "Cline for VS Code (~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json)")
    .option("--continue", "Continue (~/.continue/config.yaml, mcpServers list)")
    .option("--goose", "Goose (~/.config/goose/config.yaml, extensions)")
    .option("--zed", "Zed (~/.config/zed/settings.json, context_servers)")
    .option("--kiro", "Kiro (~/.kiro/settings/mcp.json)")
    .option("--scope <scope>", "Claude Code scope: user (~/.claude.json) or project (./.mcp.json)")
    .option("--transport <transport>", "stdio (the client spawns hostgate mcp) or http (it connects to hostgate serve)")
    .option("--socket <uri>", "daemon to use: a socket path (e.g. /run/hostgate/agent.sock), tcp://HOST:PORT or vsock://CID:PORT; default: the embedded daemon")
    .option("--token <token>", "token of a tcp:// or vsock:// daemon (or HOSTGATE_TOKEN; a flag is visible in ps)")
    .option("--url <url>", "URL of hostgate serve for --transport http (default http://127.0.0.1:48000/mcp)")
    .option("--http-token <token>", "bearer token of hostgate serve (or HOSTGATE_HTTP_TOKEN)")
    .option("--planner-url <url>", "OpenAI-compatible endpoint of an LLM planner, e.g. http://127.0.0.1:8080/v1")
    .option("--planner-model <model>", "model name for the LLM planner")
    .option("--planner-key-env <NAME>", "environment variable holding the planner's API key (forwarded by the clients that can)")
    .option("--dry-run", "print the changes as a diff and write nothing")
    .option("-y, --yes", "no questions: use the flags and defaults (needed without a terminal)")
    .action(async (flags: SetupFlags) => {
      const { runSetupCommand } = await import("./setup-command.ts");
      process.exit(await runSetupCommand(flags, process.env, process.cwd()));
    });
}

export { EXIT };
