import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** One place a configuration file may come from, in precedence order, and whether it exists. */
export interface ConfigCandidate {
  path: string;
  /** `--config`, `$HOSTGATE_CONFIG`, `user default` or `system default`. */
  why: string;
  exists: boolean;
}

/** What {@link discoverConfig} found. */
export interface ConfigDiscovery {
  /** Every place looked at, highest precedence first. */
  candidates: ConfigCandidate[];
  /** The file in use (an explicit one even when missing: loading it then fails), or null: built-in defaults. */
  file: string | null;
  /** The drop-in directory looked at (`config.d` beside the file), or null. */
  dropInDir: string | null;
  /** Drop-in files applied after the file, in this (sorted) order. */
  dropIns: string[];
}

/**
 * The default locations, highest precedence first: the user's (`$XDG_CONFIG_HOME/hostgate/config.yaml`), then the
 * system's (`/etc/hostgate/config.yaml`, or `config.yaml` in `$HOSTGATE_CONFIG_DIR`, which moves /etc/hostgate as a
 * whole: this file and the audit pins, daemon/paths.ts configDir). The test run sets HOSTGATE_CONFIG_DIR to a
 * scratch directory (vitest.config.ts), so no test reads a machine's /etc/hostgate/config.yaml (issue 22).
 */
export function defaultConfigPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  return [join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "hostgate", "config.yaml"), join(env.HOSTGATE_CONFIG_DIR || "/etc/hostgate", "config.yaml")];
}

/**
 * Where the configuration comes from (the loader and `hostgate config path|check|show` use this one
 * function): `flag` (--config) if given, else `$HOSTGATE_CONFIG` if set (both explicit: used even when
 * missing, so loading says so), else the first existing of `$XDG_CONFIG_HOME/hostgate/config.yaml` and
 * `/etc/hostgate/config.yaml` ({@link defaultConfigPaths}). Drop-ins are the `*.yaml` files of `config.d/` beside the file in use (with
 * no file: beside the first default location that has one), applied in byte-wise name order.
 * `defaults` replaces the default locations (tests).
 */
export function discoverConfig(opts: { flag?: string | undefined; env?: NodeJS.ProcessEnv; defaults?: readonly string[] } = {}): ConfigDiscovery {
  const env = opts.env ?? process.env;
  const candidates: ConfigCandidate[] = [];
  if (opts.flag) candidates.push({ path: opts.flag, why: "--config", exists: existsSync(opts.flag) });
  if (env.HOSTGATE_CONFIG) candidates.push({ path: env.HOSTGATE_CONFIG, why: "$HOSTGATE_CONFIG", exists: existsSync(env.HOSTGATE_CONFIG) });
  const defaults = opts.defaults ?? defaultConfigPaths(env);
  defaults.forEach((p, i) => candidates.push({ path: p, why: i === defaults.length - 1 && opts.defaults === undefined ? "system default" : "user default", exists: existsSync(p) }));
  const explicit = opts.flag || env.HOSTGATE_CONFIG || undefined;
  const file = explicit ?? candidates.find((c) => c.exists)?.path ?? null;
  const dirs = file !== null ? [join(dirname(file), "config.d")] : defaults.map((p) => join(dirname(p), "config.d"));
  const dropInDir = dirs.find((d) => existsSync(d)) ?? null;
  let dropIns: string[] = [];
  if (dropInDir !== null) {
    dropIns = readdirSync(dropInDir, { withFileTypes: true })
      .filter((e) => e.name.endsWith(".yaml") && !e.name.startsWith(".") && (e.isFile() || e.isSymbolicLink()))
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((n) => join(dropInDir, n));
  }
  return { candidates, file, dropInDir, dropIns };
}
