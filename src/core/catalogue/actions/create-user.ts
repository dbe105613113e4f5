import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { accountName, readAccounts } from "./accounts-common.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

const params = z.object({
  name: accountName,
  system: z.boolean().default(false).describe("A system account (uid below UID_MIN, no home unless `home` is given, no aging)"),
  shell: z.string().regex(/^\/[A-Za-z0-9._/+-]{1,255}$/, "an absolute path such as /bin/bash or /usr/sbin/nologin").optional()
    .describe("Login shell; default /bin/bash for a normal user, /usr/sbin/nologin for a system user"),
  home: z.string().regex(/^\/[A-Za-z0-9._/+-]{1,1023}$/, "an absolute path such as /home/alice").optional()
    .describe("Home directory; default /home/NAME for a normal user (created from /etc/skel)"),
  comment: z.string().regex(/^[^:\n\r\0]{0,128}$/, "at most 128 characters without ':' or line breaks").optional().describe("GECOS field, e.g. the person's name"),
}).strict();
type Params = z.infer<typeof params>;

/** The account the params ask for, with defaults filled in. */
function wanted(p: Params): { shell: string; home: string | null; create_home: boolean } {
  const shell = p.shell ?? (p.system ? "/usr/sbin/nologin" : "/bin/bash");
  const home = p.home ?? (p.system ? null : `/home/${p.name}`);
  return { shell, home, create_home: !p.system || p.home !== undefined };
}

/** Shells that exist to refuse a login; shells(5) lists valid login shells and leaves these out on purpose. */
const NO_LOGIN = /\/(nologin|false)$/;

/**
 * A warning when `shell` is a login shell not listed in /etc/shells (shells(5)): chsh(1) refuses to set such a
 * shell and services that check it (vsftpd, pam_shells) treat the account as one without a valid shell. nologin
 * and false are not warned about (they are meant to refuse logins). No /etc/shells on the host: that is said.
 */
async function shellWarnings(ctx: ActionContext, shell: string): Promise<string[]> {
  if (NO_LOGIN.test(shell)) return [];
  let text: string;
  try {
    text = await ctx.host.readText("/etc/shells", { maxBytes: 64 * 1024 });
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return [`this host has no /etc/shells, so ${shell} cannot be checked against it (shells(5)).`];
    throw err;
  }
  const listed = text.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
  return listed.includes(shell) ? [] : [`${shell} is not listed in /etc/shells: chsh refuses it and services that check /etc/shells (pam_shells, FTP servers) treat the account as having no valid shell. Source: shells(5).`];
}

async function plan(p: Params, ctx: ActionContext): Promise<PlannedChange> {
  if (p.home !== undefined && (p.home.split("/").includes("..") || p.home.split("/").includes(".") || /\/\/|\/$/.test(p.home))) {
    throw new HostgateError("invalid_params", `home ${p.home} is not a normalised absolute path.`, { hint: "Give it without '.', '..', '//' or a trailing '/'." });
  }
  const w = wanted(p);
  try {
    // A shell may be a link (/bin/sh → dash, alternatives): the file it resolves to must be a regular file.
    const link = await ctx.host.stat(w.shell);
    const st = link.is_symlink ? await ctx.host.stat(await ctx.host.realPath(w.shell)) : link;
    if (!st.is_file) throw new HostgateError("invalid_params", `shell ${w.shell} is not a regular file on this host.`, { hint: "Pick one listed in /etc/shells, or /usr/sbin/nologin." });
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new HostgateError("invalid_params", `shell ${w.shell} does not exist on this host.`, { hint: "Pick one listed in /etc/shells, or /usr/sbin/nologin." });
    throw err;
  }
  const warnings = await shellWarnings(ctx, w.shell);
  const acc = await readAccounts(ctx);
  const existing = acc.users.find((u) => u.name === p.name);
  if (existing) {
    const same = existing.shell === w.shell && (w.home === null || existing.home === w.home);
    if (!same) {
      throw new HostgateError("invalid_params", `A user named ${p.name} already exists (uid ${existing.uid}, home ${existing.home}, shell ${existing.shell}); CreateUser never changes an existing account.`, {
        hint: "Choose another name.",
        details: { uid: existing.uid },
      });
    }
    return { summary: `Create user ${p.name}: nothing to do (it exists with that shell and home, uid ${existing.uid})`, current: { exists: true, uid: existing.uid, home: existing.home, shell: existing.shell }, intended: { exists: true }, steps: [] };
  }
  if (acc.groups.some((g) => g.name === p.name)) {
    throw new HostgateError("invalid_params", `A group named ${p.name} already exists; useradd would refuse to create the user's own group.`, { hint: "Choose another name, or remove that group first." });
  }
  if (w.home !== null && w.create_home) {
    const there = await ctx.host.stat(w.home).then(() => true, (err: unknown) => {
      if (err instanceof HostgateError && err.code === "not_found") return false;
      throw err;
    });
    if (there) throw new HostgateError("invalid_params", `${w.home} already exists; CreateUser does not take over an existing directory.`, { hint: "Give another `home`, or move that directory away first." });
  }
  const argv = ["useradd", ...(p.system ? ["--system"] : []), w.create_home ? "--create-home" : "--no-create-home", ...(w.home !== null ? ["--home-dir", w.home] : []), "--shell", w.shell, "--user-group", ...(p.comment !== undefined ? ["--comment", p.comment] : []), "--", p.name];
  return {
    summary: `Create ${p.system ? "system " : ""}user ${p.name} (shell ${w.shell}, home ${w.home ?? "none"}${w.create_home && w.home !== null ? ", created from /etc/skel" : ""})`,
    current: { exists: false },
    intended: { exists: true, system: p.system, shell: w.shell, home: w.home, create_home: w.create_home },
    steps: [argv],
    detail: "The account gets its own group and no password (login by SSH key or su only until a password is set).",
    warnings,
  };
}

/**
 * CreateUser: `useradd` one local account with its own group. Refuses an existing user whose shell or home
 * differ, an existing group of that name and an existing home directory; an identical existing user is
 * "nothing to do".
 */
export default defineMutatingAction({
  name: "CreateUser",
  title: "Create a user account",
  description: "Create one local user (or system user) with its own group via useradd: shell, home (created from /etc/skel), comment. No password is set. Refuses a name that exists.",
  params,
  output: plannedApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await plan(p, ctx)),
  async apply(p, ctx) {
    const c = await plan(p, ctx);
    return applyPlanned(ctx, c);
  },
});
