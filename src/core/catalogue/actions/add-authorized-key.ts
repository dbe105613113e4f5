import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { KeyFormatError, parsePublicKey, type PublicKey } from "../../host/ssh-key.ts";
import { accountName, readAccounts, userOf } from "./accounts-common.ts";
import { contentOf, keysAgentView, keysApplyOutput, readKeysFile, recheckKeysFile, summaryOf, writeKeysFile, type KeysFile } from "./authorized-keys-file.ts";

const params = z.object({
  user: accountName,
  key: z.string().min(1).max(16 * 1024).describe("One public key line as in a .pub file: [options] type base64 [comment], e.g. ssh-ed25519 AAAAC3Nza… alice@laptop"),
}).strict();

/** The key, validated as `ssh-keygen -l` would; `invalid_params` saying what to send otherwise. */
export function keyOf(line: string, ctx: ActionContext): PublicKey {
  try {
    return parsePublicKey(line, ctx.hash);
  } catch (err) {
    if (err instanceof KeyFormatError) throw new HostgateError("invalid_params", `key: ${err.message}.`);
    throw err;
  }
}

async function inspect(p: z.infer<typeof params>, ctx: ActionContext): Promise<{ file: KeysFile; key: PublicKey; present: boolean; next: string[] }> {
  const key = keyOf(p.key, ctx);
  const u = userOf(await readAccounts(ctx), p.user);
  const file = await readKeysFile(ctx, u);
  const present = file.lines.some((l) => l.key?.type === key.type && l.key.blob === key.blob);
  const line = [key.options, key.type, key.blob, key.comment].filter((s) => s !== "").join(" ");
  return { file, key, present, next: present ? file.lines.map((l) => l.line) : [...file.lines.map((l) => l.line), line] };
}

async function preview(p: z.infer<typeof params>, ctx: ActionContext): Promise<Preview> {
  const { file, key, present, next } = await inspect(p, ctx);
  const keys = file.lines.flatMap((l) => (l.key ? [summaryOf(l.key)] : []));
  const summary = present ? `Add key ${key.fingerprint} for ${p.user}: nothing to do (already authorized)` : `Authorize key ${key.fingerprint} (${key.type}${key.comment ? `, ${key.comment}` : ""}) for ${p.user}`;
  const warnings = [
    ...(present ? [] : userOf(await readAccounts(ctx), p.user).uid === 0 ? [`This key will log in as root.`] : []),
    ...(key.options !== "" && !present ? [`The key carries sshd options: ${key.options}`] : []),
  ];
  const text = [
    summary,
    present ? "(nothing will run)" : `will write ${file.path} as ${p.user} (mode 0600, atomic rename${file.exists ? "" : "; .ssh created 0700 if missing"})`,
    "",
    `keys now (${keys.length}):`,
    ...keys.map((k) => `  ${k.fingerprint} ${k.type} ${k.comment}${k.options ? ` [${k.options}]` : ""}`),
    ...(present ? [] : [`+ ${key.fingerprint} ${key.type} ${key.comment}${key.options ? ` [${key.options}]` : ""}`]),
    ...(warnings.length > 0 ? ["", "WARNINGS:", ...warnings.map((w) => `  !! ${w}`)] : []),
  ].join("\n");
  return {
    summary, text: `${text}\n`,
    current: { path: file.path, exists: file.exists, sha256: file.sha256, keys },
    intended: { key: summaryOf(key), present: true, lines: next.length },
    ...(warnings.length > 0 ? { warnings } : {}),
    agent: keysAgentView(summary, summaryOf(key), keys.length, present ? keys.length : keys.length + 1),
  };
}

/** AddAuthorizedKey: append one validated public key to a user's ~/.ssh/authorized_keys (see authorized-keys-file.ts). */
export default defineMutatingAction({
  name: "AddAuthorizedKey",
  title: "Authorize an SSH key for a user",
  description: "Append one SSH public key (validated like ssh-keygen -l) to a local user's ~/.ssh/authorized_keys, written as that user (0600, atomic; links refused). A key already there is nothing to do.",
  params,
  output: keysApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview,
  async apply(p, ctx, approved) {
    const u = userOf(await readAccounts(ctx), p.user);
    await recheckKeysFile(ctx, u, approved);
    const { file, key, present, next } = await inspect(p, ctx);
    if (!present) await writeKeysFile(ctx, u, file.sha256, contentOf(next));
    return { user: p.user, path: file.path, changed: !present, keys: next.filter((l) => l.trim() !== "" && !l.trim().startsWith("#")).length, fingerprint: key.fingerprint };
  },
});
