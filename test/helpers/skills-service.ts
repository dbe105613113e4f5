import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openAuditStore } from "../../src/daemon/audit-store.ts";
import { nodeCrypto } from "../../src/adapters/crypto-node.ts";
import { fileGrantStore, processRunner } from "../../src/adapters/skills-exec.ts";
import { fsSkillStore, localSkillSource, sha256 } from "../../src/adapters/skills-fs.ts";
import { fsSkillInstaller } from "../../src/adapters/skills-install.ts";
import { openRegistry } from "../../src/adapters/skills-registry.ts";
import { judgeSkillLaunch } from "../../src/app/skills/launch-policy.ts";
import { riskOnlyPolicy } from "../../src/core/policy/risk-only.ts";
import type { PolicyEngine } from "../../src/ports/policy-engine.ts";
import type { SkillsDeps } from "../../src/app/skills/deps.ts";
import { SkillsService } from "../../src/app/skills/service.ts";
import { loadRiskEngine } from "../../src/adapters/shell-parser.ts";
import type { AuditStore } from "../../src/ports/audit-store.ts";

/** A skill with several entrypoints for the exec matrix (written into a local root). */
export function writeExecSkill(root: string): void {
  const dir = join(root, "exec-test");
  mkdirSync(join(dir, "scripts"), { recursive: true });
  mkdirSync(join(dir, "agents"), { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), "---\nname: exec-test\ndescription: Entrypoints for the exec tests.\n---\n# exec-test\n");
  writeFileSync(join(dir, "scripts", "ok.sh"), 'echo "args: $*"; echo "home=$HOME"; env | sort | sed -n "s/^\\(SECRET_TOKEN\\|HOSTGATE_[A-Z_]*\\)=.*/\\1/p"\n');
  writeFileSync(join(dir, "scripts", "cat.sh"), 'cat -- "$1"\n');
  // The child sleeps for "$1" seconds (a marker the test finds in /proc: $! is a PID of the run's own namespace).
  writeFileSync(join(dir, "scripts", "sleeper.sh"), 'sleep "${1:-300}" &\necho "child=$!"\nsleep 300\n');
  writeFileSync(join(dir, "scripts", "loud.sh"), 'head -c 300000 /dev/zero | tr "\\0" "a"; head -c 200000 /dev/zero | tr "\\0" "b" >&2\n');
  writeFileSync(join(dir, "agents", "hostgate.yaml"), [
    "entrypoints:",
    "  ok: { run: scripts/ok.sh, interpreter: bash, description: prints its arguments }",
    "  cat: { run: scripts/cat.sh, interpreter: bash, description: prints a file }",
    "  sleeper: { run: scripts/sleeper.sh, interpreter: bash, description: starts a child and sleeps, timeout_seconds: 2 }",
    "  loud: { run: scripts/loud.sh, interpreter: bash, description: writes 300 KiB and 200 KiB }",
    "  secretive: { run: scripts/ok.sh, interpreter: bash, description: needs a token, secrets: [API_TOKEN] }",
    "  hidden: { run: scripts/ok.sh, interpreter: bash, description: not offered to MCP }",
    "capabilities:",
    "  mcp:",
    "    exec: [ok, cat, sleeper, loud, secretive]",
    "",
  ].join("\n"));
}

/** A test daemon's skills side on real files, a real audit chain and the real risk engine. */
export interface SkillsFixture {
  dir: string;
  root: string;
  home: string;
  project: string;
  state: string;
  service: SkillsService;
  deps: SkillsDeps;
  audit: AuditStore;
  clock: { now: () => number; advance(ms: number): void };
  close(): void;
}

export function skillsFixture(opts: { install?: boolean; exec?: boolean; registry?: string; shipped?: boolean; policy?: PolicyEngine } = {}): SkillsFixture {
  const dir = mkdtempSync(join(tmpdir(), `skills-svc-${process.pid}-`));
  const root = join(dir, "root");
  mkdirSync(root);
  if (opts.shipped !== false) cpSync(resolve(import.meta.dirname, "../../skills"), root, { recursive: true });
  writeExecSkill(root);
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(home);
  mkdirSync(project);
  const state = join(dir, "state");
  let auditStore: AuditStore | null = null;
  const audit = (): AuditStore => (auditStore ??= openAuditStore(state, { checkpointIdleMs: 0, configDir: join(dir, "etc") }));
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => { now += ms; } };
  const engine = loadRiskEngine();
  const runner = processRunner();
  const deps: SkillsDeps = {
    local: localSkillSource([root]),
    registry: opts.registry ? openRegistry(opts.registry, { timeoutMs: 2000 }) : null,
    store: fsSkillStore(join(state, "skills", "store")),
    installer: fsSkillInstaller({ recordPath: join(state, "skills", "installed.json") }),
    sha256,
    crypto: nodeCrypto,
    clock,
    audit,
    bases: { user: home, project },
    gates: { install: { on: opts.install ?? true, reason: opts.install === false ? "off in this test" : "on" }, exec: { on: opts.exec ?? true, reason: opts.exec === false ? "off in this test" : "on" } },
    exec: { grants: fileGrantStore(join(state, "skills", "grants.json")), runner, assess: (launch) => judgeSkillLaunch(launch, { engine, policy: opts.policy ?? riskOnlyPolicy }) },
    rescanMs: 0,
  };
  const service = new SkillsService(deps);
  return {
    dir, root, home, project, state, service, deps, clock,
    get audit() { return audit(); },
    close: () => { runner.killAll(); auditStore?.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}
