import { z } from "zod";
import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseGroup, parsePasswd, type GroupEntry, type PasswdEntry } from "../../host/passwd.ts";

/**
 * What the account actions (CreateUser, LockUser, UnlockUser, AddGroupMember, RemoveGroupMember, AddAuthorizedKey,
 * RemoveAuthorizedKey) share: names, the local account files, and the accounts no action may touch.
 * They read /etc/passwd, /etc/group and /etc/shadow (shadow only for the lock fields: the password hash is
 * never kept) and change them only through shadow-utils (useradd, usermod, gpasswd), which lock the files.
 */

/**
 * An account or group name hostgate creates or names: lower-case, starting with a letter or `_`, at most 32
 * characters (useradd(8) CAVEATS; Debian's stricter default NAME_REGEX without the trailing `$` of machine
 * accounts). It never starts with `-`, so it cannot become an option.
 */
export const ACCOUNT_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
export const accountName = z.string().regex(ACCOUNT_NAME, "a user or group name: lower-case letters, digits, _ and -, starting with a letter or _, at most 32 characters");

/** The account files as they are now. */
export interface Accounts {
  users: PasswdEntry[];
  groups: GroupEntry[];
}

/** Reads /etc/passwd and /etc/group (local files only: accounts from LDAP or SSSD are not changed here). */
export async function readAccounts(ctx: ActionContext): Promise<Accounts> {
  return { users: parsePasswd(await ctx.host.readText("/etc/passwd")), groups: parseGroup(await ctx.host.readText("/etc/group")) };
}

/** The user's passwd entry; `not_found` naming the user (with what to call) when /etc/passwd has none. */
export function userOf(acc: Accounts, name: string): PasswdEntry {
  const u = acc.users.find((x) => x.name === name);
  if (!u) throw new HostgateError("not_found", `No local user ${name} in /etc/passwd.`, { hint: "read_action { action: \"ListUsers\" } shows the accounts; accounts from LDAP/SSSD are not changed by hostgate." });
  return u;
}

/** The lock-related fields of one /etc/shadow line (shadow(5)); `readable: false` when the probe may not read it. */
export interface ShadowState {
  readable: boolean;
  /** The password field starts with `!` in front of a hash: a password that `usermod --unlock` would restore. */
  password_locked: boolean;
  /** A usable password hash is set (not empty, `*` or `!`-prefixed). */
  password_usable: boolean;
  /** The account expiration date (days since 1970-01-01), or null when unset. */
  expire_days: number | null;
}

/**
 * Reads `name`'s lock fields from /etc/shadow. On a host where the probe runs unprivileged (an SSH login user)
 * /etc/shadow is unreadable: the state is then `readable: false` and the preview says so.
 */
export async function shadowState(ctx: ActionContext, name: string): Promise<ShadowState> {
  let text: string;
  try {
    text = await ctx.host.readText("/etc/shadow");
  } catch (err) {
    if (err instanceof HostgateError && (err.code === "permission_denied" || err.code === "not_found")) return { readable: false, password_locked: false, password_usable: false, expire_days: null };
    throw err;
  }
  const line = text.split("\n").find((l) => l.startsWith(`${name}:`));
  const f = line?.split(":") ?? [];
  const pw = f[1] ?? "";
  const rest = pw.replace(/^!+/, "");
  const expire = f[7] ?? "";
  return {
    readable: true,
    password_locked: pw.startsWith("!") && rest !== "" && rest !== "*",
    password_usable: !pw.startsWith("!") && pw !== "" && pw !== "*",
    expire_days: /^\d+$/.test(expire) ? Number(expire) : null,
  };
}

/**
 * The accounts no account action changes, with the reason: root (uid 0), and the user hostgate itself runs as on
 * that host: the daemon's user on `local` (from /proc/<daemon pid>/status), the SSH login user on an inventory
 * host. Locking or re-grouping either would cut hostgate (or every administrator) off.
 */
export async function protectedUsers(ctx: ActionContext, acc: Accounts): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const u of acc.users) if (u.uid === 0) out.set(u.name, "it is root (uid 0)");
  if (ctx.connection) {
    out.set((await ctx.connection.facts()).ssh_user, "it is the user hostgate logs in as on this host");
  } else {
    const status = await ctx.host.readText(`/proc/${ctx.self_pid}/status`).catch(() => "");
    const uid = /^Uid:\s+(\d+)/m.exec(status);
    const self = uid ? acc.users.find((u) => u.uid === Number(uid[1])) : undefined;
    if (self && !out.has(self.name)) out.set(self.name, "it is the user the hostgate daemon runs as");
  }
  return out;
}

/** Throws `forbidden_path`-free refusal `invalid_params` when `name` is a protected account, naming why. */
export async function refuseProtected(ctx: ActionContext, acc: Accounts, name: string, verb: string): Promise<void> {
  const why = (await protectedUsers(ctx, acc)).get(name);
  if (why !== undefined) {
    throw new HostgateError("invalid_params", `hostgate does not ${verb} ${name}: ${why}.`, { hint: "Name another account; changes to this one must be made by an administrator at the console." });
  }
}

/** Today as days since 1970-01-01 by the context's clock (the unit of /etc/shadow dates). */
export function today(ctx: ActionContext): number {
  return Math.floor(ctx.clock.now() / 86_400_000);
}
