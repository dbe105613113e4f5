/**
 * The layers of DESIGN.md ("Layers (what may import what)") written once, and a checker over the real import
 * graph: every static `import`/`export … from`, `import type`, and dynamic `import("…")` of every non-test
 * file under src/. Used by layers.test.ts (on src/ and on a planted fixture graph).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export type Layer = "core" | "ports" | "app" | "adapters" | "ipc" | "config" | "daemon" | "mcp" | "cli" | "bin";

/** One layer's rule: the layers it may import (itself always), and which packages. */
export interface LayerRule {
  may: readonly Layer[];
  /** Node built-ins (`node:fs`, `fs`…) allowed. */
  node: boolean;
  /** npm packages allowed: a list, or "any". */
  packages: readonly string[] | "any";
  /** `import type` of any package allowed (it carries no code) [false]. */
  typeOnlyPackages?: boolean;
}

/** DESIGN.md's table. */
export const LAYER_RULES: Record<Layer, LayerRule> = {
  // Pure domain: no I/O, no node: imports, no MCP SDK. Port interfaces are types it programs against.
  // zod, diff, jsonc-parser, smol-toml, yaml (text → values) and minisearch (an in-memory index) are pure
  // computation (no I/O); web-tree-sitter's syntax-tree types only.
  core: { may: ["ports"], node: false, packages: ["zod", "diff", "jsonc-parser", "smol-toml", "yaml", "minisearch"], typeOnlyPackages: true },
  ports: { may: ["core"], node: false, packages: ["zod"] },
  // Use cases: the domain and the ports; never an adapter, the daemon, the front or the CLI.
  app: { may: ["core", "ports"], node: false, packages: ["zod"] },
  // The only code that touches the OS.
  adapters: { may: ["core", "ports"], node: true, packages: "any" },
  // The daemon protocol.
  ipc: { may: ["core"], node: true, packages: ["zod"] },
  config: { may: ["core"], node: true, packages: ["zod", "yaml"] },
  // Composition root of the privileged process: picks adapters for the ports.
  daemon: { may: ["core", "ports", "app", "adapters", "ipc", "config"], node: true, packages: "any" },
  // The MCP front: ipc, config and core types; never adapters, app, daemon or cli.
  mcp: { may: ["ipc", "config", "core"], node: true, packages: ["zod", "@modelcontextprotocol/server", "@modelcontextprotocol/node", "@modelcontextprotocol/core"] },
  // One file per subcommand; it starts the daemon or the front, or talks to a daemon over ipc.
  cli: { may: ["core", "config", "ipc", "daemon", "mcp"], node: true, packages: "any" },
  bin: { may: ["cli"], node: true, packages: ["commander"] },
};

/**
 * Crossings that stay, each with its reason (file → imported file, both relative to src/). Anything not
 * listed here and not allowed by LAYER_RULES fails the test.
 */
export const ALLOWED_EXCEPTIONS: readonly { from: string; to: string; why: string }[] = [
  {
    from: "{app/*,app/skills/*}", to: "ipc/{protocol,plan-command,hosts,skills,skills-ext,json-schema,prebuilt,methods,dispatch,client,find-actions}.ts",
    why: "the use cases answer with the daemon protocol's wire types, and the handlers implement the method table; ipc/ owns those schemas so the MCP front (which may not import app/) shares them",
  },
  { from: "adapters/inventory/*", to: "config/hosts.ts", why: "each inventory backend takes its own validated config section (ProviderConfig, a type)" },
  { from: "app/inventory.ts", to: "config/hosts.ts", why: "search_hosts validates per-request overrides with the same schemas as the config file" },
  { from: "cli/audit.ts", to: "adapters/*", why: "`hostgate audit verify` works offline on a copied database without a daemon: it opens the read-only store and keys itself" },
  { from: "cli/risk.ts", to: "{app/assess-command.ts,adapters/shell-parser.ts}", why: "`hostgate risk` judges a command locally with the same use case as plan_command, without a daemon" },
  { from: "cli/{daemon-install,setup-prompts}.ts", to: "adapters/service-install.ts", why: "installing the systemd unit is a local file operation of the setup command, before any daemon exists" },
  { from: "cli/{doctor-checks,install-paths,setup-run,client-plugins}.ts", to: "adapters/{client-files,mcp-probe}.ts", why: "setup and doctor edit and probe AI-client config files of the user running them (and read which plugins and extensions of hostgate the clients installed), not the daemon's" },
  { from: "cli/setup-command.ts", to: "adapters/run-as-owner.ts", why: "setup run as root for a user's home re-runs itself as that home's owner (setpriv) before it touches anything there (issue 21)" },
  { from: "cli/daemon.ts", to: "adapters/{peer-credentials,os-groups}.ts", why: "`hostgate daemon` is a composition root: it hands SO_PEERCRED to its listeners and resolves daemon.agent_group/admin_group to gids for its sockets" },
];

/** Whether `path` matches a pattern with `*` (one path segment part) and `{a,b}` alternatives. */
export function matches(pattern: string, path: string): boolean {
  const expand = (p: string): string[] => {
    const m = /\{([^}]*)\}/.exec(p);
    return m ? m[1]!.split(",").flatMap((alt) => expand(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length))) : [p];
  };
  return expand(pattern).some((p) => new RegExp(`^${p.replace(/[.+^$()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`).test(path));
}

/** One import edge. */
export interface Edge {
  from: string;
  to: string;
  dynamic: boolean;
  typeOnly: boolean;
}

/** Every import of one file (static, re-export, type-only and dynamic), via TypeScript's own pre-processor. */
export function importsOf(file: string, text: string): { specifier: string; dynamic: boolean; typeOnly: boolean }[] {
  const out: { specifier: string; dynamic: boolean; typeOnly: boolean }[] = [];
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword : node.isTypeOnly;
      out.push({ specifier: node.moduleSpecifier.text, dynamic: false, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      out.push({ specifier: arg && ts.isStringLiteralLike(arg) ? arg.text : "<computed>", dynamic: true, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ specifier: node.argument.literal.text, dynamic: false, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** All non-test .ts files under `root`, relative to it. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts") && !p.endsWith(".test.ts") && !p.endsWith(".d.ts")) out.push(relative(root, p).split(sep).join("/"));
    }
  };
  walk(root);
  return out.sort();
}

const layerOf = (rel: string): Layer | null => {
  const top = rel.split("/")[0]!;
  return top in LAYER_RULES ? (top as Layer) : null;
};

const BUILTINS = new Set(builtinModules);
const packageOf = (spec: string): string => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);

/** A rule broken by one import. */
export interface Violation {
  from: string;
  specifier: string;
  dynamic: boolean;
  why: string;
}

/** Checks every file under `root` (a src/ directory) against {@link LAYER_RULES} and {@link ALLOWED_EXCEPTIONS}. */
export function checkLayers(root: string, exceptions = ALLOWED_EXCEPTIONS): Violation[] {
  const violations: Violation[] = [];
  for (const file of sourceFiles(root)) {
    const layer = layerOf(file);
    if (layer === null) continue;
    const rule = LAYER_RULES[layer];
    for (const imp of importsOf(file, readFileSync(join(root, file), "utf8"))) {
      const spec = imp.specifier;
      let why: string | null = null;
      if (spec === "<computed>") why = "a computed dynamic import() cannot be checked";
      else if (spec.startsWith(".")) {
        const target = relative(root, resolve(dirname(join(root, file)), spec)).split(sep).join("/");
        const to = layerOf(target);
        if (target.startsWith("..")) why = `imports ${target}, outside src/`;
        else if (to !== null && to !== layer && !rule.may.includes(to)) {
          if (exceptions.some((e) => matches(e.from, file) && matches(e.to, target))) continue;
          why = `${layer}/ may not import ${to}/ (${target})`;
        }
      } else if (spec.startsWith("node:") || BUILTINS.has(spec)) {
        if (!rule.node) why = `${layer}/ may not import Node built-ins (${spec})`;
      } else if (rule.packages !== "any" && !rule.packages.includes(packageOf(spec)) && !(imp.typeOnly && rule.typeOnlyPackages === true)) {
        why = `${layer}/ may not import the package ${packageOf(spec)}`;
      }
      if (why !== null) violations.push({ from: file, specifier: spec, dynamic: imp.dynamic, why });
    }
  }
  return violations;
}
