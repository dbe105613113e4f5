import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseGroup, parsePasswd } from "../../host/passwd.ts";

const rule = z.object({
  file: z.string(),
  line: z.number(),
  users: z.array(z.string()),
  hosts: z.array(z.string()),
  /** `(root)`, `(ALL : ALL)` as written, or null (root). */
  runas: z.string().nullable(),
  /** NOPASSWD, SETENV, … */
  tags: z.array(z.string()),
  commands: z.array(z.string()),
});
const alias = z.object({ file: z.string(), line: z.number(), kind: z.string(), name: z.string(), members: z.array(z.string()) });
const defaults = z.object({ file: z.string(), line: z.number(), text: z.string() });
type Parsed = { rules: z.infer<typeof rule>[]; aliases: z.infer<typeof alias>[]; defaults: z.infer<typeof defaults>[]; files: string[]; errors: { file: string; error: string }[] };

/** What {@link readSudoers} reads through: a file's text, a directory's names. Both throw when absent. */
export interface SudoersReader {
  read(path: string): Promise<string>;
  list(dir: string): Promise<string[]>;
}

const MAX_DEPTH = 8;
const ALIAS = /^(User_Alias|Runas_Alias|Host_Alias|Cmnd_Alias|Cmd_Alias)\s+(.*)$/;
const INCLUDE = /^[#@](include|includedir)\s+(.+)$/;

/** Splits on commas not escaped with a backslash, trimming each item. */
function splitList(text: string): string[] {
  return text.split(/(?<!\\),/).map((s) => s.trim()).filter((s) => s !== "");
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

/** Parses one user specification: `users hosts = (runas) TAG: cmd, cmd`. Null when it is not one. */
export function parseUserSpec(text: string): Omit<z.infer<typeof rule>, "file" | "line"> | null {
  const eq = text.indexOf("=");
  if (eq < 0) return null;
  const left = text.slice(0, eq).replace(/\s*,\s*/g, ",").trim().split(/\s+/);
  if (left.length !== 2) return null;
  let right = text.slice(eq + 1).trim();
  let runas: string | null = null;
  const r = /^\(([^)]*)\)\s*/.exec(right);
  if (r) { runas = `(${r[1]!.trim()})`; right = right.slice(r[0].length); }
  const tags: string[] = [];
  for (let t = /^([A-Z_]+):\s*/.exec(right); t; t = /^([A-Z_]+):\s*/.exec(right)) {
    tags.push(t[1]!);
    right = right.slice(t[0].length);
  }
  return { users: splitList(left[0]!), hosts: splitList(left[1]!), runas, tags, commands: splitList(right) };
}

async function readFile(path: string, reader: SudoersReader, out: Parsed, depth: number, seen: Set<string>): Promise<void> {
  if (seen.has(path) || depth > MAX_DEPTH) { out.errors.push({ file: path, error: depth > MAX_DEPTH ? "includes nested too deep" : "included twice (loop)" }); return; }
  seen.add(path);
  let text: string;
  try {
    text = await reader.read(path);
  } catch (err) {
    out.errors.push({ file: path, error: (err as Error).message });
    return;
  }
  out.files.push(path);
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let line = lines[i]!;
    while (line.endsWith("\\") && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!; // continuation
    line = line.trim();
    const inc = INCLUDE.exec(line);
    if (inc) {
      const target = inc[2]!.trim().replace(/^"(.*)"$/, "$1");
      const abs = target.startsWith("/") ? target : `${dirOf(path)}/${target}`;
      if (inc[1] === "include") await readFile(abs, reader, out, depth + 1, seen);
      else {
        let names: string[];
        try { names = await reader.list(abs); } catch (err) { out.errors.push({ file: abs, error: (err as Error).message }); continue; }
        // sudoers(5): files whose names end in ~ or contain a . are skipped; the rest are read in lexical order.
        for (const n of names.filter((x) => !x.endsWith("~") && !x.includes(".")).sort()) await readFile(`${abs}/${n}`, reader, out, depth + 1, seen);
      }
      continue;
    }
    line = line.replace(/(^|\s)#(?![0-9]).*$/, "").trim(); // a comment; #123 is a uid
    if (line === "") continue;
    if (/^Defaults([:@>!]\S*)?(\s|$)/.test(line)) { out.defaults.push({ file: path, line: lineNo, text: line }); continue; }
    const a = ALIAS.exec(line);
    if (a) {
      for (const def of a[2]!.split(/\s*:\s*(?=[A-Z][A-Z0-9_]*\s*=)/)) {
        const eq = def.indexOf("=");
        if (eq > 0) out.aliases.push({ file: path, line: lineNo, kind: a[1]!, name: def.slice(0, eq).trim(), members: splitList(def.slice(eq + 1)) });
      }
      continue;
    }
    const spec = parseUserSpec(line);
    if (spec) out.rules.push({ file: path, line: lineNo, ...spec });
    else out.errors.push({ file: path, error: `line ${lineNo} is not a rule sudoers(5) describes` });
  }
}

/**
 * Reads a sudoers file and everything it includes (`#include`/`@include` relative to the including file's
 * directory, `#includedir`/`@includedir` in lexical order skipping names with `.` or ending in `~`; sudoers(5)),
 * at most 8 levels deep. Unreadable files are listed in `errors`, not thrown.
 */
export async function readSudoers(main: string, reader: SudoersReader): Promise<Parsed> {
  const out: Parsed = { rules: [], aliases: [], defaults: [], files: [], errors: [] };
  await readFile(main, reader, out, 0, new Set());
  return out;
}

/** One line `visudo -c` rejects: file, 1-based line, its message ("syntax error"). */
export interface SudoersRejection { file: string; line: number | null; message: string }

/**
 * The lines `visudo -c -f <main>` rejects (it checks `main` and every file it includes, as sudo parses them), or
 * null when visudo is not installed. Parses visudo's `file:line:column: message` lines (sudo 1.9) and the older
 * `parse error in file near line N`; a failing check with neither is one rejection of `main` with visudo's first
 * line. Spawns visudo (argv only, 10 s): sudoers(5)'s grammar has no kernel or file interface.
 */
export async function visudoRejects(ctx: ActionContext, main: string): Promise<SudoersRejection[] | null> {
  const visudo = await ctx.host.which("visudo");
  if (!visudo) return null;
  const r = await ctx.host.run([visudo, "-c", "-f", main], { timeoutMs: 10_000, maxOutputBytes: 256 * 1024, env: { LC_ALL: "C" } });
  if (r.exit_code === 0) return [];
  const out: SudoersRejection[] = [];
  for (const l of `${r.stderr}\n${r.stdout}`.split("\n")) {
    const m = /^(\/[^:\s]+):(\d+):\d+: (.+)$/.exec(l.trim()) ?? null;
    const old = m ? null : /parse error in (\/\S+) near line (\d+)/.exec(l);
    if (m) out.push({ file: m[1]!, line: Number(m[2]), message: m[3]! });
    else if (old) out.push({ file: old[1]!, line: Number(old[2]), message: "parse error" });
  }
  const seen = new Set<string>();
  const unique = out.filter((x) => { const k = `${x.file}:${x.line}`; if (seen.has(k)) return false; seen.add(k); return true; });
  if (unique.length > 0) return unique;
  const first = `${r.stderr}\n${r.stdout}`.split("\n").map((x) => x.trim()).find((x) => x !== "") ?? `exit ${r.exit_code ?? r.signal}`;
  return [{ file: main, line: null, message: first }];
}

/**
 * Adds what visudo rejects to `parsed.errors` (one entry per rejected line, saying sudo does not apply it) and drops
 * the rules, aliases and Defaults read from those lines: what sudo would not apply is not reported as a rule.
 */
export function withRejections(parsed: Parsed, rejected: readonly SudoersRejection[]): Parsed {
  if (rejected.length === 0) return parsed;
  const bad = new Set(rejected.filter((x) => x.line !== null).map((x) => `${x.file}:${x.line}`));
  const keep = <T extends { file: string; line: number }>(xs: T[]): T[] => xs.filter((x) => !bad.has(`${x.file}:${x.line}`));
  const errors = rejected.map((x) => ({ file: x.file, error: `${x.line === null ? "" : `line ${x.line}: `}${x.message} (visudo -c rejects it; sudo skips it, or refuses to run without error recovery)` }));
  return { ...parsed, rules: keep(parsed.rules), aliases: keep(parsed.aliases), defaults: keep(parsed.defaults), errors: [...parsed.errors, ...errors] };
}

function hostReader(ctx: ActionContext): SudoersReader {
  return { read: (p) => ctx.host.readText(p, { maxBytes: 1024 * 1024 }), list: (d) => ctx.host.readDir(d) };
}

/** ListSudoRules: the parsed sudo policy (/etc/sudoers and what it includes): rules, aliases, Defaults. Sudoers holds no passwords. */
export default defineReadOnlyAction({
  name: "ListSudoRules",
  title: "Sudo rules",
  description: "Parsed sudo rules from /etc/sudoers and its includes: who may run what as whom, tags, aliases, Defaults; lines visudo -c rejects are errors (spawns visudo when installed).",
  params: z.object({ user: z.string().max(64).optional().describe("only rules naming this user (or ALL, or one of its %groups)") }).strict(),
  output: z.object({ files: z.array(z.string()), rules: z.array(rule), aliases: z.array(alias), defaults: z.array(defaults), errors: z.array(z.object({ file: z.string(), error: z.string() })) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const read = await readSudoers("/etc/sudoers", hostReader(ctx));
    if (read.files.length === 0) {
      const err = read.errors[0]?.error ?? "";
      if (/permission/i.test(err)) throw new HostgateError("permission_denied", "/etc/sudoers is readable by root only.", { hint: "Ask the system daemon (running as root), not an embedded daemon of an unprivileged user." });
      throw new HostgateError("not_found", "/etc/sudoers does not exist: sudo is not installed on this host.", { hint: "Check with get_package_info { name: \"sudo\" }." });
    }
    const parsed = withRejections(read, (await visudoRejects(ctx, "/etc/sudoers")) ?? []);
    if (params.user === undefined) return parsed;
    const groups = new Set<string>();
    const me = parsePasswd(await ctx.host.readText("/etc/passwd").catch(() => "")).find((u) => u.name === params.user);
    for (const g of parseGroup(await ctx.host.readText("/etc/group").catch(() => ""))) if (g.members.includes(params.user) || g.gid === me?.gid) groups.add(g.name);
    const names = (u: string): boolean => u === "ALL" || u === params.user || (u.startsWith("%") && groups.has(u.slice(1)));
    return { ...parsed, rules: parsed.rules.filter((r) => r.users.some(names)) };
  },
});
