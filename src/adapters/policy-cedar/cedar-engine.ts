import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import { HostgateError } from "../../core/errors.ts";
import { CEDAR_SCHEMA, cedarRequest } from "../../core/policy/cedar-model.ts";
import { stricter, type PolicyDecisionKind, type PolicyRequest, type PolicyVerdict } from "../../core/policy/gate.ts";
import { NETWORK_GRANTS, type NetworkGrant } from "../../core/sandbox/confine.ts";
import type { PolicyEngine } from "../../ports/policy-engine.ts";

/**
 * The Cedar policy engine, in-process (@cedar-policy/cedar-wasm). Policies are every `*.cedar` file of one
 * directory, read in name order, parsed, validated against `CEDAR_SCHEMA` (core/policy/cedar-model.ts) and
 * pre-parsed once; each decision is then one stateful authorization call. `reload()` (SIGHUP) swaps the set
 * only when every file loads; otherwise the old set stays and `status().last_error` says why.
 *
 * Fail closed: a policy that errors while evaluating (e.g. a missing attribute) makes the decision `deny`,
 * because Cedar skips erroring policies and a skipped `forbid` would otherwise allow.
 */

interface Loaded {
  psetId: string;
  /** Verdicts of this set by the canonical request (see {@link CedarPolicyEngine.decide}). */
  memo: Map<string, PolicyVerdict>;
  files: string[];
  ids: string[];
  annotations: Map<string, Record<string, string>>;
  loadedAt: string;
}

/** What `status()` reports (for doctor and the reload log line). */
export interface CedarStatus {
  dir: string;
  files: string[];
  policies: number;
  loaded_at: string;
  last_error: string | null;
}

let generation = 0;

/** Verdicts remembered per policy set; past this the memo starts over (a fan-out to N hosts needs N). */
const MEMO_MAX = 4096;

const DECISIONS: Record<string, PolicyDecisionKind> = { allow: "allow", require_approval: "require_approval", require_biometric: "require_biometric" };

function fail(msg: string): never {
  throw new HostgateError("invalid_params", msg, { hint: "Fix the policy file (cedar syntax: https://docs.cedarpolicy.com) and send SIGHUP to reload; the previous policies stay in force." });
}

function errText(errors: { message: string; help?: string | null }[]): string {
  return errors.map((e) => e.message + (e.help ? ` (${e.help})` : "")).join("; ");
}

function loadDir(dir: string): Loaded {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".cedar")).sort();
  } catch (e) {
    fail(`cannot read policy directory ${dir}: ${(e as Error).message}`);
  }
  if (names.length === 0) fail(`policy directory ${dir} holds no *.cedar file`);
  const policies: Record<string, string> = {};
  const annotations = new Map<string, Record<string, string>>();
  for (const name of names) {
    const text = readFileSync(join(dir, name), "utf8");
    const parts = cedar.policySetTextToParts(text);
    if (parts.type !== "success") fail(`${name}: ${errText(parts.errors)}`);
    if (parts.policy_templates.length > 0) fail(`${name}: templates are not supported; write static policies`);
    parts.policies.forEach((p, i) => {
      const json = cedar.policyToJson(p);
      if (json.type !== "success") fail(`${name} policy ${i + 1}: ${errText(json.errors)}`);
      const ann = (json.json.annotations ?? {}) as Record<string, string>;
      const id = ann.id ?? `${name}#${i + 1}`;
      if (id in policies) fail(`${name}: policy id ${JSON.stringify(id)} is used twice`);
      const d = ann.decision;
      if (d !== undefined && !(d in DECISIONS)) fail(`${name} policy ${id}: @decision must be allow, require_approval or require_biometric, not ${JSON.stringify(d)}`);
      if (d !== undefined && json.json.effect === "forbid") fail(`${name} policy ${id}: @decision belongs on permit policies (a forbid always denies)`);
      const net = ann.network;
      if (net !== undefined && !(NETWORK_GRANTS as readonly string[]).includes(net)) fail(`${name} policy ${id}: @network must be ${NETWORK_GRANTS.join(", ")}, not ${JSON.stringify(net)}`);
      if (net !== undefined && json.json.effect === "forbid") fail(`${name} policy ${id}: @network belongs on permit policies (it grants a sandboxed command the network)`);
      policies[id] = p;
      annotations.set(id, ann);
    });
  }
  const v = cedar.validate({ schema: CEDAR_SCHEMA, policies: { staticPolicies: policies }, validationSettings: { mode: "strict" } });
  if (v.type !== "success") fail(`policies do not validate: ${errText(v.errors)}`);
  if (v.validationErrors.length > 0) fail(`policies do not match hostgate's schema: ${v.validationErrors.map((e) => `${e.policyId}: ${e.error.message}`).join("; ")}`);
  const psetId = `hostgate-${process.pid}-${++generation}`;
  const pre = cedar.preparsePolicySet(psetId, { staticPolicies: policies });
  if (pre.type !== "success") fail(`policies could not be prepared: ${errText(pre.errors)}`);
  return { psetId, memo: new Map(), files: names, ids: Object.keys(policies), annotations, loadedAt: new Date().toISOString() };
}

/** See the module comment; implements the PolicyEngine port. Construct with `CedarPolicyEngine.load(dir)`. */
export class CedarPolicyEngine implements PolicyEngine {
  readonly name = "cedar";
  readonly configured = true;
  private current: Loaded;
  private lastError: string | null = null;
  readonly dir: string;

  private constructor(dir: string, loaded: Loaded) {
    this.dir = dir;
    this.current = loaded;
  }

  /** Loads every policy in `dir`. Throws HostgateError `invalid_params` saying which file and why. */
  static load(dir: string): CedarPolicyEngine {
    return new CedarPolicyEngine(dir, loadDir(dir));
  }

  /** Re-reads the directory. On any error the old set stays in force and the error is returned (and kept for status). */
  reload(): { ok: true; policies: number } | { ok: false; error: string } {
    try {
      this.current = loadDir(this.dir);
      this.lastError = null;
      return { ok: true, policies: this.current.ids.length };
    } catch (e) {
      this.lastError = `${new Date().toISOString()}: ${(e as Error).message} (the ${this.current.ids.length} previously loaded policies stay in force)`;
      return { ok: false, error: this.lastError };
    }
  }

  /** Files, policy count, load time and the last reload error. */
  status(): CedarStatus {
    return { dir: this.dir, files: this.current.files, policies: this.current.ids.length, loaded_at: this.current.loadedAt, last_error: this.lastError };
  }

  /**
   * Decides one request. Never throws for policy content: errors become `deny` with the reason. A Cedar decision
   * is a pure function of the policy set and the request (principal, action, resource with its attributes,
   * context, entities: no clock, no I/O), so each loaded set remembers its verdicts by the request's JSON (issue
   * 20: a fan-out, or a model repeating a read, asked the wasm engine again for every host and call); a reload
   * is a new set with an empty memo. The caller gets its own copy.
   */
  decide(r: PolicyRequest): PolicyVerdict {
    const req = cedarRequest(r);
    const set = this.current;
    const key = JSON.stringify(req);
    let v = set.memo.get(key);
    if (!v) {
      v = this.evaluate(req, set);
      if (set.memo.size >= MEMO_MAX) set.memo.clear();
      set.memo.set(key, v);
    }
    return { ...v, reasons: [...v.reasons], policies: [...v.policies] };
  }

  private evaluate(req: ReturnType<typeof cedarRequest>, set: Loaded): PolicyVerdict {
    const answer = cedar.statefulIsAuthorized({
      principal: req.principal,
      action: req.action,
      resource: req.resource,
      context: req.context as cedar.Context,
      entities: req.entities as cedar.Entities,
      preparsedPolicySetId: set.psetId,
      // Policies were validated against the schema at load; the request is built by cedarRequest with fixed
      // types, so re-validating it per call would only cost time (~25% of a decision).
      validateRequest: false,
    });
    if (answer.type !== "success") return { decision: "deny", reasons: [`the policy engine could not evaluate the request: ${errText(answer.errors)}`], policies: [] };
    const { decision, diagnostics } = answer.response;
    if (diagnostics.errors.length > 0) {
      return { decision: "deny", reasons: diagnostics.errors.map((e) => `policy ${e.policyId} failed to evaluate (${e.error.message}); refusing`), policies: diagnostics.errors.map((e) => e.policyId) };
    }
    const why = (id: string): string => set.annotations.get(id)?.reason ?? id;
    if (decision === "deny") {
      if (diagnostics.reason.length === 0) return { decision: "deny", reasons: ["no policy permits exec of this command on this host (default deny)"], policies: [] };
      return { decision: "deny", reasons: diagnostics.reason.map(why), policies: diagnostics.reason };
    }
    let d: PolicyDecisionKind = "allow";
    let network: NetworkGrant = "none";
    for (const id of diagnostics.reason) {
      const ann = set.annotations.get(id);
      d = stricter(d, DECISIONS[ann?.decision ?? "allow"] ?? "deny");
      // A permit that decided and names @network grants it (the widest such grant wins: it was written for this request).
      const net = ann?.network as NetworkGrant | undefined;
      if (net !== undefined && NETWORK_GRANTS.indexOf(net) > NETWORK_GRANTS.indexOf(network)) network = net;
    }
    return { decision: d, reasons: diagnostics.reason.map(why), policies: diagnostics.reason, network };
  }
}
