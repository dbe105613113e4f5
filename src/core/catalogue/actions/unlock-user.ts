import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { accountName, readAccounts, refuseProtected, shadowState, today, userOf } from "./accounts-common.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

const params = z.object({ name: accountName }).strict();

/**
 * UnlockUser's plan: clear an expiration date that has passed (`usermod --expiredate ""`) and remove the `!` of
 * a locked password hash (`--unlock`). A password-less account (`!` alone) stays without a password.
 */
async function plan(name: string, ctx: ActionContext): Promise<PlannedChange> {
  const acc = await readAccounts(ctx);
  userOf(acc, name);
  await refuseProtected(ctx, acc, name, "unlock");
  const s = await shadowState(ctx, name);
  const expired = s.expire_days !== null && s.expire_days <= today(ctx);
  const current = { readable: s.readable, expired, password_locked: s.password_locked, password_usable: s.password_usable };
  const intended = { expired: false, password_locked: false };
  if (s.readable && !expired && !s.password_locked) return { summary: `Unlock user ${name}: nothing to do (not expired, password not locked)`, current, intended, steps: [] };
  const clear = expired || !s.readable;
  const unlock = s.password_locked;
  return {
    summary: `Unlock user ${name}:${clear ? " clear the account's expiration date" : ""}${clear && unlock ? " and" : ""}${unlock ? " unlock its password" : ""}`,
    current,
    intended,
    steps: [["usermod", ...(clear ? ["--expiredate", ""] : []), ...(unlock ? ["--unlock"] : []), "--", name]],
    ...(s.readable ? {} : { detail: "The login user cannot read /etc/shadow here, so the current lock state is unknown; the expiration date is cleared." }),
  };
}

/** UnlockUser: undo LockUser. Refuses root and hostgate's own user (never locked by hostgate). */
export default defineMutatingAction({
  name: "UnlockUser",
  title: "Unlock a user account",
  description: "Unlock one local account: clear a passed expiration date and unlock a locked password (usermod). An account without a password stays without one. Refuses root and the user hostgate runs or logs in as.",
  params,
  output: plannedApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await plan(p.name, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await plan(p.name, ctx)),
});
