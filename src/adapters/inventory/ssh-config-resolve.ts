import { readdirSync, readFileSync, statSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { isAbsolute, join } from "node:path";
import SSHConfig, { type Directive, type Line } from "ssh-config";
import { wildcardMatch } from "../../core/inventory/known-hosts.ts";

/**
 * Resolving an OpenSSH client config the way `ssh -G <host>` does, for the fields hostgate uses: HostName,
 * User, Port, IdentityFile, ProxyJump. Parsing is the `ssh-config` package's; evaluation is ours, because the
 * package's `compute()` runs `Match exec` commands and `nslookup` (a read-only inventory must never run
 * anything) and does not follow `Include`.
 *
 * Rules followed (ssh_config(5)): files are read in order (user file, then system file); the first value
 * obtained for a keyword wins, except IdentityFile, which accumulates; `Host` patterns match the name as given
 * (case-sensitive, `*`, `?`, `!negation` — a matching negation excludes the block); `Include` takes absolute
 * paths or paths relative to ~/.ssh (user file) or /etc/ssh (system file), with globs, inlined where it
 * appears and applying only when its block is active; `Match` supports `all`, `host`, `originalhost`, `user`,
 * `localuser`; `Match exec`, `canonical` and `final` are never evaluated: such a block does not apply, and the
 * resolution carries a warning saying so. HostName expands `%h` and `%%`. IdentityFile values are kept as
 * written (like `ssh -G`); `expandIdentityFile` expands them for use.
 *
 * What hostgate will not do silently (issue 21, corpus T3-07, T3-08):
 * - `ProxyCommand` (when it wins over ProxyJump: whichever comes first takes effect, as in ssh) is reported
 *   in `errors`: the host is refused with "ProxyCommand is not supported, use ProxyJump", never dialed
 *   directly.
 * - Host-key options (`StrictHostKeyChecking`, `UserKnownHostsFile`, `GlobalKnownHostsFile`, `HostKeyAlias`,
 *   `CheckHostIP`, `VerifyHostKeyDNS`, `KnownHostsCommand`, `UpdateHostKeys`) are never honoured: a warning
 *   says hostgate checks its own known_hosts files.
 * - An `Include` file that cannot be read or parsed is an error for the hosts whose resolution reaches it (an
 *   Include in an inactive block is never read), not for every alias.
 * - A whole-line comment `# hostgate: tags=a,b` in an active block adds tags (accumulating, like
 *   IdentityFile); a `# hostgate:` comment that does not parse is an error for those hosts (a misspelt tag
 *   must not silently drop a restriction).
 */

/**
 * What `ssh -G` would say for the fields we use. `proxy_jump` is empty for none. `tags`: from `# hostgate:
 * tags=` comments of the blocks that applied. `errors`: why this host must not be dialed (ProxyCommand, an
 * unreadable Include, a malformed hostgate comment); empty when it may. `warnings`: what was skipped.
 */
export interface SshResolved {
  host: string;
  hostname: string;
  user: string;
  port: number;
  identity_files: string[];
  proxy_jump: string[];
  tags: string[];
  warnings: string[];
  errors: string[];
}

/** One config file to read, and whether relative Includes resolve against ~/.ssh (user) or /etc/ssh (system). */
export interface SshConfigFile {
  path: string;
  kind: "user" | "system";
}

interface State {
  host: string;
  values: Map<string, string>;
  identity: string[];
  tags: string[];
  warnings: Set<string>;
  errors: Set<string>;
  depth: number;
}

const KEYS = new Set(["hostname", "user", "port"]);
/** ProxyJump and ProxyCommand share one slot: the first one obtained wins (ssh_config(5), ProxyJump). */
const PROXY_KEYS = new Set(["proxyjump", "proxycommand"]);
const HOST_KEY_OPTIONS = new Set(["stricthostkeychecking", "userknownhostsfile", "globalknownhostsfile", "hostkeyalias", "checkhostip", "verifyhostkeydns", "knownhostscommand", "updatehostkeys"]);
/** The tag syntax of the config's `tags` (config/hosts.ts). */
const TAG = /^[A-Za-z0-9][A-Za-z0-9_.:=-]{0,63}$/;

/** Reads a `# hostgate: tags=a,b` comment: its tags, null for another comment, or an error string. */
export function hostgateComment(content: string): string[] | null | { error: string } {
  const m = /^#\s*hostgate\s*:(.*)$/i.exec(content.trim());
  if (!m) return null;
  const t = /^\s*tags\s*=\s*(.*?)\s*$/.exec(m[1]!);
  if (!t) return { error: `${JSON.stringify(content.trim().slice(0, 120))} is not "# hostgate: tags=a,b"` };
  const tags = t[1]!.split(",").map((x) => x.trim());
  const bad = tags.find((x) => !TAG.test(x));
  if (bad !== undefined) return { error: `tag ${JSON.stringify(bad)} in ${JSON.stringify(content.trim().slice(0, 120))}: tags are letters, digits and _.:=- (max 64), comma-separated` };
  return tags;
}

function valueOf(d: Directive): string {
  return typeof d.value === "string" ? d.value : d.value.map((v) => v.val).join(" ");
}

const listCache = new WeakMap<Directive, string[]>();

function listOf(d: Directive): string[] {
  let l = listCache.get(d);
  if (!l) {
    l = typeof d.value === "string" ? d.value.split(/[\s,]+/).filter(Boolean) : d.value.flatMap((v) => v.val.split(",")).filter(Boolean);
    listCache.set(d, l);
  }
  return l;
}

const patternCache = new Map<string, RegExp | string>();

/** A pattern without wildcards compares as a string; others compile once (bounded cache). */
function compiled(pat: string): RegExp | string {
  let c = patternCache.get(pat);
  if (c === undefined) {
    c = /[*?]/.test(pat) ? new RegExp(`^${pat.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`, "s") : pat;
    if (patternCache.size > 10_000) patternCache.clear();
    patternCache.set(pat, c);
  }
  return c;
}

const literalSets = new WeakMap<readonly string[], Set<string> | null>();

/** ssh's pattern-list match: a matching negation fails the list; otherwise one positive match is needed. */
export function matchPatternList(patterns: readonly string[], name: string, caseSensitive = true): boolean {
  if (caseSensitive) {
    // Lists of plain names (most Host lines) are a set lookup: keeps listing large configs linear-ish.
    let set = literalSets.get(patterns);
    if (set === undefined) {
      set = patterns.some((p) => /[*?!]/.test(p)) ? null : new Set(patterns);
      literalSets.set(patterns, set);
    }
    if (set) return set.has(name);
  }
  let ok = false;
  for (const p of patterns) {
    const neg = p.startsWith("!");
    const pat = neg ? p.slice(1) : p;
    let hit: boolean;
    if (caseSensitive) {
      const c = compiled(pat);
      hit = typeof c === "string" ? c === name : c.test(name);
    } else hit = wildcardMatch(pat, name);
    if (hit && neg) return false;
    if (hit) ok = true;
  }
  return ok;
}

/** Expands a glob path (wildcards in any component) to existing files, sorted like glob(3). */
export function globFiles(pattern: string): string[] {
  const parts = pattern.split("/");
  let bases = [parts[0] === "" ? "/" : "."];
  for (let i = parts[0] === "" ? 1 : 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part === "") continue;
    const next: string[] = [];
    for (const b of bases) {
      if (!/[*?[]/.test(part)) {
        next.push(join(b, part));
        continue;
      }
      let names: string[] = [];
      try {
        names = readdirSync(b).sort();
      } catch {
        continue;
      }
      for (const n of names) if (!n.startsWith(".") && matchPatternList([part], n)) next.push(join(b, n));
    }
    bases = next;
  }
  return bases.filter((p) => {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

function matchLine(d: Directive, st: State): boolean {
  const words = listOf(d);
  let i = 0;
  while (i < words.length) {
    const kw = words[i]!.toLowerCase();
    i++;
    if (kw === "all") continue;
    const arg = words[i];
    i++;
    const neg = kw.startsWith("!");
    const key = neg ? kw.slice(1) : kw;
    let hit: boolean;
    switch (key) {
      case "host":
        hit = matchPatternList((arg ?? "").split(","), st.values.get("hostname") ?? st.host);
        break;
      case "originalhost":
        hit = matchPatternList((arg ?? "").split(","), st.host);
        break;
      case "user":
        hit = matchPatternList((arg ?? "").split(","), st.values.get("user") ?? localUser());
        break;
      case "localuser":
        hit = matchPatternList((arg ?? "").split(","), localUser());
        break;
      default:
        st.warnings.add(`Match ${key} is not evaluated by hostgate (it never runs commands); that block was skipped`);
        return false;
    }
    if (neg ? hit : !hit) return false;
  }
  return true;
}

function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? "root";
  }
}

function walk(lines: readonly Line[], file: SshConfigFile, st: State, active: boolean): void {
  for (const line of lines) {
    if (line.type === SSHConfig.COMMENT) {
      const c = hostgateComment(line.content);
      if (c && "error" in c) st.errors.add(`${file.path}: ${c.error}`);
      else if (c) for (const t of c) if (!st.tags.includes(t)) st.tags.push(t);
      continue;
    }
    if (line.type !== SSHConfig.DIRECTIVE) continue;
    if (!active) return;
    const key = line.param.toLowerCase();
    if ("config" in line) {
      // Nothing in an inactive block applies (an Include in it is never read), so it is not walked.
      if (key === "host" ? matchPatternList(listOf(line), st.host) : matchLine(line, st)) walk(line.config, file, st, true);
      continue;
    }
    if (key === "include") {
      if (st.depth >= 16) {
        st.warnings.add("Include nested deeper than 16 levels was ignored");
        continue;
      }
      for (const pat of listOf(line)) {
        const p = pat.startsWith("~/") ? join(homedir(), pat.slice(2)) : isAbsolute(pat) ? pat : join(file.kind === "user" ? join(homedir(), ".ssh") : "/etc/ssh", pat);
        for (const f of globFiles(p)) {
          let included: SSHConfig;
          try {
            included = parseFile(f);
          } catch (e) {
            st.errors.add(`Include ${f} (from ${file.path}) cannot be used: ${(e as Error).message}`);
            continue;
          }
          st.depth++;
          walk(included, { path: f, kind: file.kind }, st, true);
          st.depth--;
        }
      }
      continue;
    }
    if (key === "identityfile") {
      st.identity.push(valueOf(line));
      continue;
    }
    if (KEYS.has(key) && !st.values.has(key)) st.values.set(key, valueOf(line));
    else if (PROXY_KEYS.has(key) && !st.values.has("proxy")) st.values.set("proxy", `${key} ${valueOf(line)}`);
    else if (HOST_KEY_OPTIONS.has(key)) st.warnings.add(`${line.param} is not honoured: hostgate checks host keys against its own known_hosts files only`);
  }
}

const cache = new Map<string, { mtimeMs: number; lines: SSHConfig }>();

function parseFile(path: string): SSHConfig {
  const st = statSync(path);
  const hit = cache.get(path);
  if (hit && hit.mtimeMs === st.mtimeMs) return hit.lines;
  const lines = SSHConfig.parse(readFileSync(path, "utf8"));
  cache.set(path, { mtimeMs: st.mtimeMs, lines });
  return lines;
}

/** The message a host with a ProxyCommand is refused with (corpus T3-07). */
export const PROXY_COMMAND_REFUSAL = "ProxyCommand is not supported, use ProxyJump";

/**
 * Resolves `host` through `files` (missing files are skipped). Never throws: a file that cannot be read or
 * parsed, a ProxyCommand or a malformed hostgate comment is listed in `errors` (the host must not be dialed).
 */
export function resolveSshHost(host: string, files: readonly SshConfigFile[]): SshResolved {
  const st: State = { host, values: new Map(), identity: [], tags: [], warnings: new Set(), errors: new Set(), depth: 0 };
  for (const f of files) {
    let lines: SSHConfig;
    try {
      lines = parseFile(f.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      st.errors.add(`${f.path} cannot be used: ${(e as Error).message}`);
      continue;
    }
    walk(lines, f, st, true);
  }
  const lower = host.toLowerCase();
  const hostname = (st.values.get("hostname") ?? lower).replace(/%(.)/g, (_m, c: string) => (c === "h" ? lower : c === "%" ? "%" : `%${c}`));
  const proxy = st.values.get("proxy") ?? "";
  const sp = proxy.indexOf(" ");
  const [proxyKey, proxyValue] = sp < 0 ? ["", ""] : [proxy.slice(0, sp), proxy.slice(sp + 1).trim()];
  const none = proxyValue.toLowerCase() === "none";
  if (proxyKey === "proxycommand" && !none) st.errors.add(`${PROXY_COMMAND_REFUSAL} (ProxyCommand ${JSON.stringify(proxyValue.slice(0, 200))}); hostgate never dials the HostName directly instead`);
  const pj = proxyKey === "proxyjump" && !none ? proxyValue : "";
  const port = Number(st.values.get("port") ?? "22");
  return {
    host,
    hostname,
    user: st.values.get("user") ?? localUser(),
    port: Number.isInteger(port) ? port : 22,
    identity_files: st.identity,
    proxy_jump: pj ? pj.split(",").map((s) => s.trim()).filter(Boolean) : [],
    tags: st.tags,
    warnings: [...st.warnings],
    errors: [...st.errors],
  };
}

/**
 * Every concrete alias named on a `Host` line of `files` (and what they include): no wildcards, no negations.
 * An included file that cannot be read or parsed is skipped and named in `problems` (its aliases cannot be
 * listed; the hosts whose resolution reaches it carry the error). A top-level file that exists but cannot be
 * read or parsed throws: nothing can be listed.
 */
export function listSshConfig(files: readonly SshConfigFile[]): { aliases: { alias: string; file: string }[]; problems: string[] } {
  const out = new Map<string, string>();
  const problems: string[] = [];
  const visit = (lines: readonly Line[], file: SshConfigFile, depth: number): void => {
    for (const line of lines) {
      if (line.type !== SSHConfig.DIRECTIVE) continue;
      const key = line.param.toLowerCase();
      if ("config" in line) {
        if (key === "host") for (const a of listOf(line)) if (!/[*?!]/.test(a) && !out.has(a)) out.set(a, file.path);
        visit(line.config, file, depth);
      } else if (key === "include" && depth < 16) {
        for (const pat of listOf(line)) {
          const p = pat.startsWith("~/") ? join(homedir(), pat.slice(2)) : isAbsolute(pat) ? pat : join(file.kind === "user" ? join(homedir(), ".ssh") : "/etc/ssh", pat);
          for (const f of globFiles(p)) {
            let included: SSHConfig;
            try {
              included = parseFile(f);
            } catch (e) {
              problems.push(`Include ${f} (from ${file.path}) cannot be used: ${(e as Error).message}`);
              continue;
            }
            visit(included, { path: f, kind: file.kind }, depth + 1);
          }
        }
      }
    }
  };
  for (const f of files) {
    try {
      visit(parseFile(f.path), f, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  return { aliases: [...out].map(([alias, file]) => ({ alias, file })), problems };
}

/** The aliases of {@link listSshConfig}, without its problems. */
export function listSshAliases(files: readonly SshConfigFile[]): { alias: string; file: string }[] {
  return listSshConfig(files).aliases;
}

/** Expands `~`, `%d`, `%u`, `%h`, `%r`, `%p`, `%%` in an IdentityFile value for use. */
export function expandIdentityFile(value: string, r: Pick<SshResolved, "hostname" | "user" | "port">): string {
  const home = homedir();
  const v = value.startsWith("~/") ? join(home, value.slice(2)) : value;
  return v.replace(/%(.)/g, (m, c: string) => ({ d: home, u: localUser(), h: r.hostname, r: r.user, p: String(r.port), "%": "%" })[c] ?? m);
}

/** The default files `ssh <host>` reads: ~/.ssh/config, then /etc/ssh/ssh_config. */
export function defaultSshConfigFiles(): SshConfigFile[] {
  return [{ path: join(homedir(), ".ssh", "config"), kind: "user" }, { path: "/etc/ssh/ssh_config", kind: "system" }];
}

