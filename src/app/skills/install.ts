import { audit } from "../audit-log.ts";
import { canonicalJson } from "../../core/audit/canonical.ts";
import type { ConfirmBook, ConfirmTool } from "../../core/skills/confirm.ts";
import type { PolicyPrincipal } from "../../core/policy/exec-request.ts";
import { HostgateError, toHostgateError } from "../../core/errors.ts";
import type { SkillDigest } from "../../core/skills/digest.ts";
import type { LockFile } from "../../core/skills/lock.ts";
import { installFolders, type Scope } from "../../core/skills/targets.ts";
import type { TreeFile } from "../../core/skills/tree.ts";
import type { SkillsInstallArgs, SkillsSyncArgs } from "../../ipc/skills.ts";
import type { LockState, TargetState } from "../../ports/skill-store.ts";
import { provenance, type Resolved, type SkillCatalog } from "./catalog.ts";
import type { SkillsDeps } from "./deps.ts";
import type { Answer } from "./read.ts";

/** Who asks: the actor for the audit chain and the confirm binding (see core/skills/confirm.ts). */
export interface SkillsCaller {
  actor: string;
  binding: string;
  /** The caller as policies see it (skills_execute's launch policy); absent: an anonymous observer. */
  who?: PolicyPrincipal;
}

/** One folder a plan writes (or leaves alone): `path` as the base resolves now, `rel` under the base. */
interface TargetPlan {
  name: string;
  path: string;
  rel: string;
  action: "create" | "replace" | "unchanged" | "blocked";
  current: string | null;
  reason?: string;
}

/** One skill of a plan: what will be installed, from where, and where it goes. */
interface SkillPlan {
  name: string;
  digest: SkillDigest;
  source: string;
  version: string | null;
  targets: TargetPlan[];
}

/**
 * A plan. `base` is the scope's folder as configured, `resolved_base` where it resolves now (held as a
 * descriptor by the installer, which never follows a link below it); every target and the lock are shown
 * under the resolved base. A lock or target behind a link or owned by someone else is `blocked`.
 */
interface Plan {
  kind: "install" | "sync";
  scope: Scope;
  runtimes: string[];
  base: string;
  resolved_base: string;
  skills: SkillPlan[];
  lock: { path: string; change: "add" | "update" | "unchanged" | "none" | "blocked"; reason?: string };
  writes: number;
  blocked: number;
}

function baseFor(d: SkillsDeps, scope: Scope): string {
  const base = d.bases[scope];
  if (!base) throw new HostgateError("unavailable", `The ${scope} scope has no install folder in this daemon.`, { hint: scope === "user" ? "The system daemon installs for a user only with skills.install.user_base in its config." : "Set skills.install.project_base in the config (the system daemon), or start hostgate from the project folder (embedded)." });
  return base;
}

/** Joins absolute POSIX path parts (the bases are absolute directories chosen by the daemon; parts are plain names). */
const join = (...parts: string[]): string => parts.join("/").replace(/\/{2,}/g, "/");

/** Where a base resolves now and its lock file's state. */
interface BaseView {
  base: string;
  resolved: string;
  lock: LockState;
}

async function viewBase(d: SkillsDeps, base: string): Promise<BaseView> {
  return { base, resolved: await d.installer.resolveBase(base), lock: await d.installer.readLock(base) };
}

async function targetsFor(d: SkillsDeps, view: BaseView, folders: readonly string[], name: string, digest: SkillDigest): Promise<TargetPlan[]> {
  const out: TargetPlan[] = [];
  for (const f of folders) {
    const rel = `${f}/${name}`;
    const path = join(view.resolved, rel);
    const st: TargetState = await d.installer.inspect(view.base, rel);
    if (st.state === "absent") out.push({ name, path, rel, action: "create", current: null });
    else if (st.state === "blocked") out.push({ name, path, rel, action: "blocked", current: null, reason: st.reason });
    else out.push({ name, path, rel, action: st.digest === digest ? "unchanged" : "replace", current: st.digest });
  }
  return out;
}

function summarise(kind: Plan["kind"], scope: Scope, runtimes: string[], view: BaseView, skills: SkillPlan[], lock: Plan["lock"]): Plan {
  const all = skills.flatMap((s) => s.targets);
  const writes = all.filter((t) => t.action === "create" || t.action === "replace").length + (lock.change === "add" || lock.change === "update" ? 1 : 0);
  const blocked = all.filter((t) => t.action === "blocked").length + (lock.change === "blocked" ? 1 : 0);
  return { kind, scope, runtimes, base: view.base, resolved_base: view.resolved, skills, lock, writes, blocked };
}

async function planInstall(cat: SkillCatalog, d: SkillsDeps, args: SkillsInstallArgs): Promise<{ plan: Plan; resolved: Resolved }> {
  const { scope, runtimes, folders } = checked(args.scope, args.runtimes);
  const view = await viewBase(d, baseFor(d, scope));
  const r = await cat.resolve(args.ref, true);
  const lock: Plan["lock"] = view.lock.state === "blocked" ? { path: view.lock.path, change: "blocked", reason: view.lock.reason } : (() => {
    const prev = view.lock.state === "present" ? view.lock.lock.skills[r.name] : undefined;
    return { path: view.lock.path, change: !prev ? "add" : prev.digest === r.digest ? "unchanged" : "update" };
  })();
  const skill: SkillPlan = { name: r.name, digest: r.digest, source: r.source === "registry" ? "registry" : "local", version: r.version, targets: await targetsFor(d, view, folders, r.name, r.digest) };
  return { plan: summarise("install", scope, runtimes, view, [skill], lock), resolved: r };
}

async function planSync(cat: SkillCatalog, d: SkillsDeps, args: SkillsSyncArgs): Promise<{ plan: Plan; sources: Map<string, Resolved> }> {
  const { scope, runtimes, folders } = checked(args.scope, args.runtimes);
  const view = await viewBase(d, baseFor(d, scope));
  if (view.lock.state === "blocked") throw new HostgateError("precondition_failed", view.lock.reason, { hint: "hostgate reads and writes the lock only through real folders owned by the base's owner." });
  if (view.lock.state === "absent") throw new HostgateError("not_found", `There is no lock file at ${view.lock.path}.`, { hint: "Install skills first (skills_install_plan / apply); each install records its pin in the lock." });
  const lock = view.lock.lock;
  const skills: SkillPlan[] = [];
  const sources = new Map<string, Resolved>();
  for (const [name, entry] of Object.entries(lock.skills).sort(([a], [b]) => (a < b ? -1 : 1))) {
    // --locked: the lock's digest is the truth; a source that now serves another tree for the name is not used.
    const r = await cat.resolve(`${name}@${entry.digest}`, true).catch((err: unknown) => toHostgateError(err));
    if (r instanceof HostgateError) {
      skills.push({ name, digest: entry.digest, source: entry.source, version: entry.version ?? null, targets: folders.map((f) => ({ name, path: join(view.resolved, f, name), rel: `${f}/${name}`, action: "blocked" as const, current: null, reason: `cannot get ${name}@${entry.digest}: ${r.message}` })) });
      continue;
    }
    sources.set(name, r);
    skills.push({ name, digest: entry.digest, source: entry.source, version: entry.version ?? null, targets: await targetsFor(d, view, folders, name, entry.digest) });
  }
  return { plan: summarise("sync", scope, runtimes, view, skills, { path: view.lock.path, change: "none" }), sources };
}

function checked(scope: string, runtimes: readonly string[] | undefined): ReturnType<typeof installFolders> {
  try {
    return installFolders(scope, runtimes);
  } catch (err) {
    throw new HostgateError("invalid_params", (err as Error).message);
  }
}

const planHash = (d: SkillsDeps, plan: Plan): string => d.crypto.sha256Hex(canonicalJson(plan));
const normalised = (args: SkillsInstallArgs | SkillsSyncArgs): Record<string, unknown> => {
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => k !== "session" && k !== "confirm"));
  return { ...rest, runtimes: checked(String(rest.scope), rest.runtimes as string[] | undefined).runtimes };
};

function planAnswer(d: SkillsDeps, book: ConfirmBook, caller: SkillsCaller, tool: ConfirmTool, args: SkillsInstallArgs | SkillsSyncArgs, plan: Plan, prov: Answer["provenance"]): Answer {
  const next = tool === "skills_install_apply" ? "skills_install_apply" : "skills_sync_apply";
  if (plan.blocked > 0) {
    return { data: { plan, confirm_required: false, next: `${plan.blocked} target(s) are blocked (see reason); resolve them, then plan again.` }, untrusted: false, provenance: prov };
  }
  const { token, expires_at } = book.mint({ tool, session: caller.binding, args: normalised(args) }, planHash(d, plan));
  const gated = d.gates.install.on ? "" : " (install tools are off in this server: start it with --allow-install)";
  return {
    data: { plan, confirm_required: true, next: plan.writes === 0 ? "Nothing to write; applying records nothing new." : `Call ${next} with the same arguments and confirm: "${token}" within 5 minutes${gated}.` },
    untrusted: false,
    provenance: prov,
    confirm: { token, expires_at: new Date(expires_at).toISOString() },
  };
}

/** skills_install_plan: what an install would write; mints a confirm token bound to caller and arguments. */
export async function installPlan(cat: SkillCatalog, d: SkillsDeps, book: ConfirmBook, caller: SkillsCaller, args: SkillsInstallArgs): Promise<Answer> {
  const { plan, resolved } = await planInstall(cat, d, args);
  return planAnswer(d, book, caller, "skills_install_apply", args, plan, [provenance(resolved)]);
}

/** skills_sync_plan: what `sync --locked` would write for the scope's lock file. */
export async function syncPlan(cat: SkillCatalog, d: SkillsDeps, book: ConfirmBook, caller: SkillsCaller, args: SkillsSyncArgs): Promise<Answer> {
  const { plan, sources } = await planSync(cat, d, args);
  return planAnswer(d, book, caller, "skills_sync_apply", args, plan, [...sources.values()].map((r) => provenance(r)));
}

/** One lifecycle change at a time in this daemon (plans re-made under it cannot interleave). */
let lifecycle: Promise<unknown> = Promise.resolve();
function underLock<T>(fn: () => Promise<T>): Promise<T> {
  const run = lifecycle.then(fn, fn);
  lifecycle = run.catch(() => undefined);
  return run;
}

async function writeSkill(cat: SkillCatalog, d: SkillsDeps, base: string, r: Resolved, targets: readonly TargetPlan[]): Promise<string[]> {
  let files: TreeFile[];
  try {
    files = await cat.files(r);
  } catch (err) {
    const e = toHostgateError(err);
    if (e.code === "precondition_failed") throw new HostgateError("confirm.plan_changed", e.message, { hint: "Plan again." });
    throw e;
  }
  await d.store.put(r.digest, files);
  const written: string[] = [];
  for (const t of targets) {
    if (t.action !== "create" && t.action !== "replace") continue;
    await d.installer.install(base, t.rel, files, r.digest);
    written.push(t.path);
  }
  return written;
}

/**
 * skills_install_apply: redeems the token, then under the lifecycle lock re-plans from scratch; a plan that
 * hashes differently (the skill, a target or the lock changed) is `confirm.plan_changed` and nothing is
 * written. The intent is audited durably before any write (fail closed), the result after. Never runs a script.
 */
export async function installApply(cat: SkillCatalog, d: SkillsDeps, book: ConfirmBook, caller: SkillsCaller, args: SkillsInstallArgs): Promise<Answer> {
  gate(d);
  const expected = book.redeem(args.confirm, { tool: "skills_install_apply", session: caller.binding, args: normalised(args) });
  return underLock(async () => {
    const { plan, resolved } = await planInstall(cat, d, args);
    await mustMatch(d, caller, "install", plan, expected);
    await audit(d.audit(), "skills.install.intent", caller.actor, { name: resolved.name, digest: resolved.digest, source: resolved.source, scope: plan.scope, runtimes: plan.runtimes, targets: plan.skills[0]!.targets.filter((t) => t.action === "create" || t.action === "replace").map((t) => t.path) }, true);
    const written = await writeSkill(cat, d, plan.base, resolved, plan.skills[0]!.targets).catch(async (err: unknown) => {
      await audit(d.audit(), "skills.install.failed", caller.actor, { name: resolved.name, digest: resolved.digest, error: (err as Error).message }).catch(() => undefined);
      throw err;
    });
    if (plan.lock.change !== "unchanged") {
      const now = await d.installer.readLock(plan.base);
      if (now.state === "blocked") throw new HostgateError("confirm.plan_changed", now.reason, { hint: "Plan again." });
      const lock: LockFile = now.state === "present" ? now.lock : { lock_version: 1, skills: {} };
      lock.skills[resolved.name] = { digest: resolved.digest, source: resolved.source === "registry" ? "registry" : "local", ...(resolved.version ? { version: resolved.version } : {}) };
      await d.installer.writeLock(plan.base, lock);
    }
    const entry = await audit(d.audit(), "skills.install", caller.actor, { name: resolved.name, digest: resolved.digest, written, lock: plan.lock.path });
    return { data: { applied: true, name: resolved.name, digest: resolved.digest, written, lock: plan.lock, audit_seq: entry.seq }, untrusted: false, provenance: [provenance(resolved)] };
  });
}

/** skills_sync_apply: like install apply, for every entry of the lock file (the lock itself is not changed). */
export async function syncApply(cat: SkillCatalog, d: SkillsDeps, book: ConfirmBook, caller: SkillsCaller, args: SkillsSyncArgs): Promise<Answer> {
  gate(d);
  const expected = book.redeem(args.confirm, { tool: "skills_sync_apply", session: caller.binding, args: normalised(args) });
  return underLock(async () => {
    const { plan, sources } = await planSync(cat, d, args);
    await mustMatch(d, caller, "sync", plan, expected);
    if (plan.blocked > 0) throw new HostgateError("confirm.plan_changed", "Some targets are blocked now.", { hint: "Plan again and resolve the blocked targets." });
    await audit(d.audit(), "skills.sync.intent", caller.actor, { scope: plan.scope, runtimes: plan.runtimes, skills: plan.skills.map((s) => `${s.name}@${s.digest}`) }, true);
    const written: string[] = [];
    for (const s of plan.skills) written.push(...await writeSkill(cat, d, plan.base, sources.get(s.name)!, s.targets));
    const entry = await audit(d.audit(), "skills.sync", caller.actor, { scope: plan.scope, written });
    return { data: { applied: true, written, audit_seq: entry.seq }, untrusted: false, provenance: [...sources.values()].map((r) => provenance(r)) };
  });
}

/**
 * How to turn a skills gate on, in words that work for both daemons: the daemon's own configuration (a system
 * daemon never sees a front's flags), or the flag on an embedded front (docs/skills.md "Gates").
 */
export const GATE_FIX = {
  install: "Set skills.allow_install: true in the daemon's configuration (`hostgate config path` names the file; a system daemon reads /etc/hostgate/config.yaml) and restart the daemon and the MCP client; with the embedded daemon, `hostgate mcp --allow-install` does the same. A system daemon also needs skills.install.user_base or project_base.",
  exec: "Set skills.allow_exec: true in the daemon's configuration (`hostgate config path` names the file; a system daemon reads /etc/hostgate/config.yaml) and restart the daemon and the MCP client; with the embedded daemon, `hostgate mcp --allow-exec` does the same. Then grant the entrypoint: hostgate skills grants add <name@sha256:…> <entrypoint>.",
} as const;

function gate(d: SkillsDeps): void {
  if (!d.gates.install.on) throw new HostgateError("forbidden_method", `The skills install gate refused: install and sync are off in this daemon (${d.gates.install.reason}).`, { hint: GATE_FIX.install, details: { gate: "install" } });
}

async function mustMatch(d: SkillsDeps, caller: SkillsCaller, kind: string, plan: Plan, expected: string): Promise<void> {
  if (planHash(d, plan) === expected) return;
  await audit(d.audit(), `skills.${kind}.refused`, caller.actor, { code: "confirm.plan_changed", scope: plan.scope }).catch(() => undefined);
  throw new HostgateError("confirm.plan_changed", "The plan changed since the confirm token was issued (a skill, a target folder or the lock file changed). Nothing was written.", { hint: "Call the plan tool again, review the new plan, and apply with its token." });
}
