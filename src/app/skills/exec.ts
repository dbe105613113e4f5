import { audit } from "../audit-log.ts";
import { HostgateError } from "../../core/errors.ts";
import { redactSecrets } from "../../core/redact.ts";
import { SKILL_LIMITS } from "../../core/skills/limits.ts";
import { parseRef } from "../../core/skills/ref.ts";
import { isValid, loadSkill } from "../../core/skills/skill.ts";
import type { SkillsExecuteArgs, SkillsGrantArgs } from "../../ipc/skills.ts";
import type { ExecGrant, ExecRunner, GrantStore } from "../../ports/skill-store.ts";
import { describeDiff, diffDigestSets, fileDigests, sameDigestSet, type FileDigest } from "../../core/skills/entry.ts";
import { provenance, type SkillCatalog } from "./catalog.ts";
import type { SkillsDeps } from "./deps.ts";
import type { SkillsCaller } from "./install.ts";
import type { PolicyPrincipal } from "../../core/policy/exec-request.ts";
import type { LaunchVerdict, SkillLaunch } from "./launch-policy.ts";
import { GATE_FIX } from "./install.ts";
import type { Answer } from "./read.ts";

/** What skills_execute needs besides the common deps. */
export interface ExecDeps {
  grants: GrantStore;
  runner: ExecRunner;
  /** Judges the launch: risk engine, then the daemon's policy (app/skills/launch-policy.ts `judgeSkillLaunch`). */
  assess(launch: SkillLaunch): Promise<LaunchVerdict>;
}

const INTERPRETER_PATHS = { bash: "/bin/bash", sh: "/bin/sh", python3: "/usr/bin/python3" } as const;

/** POSIX shell quoting of one word (for the risk engine and the audit entry; nothing is run through a shell). */
const quote = (w: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

/** The principal when the caller is unknown (a test double): the least role, no name, no uid. */
const ANONYMOUS: PolicyPrincipal = { role: "observer", client: "", uid: null };

let running = false;

function cut(bytes: Uint8Array, total: number): { text: string; truncated: boolean; redactions: number } {
  // Redact a little past the cap first, so a secret straddling the cut is caught whole, then cut.
  const r = redactSecrets(new TextDecoder().decode(bytes));
  const enc = new TextEncoder().encode(r.text);
  const truncated = total > SKILL_LIMITS.execOutputBytes || enc.length > SKILL_LIMITS.execOutputBytes;
  let end = Math.min(enc.length, SKILL_LIMITS.execOutputBytes);
  while (end < enc.length && end > 0 && (enc[end]! & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(enc.subarray(0, end)), truncated, redactions: r.redactions };
}

/**
 * skills_execute: runs one granted entrypoint of a digest-pinned skill, in the daemon. Refused (`exec_refused`)
 * unless the ref is pinned by digest, the tree hashes to it, the skill is valid, the entrypoint opts in with
 * capabilities.mcp.exec, declares no secrets, and an admin granted exactly (digest, entrypoint); refused when
 * the risk engine denies the launch. One run at a time (`exec_busy`); a run ends when its main process exits
 * (plus a short drain), in its own PID namespace where the host allows it, so a child left behind cannot hold
 * the lock (issue 21). The tree runs from the read-only store, with a minimal environment (PATH, LANG,
 * HOSTGATE_SKILL*, a private HOME and TMPDIR; nothing inherited, so no inherited secrets), in an empty
 * directory; output is redacted and capped at 128 KiB per stream. Intent and result are audited with `origin: mcp`.
 */
export async function execute(cat: SkillCatalog, d: SkillsDeps, caller: SkillsCaller, args: SkillsExecuteArgs, signal?: AbortSignal): Promise<Answer> {
  if (!d.gates.exec.on || !d.exec) throw new HostgateError("forbidden_method", `The skills exec gate refused: exec is off in this daemon (${d.gates.exec.reason}).`, { hint: GATE_FIX.exec, details: { gate: "exec" } });
  const ex = d.exec;
  const ref = parseRef(args.ref);
  if ("error" in ref) throw new HostgateError("invalid_params", ref.error);
  // `gate` names what refused (issue 22): the skill itself, the grant, the risk engine or the policy.
  const refuse = async (message: string, hint: string, gate: "skill" | "grant" | "risk_engine" | "policy" = "skill"): Promise<never> => {
    await audit(d.audit(), "skills.exec.refused", caller.actor, { ref: args.ref, entrypoint: args.entrypoint, reason: message, gate, origin: "mcp" }).catch(() => undefined);
    throw new HostgateError("exec_refused", message, { hint, details: { gate } });
  };
  if (ref.kind !== "digest") return refuse("skills_execute runs digest-pinned references only.", "Pin it: skills_resolve gives pinned_ref (name@sha256:…).");
  const r = await cat.resolve(args.ref, true);
  const files = await cat.files(r);
  const skill = loadSkill(r.name, files, d.sha256);
  if (!isValid(skill)) return refuse(`${r.name} is not a valid skill.`, "skills_inspect lists its problems.");
  const ep = skill.side.entrypoints.find((e) => e.name === args.entrypoint);
  if (!ep) return refuse(`${r.name} has no entrypoint ${JSON.stringify(args.entrypoint)}.`, `Entrypoints: ${skill.side.entrypoints.map((e) => e.name).join(", ") || "none"}.`);
  if (!ep.mcp_exec) return refuse(`Entrypoint ${ep.name} does not opt in to MCP exec (capabilities.mcp.exec).`, "Only entrypoints listed under capabilities.mcp.exec in agents/hostgate.yaml can be run by a model.");
  if (ep.secrets.length > 0) return refuse(`Entrypoint ${ep.name} declares secrets (${ep.secrets.join(", ")}); skills_execute never runs those.`, "Run it yourself in a terminal.");
  const grantDenial = grantGap(await ex.grants.list(), r.name, r.digest, ep.name, fileDigests(files, d.sha256));
  if (grantDenial !== null) return refuse(grantDenial, `An administrator grants it at a terminal: hostgate skills grants add ${r.name}@${r.digest} ${ep.name}`, "grant");
  const dir = await d.store.put(r.digest, files);
  const argv = [INTERPRETER_PATHS[ep.interpreter], `${dir}/${ep.run}`, ...args.args];
  const command = argv.map(quote).join(" ");
  const risk = await ex.assess({ command, skill: { name: r.name, digest: r.digest, entrypoint: ep.name }, who: caller.who ?? ANONYMOUS });
  if (risk.refused_by === "risk_engine") return refuse(`The risk engine refused this launch: ${risk.reason}`, "Change the arguments; a critical or denied command line never runs, whatever a grant or policy says.", "risk_engine");
  if (risk.refused_by === "policy") {
    const biometric = risk.decision === "require_biometric";
    return refuse(
      biometric ? `The policy asks for a passkey approval, which a grant cannot give: ${risk.reason}` : `The policy refused this launch: ${risk.reason}`,
      biometric ? "Run the script through plan and hostgate approve instead." : `An administrator adds a Cedar permit for it to policy.dir and reloads the daemon (SIGHUP), e.g. permit (principal in Hostgate::Role::"${caller.who?.role ?? "operator"}", action == Hostgate::Action::"exec", resource == Hostgate::Host::"local") when { context has skill && context has entrypoint && context.skill == "${r.name}" && context.entrypoint == "${ep.name}" }; (examples/policies/30-skills.cedar, docs/skills.md).`,
      "policy",
    );
  }
  const timeoutSeconds = args.timeoutSeconds > 0 ? args.timeoutSeconds : (ep.timeout_seconds ?? SKILL_LIMITS.execTimeoutDefaultSeconds);
  const base = { name: r.name, digest: r.digest, entrypoint: ep.name, command, argv, risk, timeout_seconds: timeoutSeconds, origin: "mcp" as const };
  if (args.dryRun) return { data: { ...base, dry_run: true, granted: true }, untrusted: false, provenance: [provenance(r, ep.run)] };
  if (running) throw new HostgateError("exec_busy", "Another skills_execute run is in progress; one runs at a time.", { hint: "Wait for it to finish, then call again." });
  running = true;
  try {
    await audit(d.audit(), "skills.exec.intent", caller.actor, { name: r.name, digest: r.digest, entrypoint: ep.name, command, risk_level: risk.risk_level, origin: "mcp" }, true);
    const out = await ex.runner.run({
      argv,
      env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8", HOSTGATE_SKILL: r.name, HOSTGATE_SKILL_DIGEST: r.digest },
      timeoutMs: timeoutSeconds * 1000,
      captureBytes: SKILL_LIMITS.execOutputBytes + 4096,
      signal,
    });
    const so = cut(out.stdout, out.stdout_bytes);
    const se = cut(out.stderr, out.stderr_bytes);
    const result = {
      ...base, exit_code: out.exit_code, signal: out.signal, timed_out: out.timed_out, cancelled: out.cancelled, duration_ms: out.duration_ms, confinement: out.confinement,
      stdout: so.text, stderr: se.text, truncated: { stdout: so.truncated, stderr: se.truncated }, redactions: so.redactions + se.redactions,
    };
    const entry = await audit(d.audit(), "skills.exec", caller.actor, { name: r.name, digest: r.digest, entrypoint: ep.name, exit_code: out.exit_code, signal: out.signal, timed_out: out.timed_out, cancelled: out.cancelled, duration_ms: out.duration_ms, stdout_bytes: out.stdout_bytes, stderr_bytes: out.stderr_bytes, confinement: out.confinement, origin: "mcp" });
    return { data: { ...result, audit_seq: entry.seq }, untrusted: true, provenance: [provenance(r, ep.run)] };
  } finally {
    running = false;
  }
}

/**
 * Why no grant covers this launch, or null when one does: a grant covers it when it names this entrypoint and
 * this tree digest and, when it recorded its per-file digest set, that set is the one on disk now. When the
 * entrypoint was granted for another content of the same skill, the sentence names the files that changed
 * since (a planted edit needs a new grant).
 */
export function grantGap(grants: readonly ExecGrant[], name: string, digest: string, entrypoint: string, files: readonly FileDigest[]): string | null {
  const mine = grants.filter((g) => g.name === name && g.entrypoint === entrypoint);
  if (mine.some((g) => g.digest === digest && (!g.files || sameDigestSet(diffDigestSets(g.files, files))))) return null;
  const earlier = mine.filter((g) => g.files).sort((a, b) => (a.granted_at < b.granted_at ? -1 : 1)).at(-1);
  if (!earlier) return `The grant gate refused: ${name}@${digest} entrypoint ${entrypoint} is not granted.`;
  return `The grant gate refused: ${name} entrypoint ${entrypoint} was granted for ${earlier.digest}, and the skill's files changed since (${describeDiff(diffDigestSets(earlier.files!, files))}); a changed skill needs a new grant.`;
}

/** Admin: grants one entrypoint of one exact tree. The skill must resolve, be valid and the entrypoint opt in. */
export async function grantAdd(cat: SkillCatalog, d: SkillsDeps, actor: string, args: SkillsGrantArgs): Promise<Answer> {
  if (!d.exec) throw new HostgateError("unavailable", "This daemon has no exec grants store.", { hint: "Exec needs the daemon's state directory." });
  const ref = parseRef(args.ref);
  if ("error" in ref) throw new HostgateError("invalid_params", ref.error);
  if (ref.kind !== "digest") throw new HostgateError("invalid_params", "Grants are for digest-pinned references (name@sha256:…), so a changed skill is never run under an old grant.", { hint: "Get it with hostgate skills resolve <name> --json (pinned_ref)." });
  const r = await cat.resolve(args.ref, true);
  const files = await cat.files(r);
  const skill = loadSkill(r.name, files, d.sha256);
  if (!isValid(skill)) throw new HostgateError("invalid_skill", `${r.name} is not valid: ${skill.problems.map((p) => p.message).join(" ")}`);
  const ep = skill.side.entrypoints.find((e) => e.name === args.entrypoint);
  if (!ep) throw new HostgateError("not_found", `${r.name} has no entrypoint ${args.entrypoint}.`, { hint: `Entrypoints: ${skill.side.entrypoints.map((e) => e.name).join(", ") || "none"}.` });
  if (!ep.mcp_exec) throw new HostgateError("exec_refused", `Entrypoint ${ep.name} does not opt in to MCP exec (capabilities.mcp.exec); a grant would have no effect.`);
  if (ep.secrets.length > 0) throw new HostgateError("exec_refused", `Entrypoint ${ep.name} declares secrets; skills_execute never runs those, so it cannot be granted.`);
  await d.store.put(r.digest, files);
  // The grant records the per-file digest set it is given for (SEP-2640 content binding), so a refusal can
  // name what changed since and a SEP-2640 entry of the same set shows the grant.
  const grant = { name: r.name, digest: r.digest, entrypoint: ep.name, granted_by: actor, granted_at: new Date(d.clock.now()).toISOString(), files: fileDigests(files, d.sha256) };
  await audit(d.audit(), "skills.grant.add", actor, { ...grant, files: grant.files.map((f) => ({ ...f })) }, true);
  await ex(d).add(grant);
  return { data: { granted: grant }, untrusted: false, provenance: [provenance(r)] };
}

/** Admin: lists grants. */
export async function grantList(d: SkillsDeps): Promise<Answer> {
  return { data: { grants: d.exec ? await d.exec.grants.list() : [] }, untrusted: false, provenance: [] };
}

/** Admin: revokes one grant. */
export async function grantRemove(d: SkillsDeps, actor: string, args: SkillsGrantArgs): Promise<Answer> {
  const ref = parseRef(args.ref);
  if ("error" in ref || ref.kind !== "digest") throw new HostgateError("invalid_params", "Name the grant by its digest-pinned reference (name@sha256:…).");
  await audit(d.audit(), "skills.grant.remove", actor, { ref: args.ref, entrypoint: args.entrypoint }, true);
  const removed = await ex(d).remove(ref.digest, args.entrypoint);
  if (!removed) throw new HostgateError("not_found", `No grant for ${args.ref} ${args.entrypoint}.`);
  return { data: { removed: { ref: args.ref, entrypoint: args.entrypoint } }, untrusted: false, provenance: [] };
}

function ex(d: SkillsDeps): GrantStore {
  if (!d.exec) throw new HostgateError("unavailable", "This daemon has no exec grants store.");
  return d.exec.grants;
}
