/**
 * Gemini CLI (the real `gemini` command) against the Gemini API scripted model and the real hostgate
 * (test/clients/scenario.ts). Base URL and key: GOOGLE_GEMINI_BASE_URL (documented; http allowed on loopback)
 * + a dummy GEMINI_API_KEY, with `security.auth.selectedType: gemini-api-key` in ~/.gemini/settings.json (with
 * only the base URL set, 0.61 picks its "gateway" auth, which `-p` refuses as an invalid auth method). The MCP
 * entry: `hostgate setup --gemini` (the same file), plus the documented `trust: true` on it: without it, `gemini
 * -p` offers the model none of hostgate's tools but those named by the deprecated --allowed-tools (it asks
 * before every MCP call and cannot ask without a terminal). `--model gemini-2.5-flash` skips the model
 * router's classifier request; the project directory is listed in ~/.gemini/trustedFolders.json; usage
 * statistics are off.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { geminiGenerate } from "./model/gemini-generate.ts";
import { describeClient } from "./scenario.ts";

describeClient({
  label: "Gemini CLI",
  package: { pkg: "@google/gemini-cli", bin: "gemini" },
  setupFlag: "gemini",
  vendor: geminiGenerate,
  prepare(ws) {
    const path = join(ws.home, ".gemini", "settings.json");
    const settings = JSON.parse(readFileSync(path, "utf8")) as { mcpServers?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
    const entry = settings.mcpServers?.hostgate;
    if (!entry) throw new Error(`hostgate setup --gemini wrote no mcpServers.hostgate entry: ${JSON.stringify(settings)}`);
    entry.trust = true;
    settings.security = { auth: { selectedType: "gemini-api-key" } };
    settings.privacy = { usageStatisticsEnabled: false };
    writeFileSync(path, JSON.stringify(settings, null, 2));
    writeFileSync(join(ws.home, ".gemini", "trustedFolders.json"), JSON.stringify({ [ws.cwd]: "TRUST_FOLDER" }));
  },
  args: () => ["-p", "Plan writing the file.", "--model", "gemini-2.5-flash"],
  env: (_ws, model) => ({ GOOGLE_GEMINI_BASE_URL: model.origin, GEMINI_API_KEY: "scripted-model-not-a-key" }),
  timeoutMs: 150_000,
});
