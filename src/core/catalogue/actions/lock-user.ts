import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { accountName, readAccounts, refuseProtected, shadowState, today, userOf } from "./accounts-common.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

const params = z.object({ name: accountName }).strict();

/**
 * What LockUser does: expire the account (`usermod --expiredate 1`: shadow(5)'s expiration date set to
 * 1970-01-02 ends every login, SSH keys included, which a password lock alone does not) and lock a usable
 * password (`--lock`: a `!` in front of the hash). Shared with UnlockUser, which undoes both.
 */
export async function lockPlan(name: string, ctx: ActionContext): Promise<PlannedChange> {
  const acc = await readAccounts(ctx);
  userOf(acc, name);
  await refuseProtected(ctx, acc, name, "lock");
  const s = await shadowState(ctx, name);
  const current = { readable: s.readable, expired: s.expire_days !== null && s.expire_days <= today(ctx), password_locked: s.password_locked, password_usable: s.password_usable };
  const intended = { expired: true, password_locked: s.password_locked || s.password_usable };
  if (s.readable && current.expired && !s.password_usable) {
    return { summary: `Lock user ${name}: nothing to do (already expired${s.password_locked ? ", password locked" : ""})`, current, intended, steps: [] };
  }
  const lockPw = s.password_usable || !s.readable;
  return {
    summary: `Lock user ${name}: expire the account${lockPw ? " and lock its password" : ""}`,
    current,
    intended,
    steps: [["usermod", "--expiredate", "1", ...(lockPw ? ["--lock"] : []), "--", name]],
    detail: s.readable ? "Running sessions are not ended; new logins (password, SSH key, su) are refused." : "The login user cannot read /etc/shadow here, so the current lock state is unknown; the account is expired and its password locked either way.",
  };
}

/** LockUser: refuse every new login of one local account. Refuses root and hostgate's own user. */
export default defineMutatingAction({
  name: "LockUser",
  title: "Lock a user account",
  description: "Lock one local account: expire it (blocks password and SSH-key logins) and lock its password (usermod). Running sessions stay. Refuses root and the user hostgate runs or logs in as. UnlockUser undoes it.",
  params,
  output: plannedApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await lockPlan(p.name, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await lockPlan(p.name, ctx)),
});
