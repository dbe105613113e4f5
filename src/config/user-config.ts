import { homedir } from "node:os";
import { join } from "node:path";
import { isMap, parseDocument } from "yaml";
import { tooDeep } from "../core/clients/nesting.ts";
import { ConfigSchema } from "./schema.ts";

/** The user's configuration file: $XDG_CONFIG_HOME/hostgate/config.yaml (default ~/.config/hostgate/config.yaml). */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "hostgate", "config.yaml");
}

/** The settings `hostgate setup` owns in the user's configuration. `null` removes a setting. */
export interface SetupSettings {
  /** daemon.socket: a socket path, tcp:// or vsock:// URI; null for the embedded daemon; undefined: leave it as it is. */
  socket: string | null | undefined;
  /** The LLM planner, or null for the deterministic rules. */
  planner: { base_url: string; model: string; api_key_env?: string | undefined } | null;
}

const HEADER = "# hostgate configuration (every key: docs/configuration.md). `hostgate setup` updates daemon.socket and planner;\n# anything else here is yours and is kept.\n";

/**
 * Applies the setup settings to the text of the user's config (null: no file yet) through yaml's document
 * API, so comments, order and every other key survive a second run. The result is checked against the
 * config schema. Returns the new text and whether it differs; throws Error with the reason when the existing
 * file is not valid YAML or not a mapping (the caller reports it and leaves the file alone).
 */
export function applySetupSettings(text: string | null, s: SetupSettings): { text: string; changed: boolean } {
  const deep = text === null ? null : tooDeep(text, "yaml");
  if (deep !== null) throw new Error(deep);
  const doc = parseDocument(text ?? "", { uniqueKeys: true });
  if (doc.errors.length > 0) throw new Error(`not valid YAML: ${doc.errors[0]!.message.split("\n")[0]}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new Error("the top level is not a mapping");
  if (text === null || text.trim() === "") doc.commentBefore = HEADER.trimEnd().split("\n").map((l) => l.replace(/^# ?/, " ")).join("\n");
  const before = JSON.stringify(doc.toJS() ?? {});
  const drop = (path: string[]) => { if (doc.hasIn(path)) doc.deleteIn(path); };
  if (s.socket === null) drop(["daemon", "socket"]);
  else if (s.socket !== undefined) doc.setIn(["daemon", "socket"], s.socket);
  if (s.planner === null) {
    drop(["planner", "mode"]);
    drop(["planner", "llm"]);
  } else {
    doc.setIn(["planner", "mode"], "llm");
    doc.setIn(["planner", "llm", "base_url"], s.planner.base_url);
    doc.setIn(["planner", "llm", "model"], s.planner.model);
    if (s.planner.api_key_env) doc.setIn(["planner", "llm", "api_key_env"], s.planner.api_key_env);
    else drop(["planner", "llm", "api_key_env"]);
  }
  for (const key of ["daemon", "planner"]) {
    const node = doc.get(key);
    if (isMap(node) && node.items.length === 0) doc.delete(key);
  }
  const js: unknown = doc.toJS() ?? {};
  const parsed = ConfigSchema.safeParse(js);
  if (!parsed.success) throw new Error(`the result would not be a valid configuration: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const changed = JSON.stringify(js) !== before || text === null;
  return { text: changed ? doc.toString() : (text ?? ""), changed };
}
