import { discoverConfig, type ConfigCandidate } from "../config/discover.ts";
import type { Command } from "commander";
import { EXIT } from "./common.ts";

export type { ConfigCandidate } from "../config/discover.ts";

/**
 * Where the configuration is looked for, highest precedence first, and which one is used: the loader's own
 * discovery (config/discover.ts), so the two cannot disagree.
 */
export function configCandidates(flag: string | undefined): { candidates: ConfigCandidate[]; used: string | null; dropIns: string[] } {
  const found = discoverConfig({ flag });
  return { candidates: found.candidates, used: found.file, dropIns: found.dropIns };
}

const SECRET_KEY = /(^|_)(token|secret|password|passphrase|api_key|private_key)$/i;

/** A copy of the configuration with every secret value replaced by "<redacted>" (keys named *_env are names, kept). */
export function redactConfig(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => redactConfig(v));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactConfig(v, k)]));
  if (typeof value === "string" && SECRET_KEY.test(key)) return "<redacted>";
  // Credentials inside a URL (https://user:secret@host/…).
  if (typeof value === "string") return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*):[^@/\s]+@/i, "$1:<redacted>@");
  return value;
}

/**
 * `config check FILE` and `config show FILE` name the file as an argument, as users type it; `--config` says the
 * same. Both given and different is ambiguous: exit 2 saying to give one.
 */
function withFileArgument(file: string | undefined, opts: { config?: string }): { config?: string } {
  if (file === undefined) return opts;
  if (opts.config !== undefined && opts.config !== file) {
    process.stderr.write(`hostgate: two configuration files given (${file} and --config ${opts.config}); give one.\n`);
    process.exit(EXIT.usage);
  }
  return { config: file };
}

/** `hostgate config path|check|show`. */
export function registerConfigCommand(program: Command): void {
  const config = program.command("config").description("Where the configuration comes from (path), whether it is valid (check), and what is in effect (show, secrets redacted).");
  config
    .command("path")
    .description("Print the configuration file in use (and every place looked at, with --all)")
    .option("-c, --config <path>", "configuration file")
    .option("--all", "list every place looked at, in precedence order")
    .action((opts: { config?: string; all?: boolean }) => {
      const { candidates, used, dropIns } = configCandidates(opts.config);
      if (opts.all) {
        for (const c of candidates) process.stdout.write(`${c.path === used ? "*" : " "} ${c.path}  (${c.why}${c.exists ? "" : ", absent"})\n`);
        for (const d of dropIns) process.stdout.write(`+ ${d}  (drop-in)\n`);
      } else process.stdout.write(`${used ?? "(none: built-in defaults)"}\n`);
      process.exit(EXIT.ok);
    });
  config
    .command("check")
    .description("Validate the configuration (strict: unknown keys are errors; warns when a file holding a token is readable by others); exit 0 when valid, 1 when not")
    .argument("[file]", "configuration file to check (same as --config)")
    .option("-c, --config <path>", "configuration file")
    .action(async (file: string | undefined, given: { config?: string }) => {
      const opts = withFileArgument(file, given);
      const [{ loadConfig, ConfigError }, { exposedTokenFiles, describeExposed }] = await Promise.all([import("../config/loader.ts"), import("../config/token-files.ts")]);
      try {
        const { source } = loadConfig(opts.config === undefined ? {} : { path: opts.config });
        process.stdout.write(`valid: ${source}\n`);
        const { used, dropIns } = configCandidates(opts.config);
        for (const f of exposedTokenFiles([...(used === null ? [] : [used]), ...dropIns])) {
          const { detail, fix } = describeExposed(f);
          process.stdout.write(`warning: ${detail}\n  fix: ${fix}\n`);
        }
        process.exit(EXIT.ok);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        process.stdout.write(`${err.message}\n`);
        process.exit(EXIT.failure);
      }
    });
  config
    .command("show")
    .description("Print the configuration in effect (defaults, file, environment) as YAML, secrets redacted")
    .argument("[file]", "configuration file to show (same as --config)")
    .option("-c, --config <path>", "configuration file")
    .action(async (file: string | undefined, given: { config?: string }) => {
      const opts = withFileArgument(file, given);
      const [{ loadConfig, ConfigError }, { stringify }] = await Promise.all([import("../config/loader.ts"), import("yaml")]);
      try {
        const { config: effective, source } = loadConfig(opts.config === undefined ? {} : { path: opts.config });
        process.stdout.write(`# from: ${source} (secrets redacted)\n${stringify(redactConfig(effective))}`);
        process.exit(EXIT.ok);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        process.stderr.write(`hostgate: ${err.message}\n`);
        process.exit(EXIT.failure);
      }
    });
}
