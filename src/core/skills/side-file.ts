import { parseDocument } from "yaml";
import { z } from "zod";
import type { SkillProblem } from "./manifest.ts";

/** Where hostgate's own declarations live, beside the standard SKILL.md (so a skill stays spec-valid). */
export const SIDE_FILE = "agents/hostgate.yaml";

/** Interpreters an entrypoint may name. The script itself must sit under scripts/. */
export const INTERPRETERS = ["bash", "sh", "python3"] as const;
export type Interpreter = (typeof INTERPRETERS)[number];

/** Entrypoint names: 1–64 of a-z, 0-9, `-`, `_`, starting with a letter or digit. */
export const ENTRYPOINT_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ENV_NAME_RE = /^[A-Z_][A-Z0-9_]{0,127}$/;

const EntrypointSchema = z.object({
  run: z.string().min(1).max(1024).describe("script path inside the skill, under scripts/"),
  interpreter: z.enum(INTERPRETERS).describe("how the script is started"),
  description: z.string().min(1).max(1024),
  secrets: z.array(z.string().regex(ENV_NAME_RE, "secret names are environment variable names (A-Z, 0-9, _)")).max(64).default(() => []),
  timeout_seconds: z.number().int().min(1).max(1800).optional(),
}).strict();

const SideFileSchema = z.object({
  entrypoints: z.record(z.string().regex(ENTRYPOINT_NAME_RE, "entrypoint names use a-z, 0-9, - and _ (1–64)"), EntrypointSchema).default(() => ({})),
  capabilities: z.object({
    mcp: z.object({
      exec: z.array(z.string()).max(64).default(() => []).describe("entrypoints a model may ask to run (still only after an admin grant)"),
    }).strict().default(() => ({ exec: [] })),
  }).strict().default(() => ({ mcp: { exec: [] } })),
}).strict();

/** One declared entrypoint. `secrets` non-empty means skills_execute refuses it (it would need a secret). */
export interface Entrypoint {
  name: string;
  run: string;
  interpreter: Interpreter;
  description: string;
  secrets: string[];
  timeout_seconds?: number | undefined;
  /** Listed under capabilities.mcp.exec. */
  mcp_exec: boolean;
}

/** hostgate's declarations for one skill (empty when the skill has no side file). */
export interface HostgateSide {
  entrypoints: Entrypoint[];
}

/**
 * Parses agents/hostgate.yaml. Rules: strict schema (unknown keys are problems); each entrypoint's `run`
 * is a file of the tree under `scripts/`; every name in capabilities.mcp.exec is a declared entrypoint.
 * `files` is the set of paths in the tree. Returns the declarations and the problems.
 */
export function parseSideFile(text: string | null, files: ReadonlySet<string>): { side: HostgateSide; problems: SkillProblem[] } {
  const file = SIDE_FILE;
  if (text === null) return { side: { entrypoints: [] }, problems: [] };
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, schema: "core" });
  if (doc.errors.length > 0) return { side: { entrypoints: [] }, problems: doc.errors.map((e) => ({ code: "side_file_yaml", file, message: `not valid YAML: ${e.message.split("\n")[0]}` })) };
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 0 }) ?? {};
  } catch (err) {
    return { side: { entrypoints: [] }, problems: [{ code: "side_file_yaml", file, message: `not valid YAML: ${(err as Error).message}` }] };
  }
  const parsed = SideFileSchema.safeParse(raw);
  if (!parsed.success) {
    return { side: { entrypoints: [] }, problems: parsed.error.issues.map((i) => ({ code: "side_file_invalid", file, field: i.path.join("."), message: `${i.path.join(".") || "(top level)"}: ${i.message}` })) };
  }
  const problems: SkillProblem[] = [];
  const exec = new Set(parsed.data.capabilities.mcp.exec);
  for (const name of exec) {
    if (!Object.hasOwn(parsed.data.entrypoints, name)) problems.push({ code: "exec_unknown_entrypoint", file, field: "capabilities.mcp.exec", message: `capabilities.mcp.exec names ${JSON.stringify(name)}, which is not under entrypoints.` });
  }
  const entrypoints: Entrypoint[] = [];
  for (const [name, e] of Object.entries(parsed.data.entrypoints).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!e.run.startsWith("scripts/") || e.run.split("/").some((p) => p === ".." || p === "." || p === "")) {
      problems.push({ code: "entrypoint_outside_scripts", file, field: `entrypoints.${name}.run`, message: `run must be a path under scripts/, got ${JSON.stringify(e.run)}.` });
    } else if (!files.has(e.run)) {
      problems.push({ code: "entrypoint_missing_file", file, field: `entrypoints.${name}.run`, message: `${e.run} is not a file of this skill.` });
    }
    entrypoints.push({ name, run: e.run, interpreter: e.interpreter, description: e.description, secrets: e.secrets, timeout_seconds: e.timeout_seconds, mcp_exec: exec.has(name) });
  }
  return { side: { entrypoints }, problems };
}
