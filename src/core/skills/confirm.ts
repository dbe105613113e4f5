import type { Crypto } from "../../ports/crypto.ts";
import { canonicalJson } from "../audit/canonical.ts";
import { HostgateError, type ErrorCode } from "../errors.ts";

/** A confirm token lives 5 minutes (reference/skills-server.txt). */
export const CONFIRM_TTL_MS = 5 * 60 * 1000;
/** Tokens look like `hgc_` + 32 random bytes in base64url. */
export const CONFIRM_PREFIX = "hgc_";
const TOKEN_RE = /^hgc_[A-Za-z0-9_-]{43}$/;
/** Outstanding tokens kept at most; the oldest go first (a plan loop cannot grow the daemon's memory). */
const MAX_RECORDS = 1024;

/** The tools a token can confirm, each paired with the plan tool that minted it. */
export type ConfirmTool = "skills_install_apply" | "skills_sync_apply";

/**
 * What a token is bound to. `session` is the confirm binding of the caller: for stdio the MCP connection
 * (a random id the front draws per connection), for stateless HTTP the caller identity (see
 * {@link sessionBinding}). `args` are the normalised plan arguments without the token.
 */
export interface ConfirmRequest {
  tool: ConfirmTool;
  session: string;
  args: Record<string, unknown>;
}

interface Entry {
  tool: ConfirmTool;
  session: string;
  argsHash: string;
  planHash: string;
  expiresAt: number;
  used: boolean;
}

/**
 * The binding string of a caller. Always the caller identity (peer uid from the kernel, client name), plus
 * the transport session when there is one: for stdio the MCP connection (a random id the front draws per
 * connection), for an HTTP session its id. Stateless HTTP has no session, so its tokens are bound to the
 * caller identity alone: any request of the same authenticated caller may redeem them (documented in
 * docs/skills.md). `session:`/`caller:` keep the two forms apart.
 */
export function sessionBinding(caller: { session?: string | undefined; uid?: number | undefined; client?: string | undefined }): string {
  const who = `${caller.uid ?? "?"}:${caller.client ?? ""}`;
  return caller.session ? `session:${who}:${caller.session}` : `caller:${who}`;
}

/**
 * Single-use confirm tokens (issue 11): minted by a plan call, redeemed once by the matching apply call in the
 * same session with the same arguments within 5 minutes. Only the SHA-256 of a token is kept. Every redeem
 * attempt that names a known token spends it, whatever the outcome, so no token is ever accepted twice and a
 * wrong guess about the arguments cannot be retried with the same token. Codes: `confirm.missing`,
 * `confirm.invalid`, `confirm.used`, `confirm.expired`, `confirm.other_session`, `confirm.arguments_changed`
 * (and the apply use case adds `confirm.plan_changed` after re-planning).
 */
export class ConfirmBook {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly crypto: Pick<Crypto, "randomBase64Url" | "sha256Hex">, private readonly now: () => number) {}

  /** Mints a token for `req` whose plan hashed to `planHash`; returns it and its expiry (ms since epoch). */
  mint(req: ConfirmRequest, planHash: string): { token: string; expires_at: number } {
    this.sweep();
    const token = `${CONFIRM_PREFIX}${this.crypto.randomBase64Url(32)}`;
    const expiresAt = this.now() + CONFIRM_TTL_MS;
    this.entries.set(this.crypto.sha256Hex(token), { tool: req.tool, session: req.session, argsHash: this.argsHash(req.tool, req.args), planHash, expiresAt, used: false });
    while (this.entries.size > MAX_RECORDS) this.entries.delete(this.entries.keys().next().value!);
    return { token, expires_at: expiresAt };
  }

  /**
   * Redeems `token` for `req`: returns the plan hash it was minted for, or throws HostgateError with one of
   * the codes above. The caller must then re-plan under its lock and refuse with `confirm.plan_changed`
   * when the new plan hashes differently.
   */
  redeem(token: string | undefined, req: ConfirmRequest): string {
    if (token === undefined || token === "") throw fail("confirm.missing", "This call needs the confirm token from the matching plan call.", "Call the plan tool with the same arguments, then pass its confirm token.");
    if (!TOKEN_RE.test(token)) throw fail("confirm.invalid", "That is not a confirm token (hgc_…).", "Pass the token exactly as the plan call returned it.");
    const e = this.entries.get(this.crypto.sha256Hex(token));
    if (!e) throw fail("confirm.invalid", "Unknown confirm token (never minted here, or the daemon restarted).", "Call the plan tool again for a fresh token.");
    const wasUsed = e.used;
    e.used = true;
    if (wasUsed) throw fail("confirm.used", "This confirm token was already presented; a token is accepted once.", "Call the plan tool again for a fresh token.");
    if (this.now() >= e.expiresAt) throw fail("confirm.expired", "This confirm token expired (tokens live 5 minutes).", "Call the plan tool again for a fresh token.");
    if (e.session !== req.session) throw fail("confirm.other_session", "This confirm token belongs to another session.", "Plan in this session and use its token.");
    if (e.tool !== req.tool || e.argsHash !== this.argsHash(req.tool, req.args)) {
      throw fail("confirm.arguments_changed", "The arguments differ from the plan this token confirms.", "Call apply with exactly the plan's arguments, or plan again with the new ones.");
    }
    return e.planHash;
  }

  private argsHash(tool: ConfirmTool, args: Record<string, unknown>): string {
    const rest = Object.fromEntries(Object.entries(args).filter(([k]) => k !== "confirm"));
    return this.crypto.sha256Hex(canonicalJson({ tool, args: rest }));
  }

  /** Drops records that expired more than one lifetime ago (kept that long so reuse still says `used`). */
  private sweep(): void {
    const cutoff = this.now() - CONFIRM_TTL_MS;
    for (const [k, e] of this.entries) if (e.expiresAt < cutoff) this.entries.delete(k);
  }
}

function fail(code: ErrorCode, message: string, hint: string): HostgateError {
  return new HostgateError(code, message, { hint });
}
