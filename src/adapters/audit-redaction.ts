import { CanonicalEncodingError, canonicalJson } from "../core/audit/canonical.ts";
import type { JsonValue } from "../core/audit/canonical.ts";
import { KIND_PATTERN, MAX_ACTOR_LENGTH } from "../core/audit/entry.ts";
import { HostgateError } from "../core/errors.ts";
import { compileExtraPatterns, redactDeep, redactSecrets } from "../core/redact.ts";
import type { AuditAppend } from "../ports/audit-store.ts";

/** An entry ready for the chain writer: checked kind, redacted actor, redacted canonical payload text. */
export interface PreparedEntry {
  kind: string;
  actor: string;
  payloadText: string;
}

/**
 * How the audit store uses the one redactor (core/redact.ts): checks an append's kind and actor, redacts
 * secrets from the payload (deep) and the actor with the built-in rules plus the configured patterns, and
 * encodes the payload as canonical JSON — all before anything is hashed or signed. Throws HostgateError
 * `invalid_params` for a bad kind, an over-long actor or a payload with no canonical form.
 */
export class AuditRedaction {
  private readonly extra: RegExp[];

  constructor(secretPatterns: readonly (RegExp | string)[] = []) {
    this.extra = compileExtraPatterns(secretPatterns);
  }

  prepare(input: AuditAppend): PreparedEntry {
    if (typeof input.kind !== "string" || input.kind.length > 64 || !KIND_PATTERN.test(input.kind)) {
      throw new HostgateError("invalid_params", `audit kind ${JSON.stringify(input.kind)} is not a lowercase dotted identifier of at most 64 characters`);
    }
    if (typeof input.actor !== "string" || input.actor.length > MAX_ACTOR_LENGTH) {
      throw new HostgateError("invalid_params", `audit actor must be a string of at most ${MAX_ACTOR_LENGTH} characters`);
    }
    // The one redactor of answers and previews (core/redact.ts), plus the configured patterns.
    const payloadText = encodePayload(redactDeep(input.payload, { extra: this.extra }).value);
    return { kind: input.kind, actor: redactSecrets(input.actor, { extra: this.extra }).text, payloadText };
  }
}

/** Canonical JSON of a payload; `invalid_params` when it has no canonical form. */
export function encodePayload(value: JsonValue): string {
  try {
    return canonicalJson(value);
  } catch (err) {
    if (err instanceof CanonicalEncodingError) {
      throw new HostgateError("invalid_params", `audit payload rejected: ${err.message}`, { hint: "Use integers, strings, booleans, null, arrays and plain objects only." });
    }
    throw err;
  }
}
