import { readFileSync, statSync } from "node:fs";
import { parseDocument } from "yaml";

/**
 * Configuration files that hold a token every user of the host can read (issue 21). `daemon.token` opens the
 * daemon's tcp:// listener and `server.token` is the bearer token of `hostgate serve`: a file holding one
 * should be readable by its owner (and at most a group), never by others. `hostgate config check` and
 * `hostgate doctor` warn about each such file; nothing is refused, since the file may be shared on purpose.
 */

/** The keys whose values are tokens. */
export const TOKEN_KEYS = [["daemon", "token"], ["server", "token"]] as const;

/** One configuration file holding tokens with the "other" read bit set. */
export interface ExposedTokenFile {
  path: string;
  /** Dotted keys found in it, e.g. `daemon.token`. */
  keys: string[];
  /** Permission bits (e.g. 0o644). */
  mode: number;
}

/**
 * Of `paths` (the configuration file and its drop-ins, as discovered), those that set a token and are
 * readable by others (mode & 0o004). A file that cannot be read or parsed is skipped: loading the
 * configuration reports that itself.
 */
export function exposedTokenFiles(paths: readonly string[]): ExposedTokenFile[] {
  const out: ExposedTokenFile[] = [];
  for (const path of paths) {
    let mode: number;
    let text: string;
    try {
      mode = statSync(path).mode & 0o7777;
      if ((mode & 0o004) === 0) continue;
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    const doc = parseDocument(text, { uniqueKeys: true });
    if (doc.errors.length > 0) continue;
    const keys = TOKEN_KEYS.filter((k) => {
      const v: unknown = doc.getIn(k);
      return v !== undefined && v !== null && v !== "";
    }).map((k) => k.join("."));
    if (keys.length > 0) out.push({ path, keys, mode });
  }
  return out;
}

/** One sentence for a warning: which tokens, the mode, and the command that fixes it. */
export function describeExposed(f: ExposedTokenFile): { detail: string; fix: string } {
  return {
    detail: `${f.path} holds ${f.keys.join(" and ")} and is readable by every user (mode ${f.mode.toString(8).padStart(4, "0")})`,
    fix: `chmod o-r ${f.path} (or chmod 600 and keep it owned by the user the daemon or server runs as)`,
  };
}
