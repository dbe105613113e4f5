import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { KeyFormatError, parsePublicKey, type PublicKey } from "../../host/ssh-key.ts";
import { accountName, readAccounts, userOf } from "./accounts-common.ts";
import { applyKeysChange, keysAgentView, keysApplyOutput, readKeysFile, summaryOf, type KeysFile } from "./authorized-keys-file.ts";

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

/**
 * What adding `p.key` changes: `add` (not there), `none` (there with the same options, or the request carries no
 * options: a key asked for without options never widens a present key's restrictions), or `options` (there with
 * other options than the request's: its line is replaced, options and comment, in place; the preview says from what
 * to what). `now`: the present key's options ("" for none).
 */
async function inspect(p: z.infer<typeof params>, ctx: ActionContext): Promise<{ file: KeysFile; key: PublicKey; change: "add" | "none" | "options"; now: string; next: string[] }> {
  const key = keyOf(p.key, ctx);
  const u = userOf(await readAccounts(ctx), p.user);
  const file = await readKeysFile(ctx, u);
  const same = (l: KeysFile["lines"][number]): boolean => l.key?.type === key.type && l.key.blob === key.blob;
  const present = file.lines.find(same);
  const line = [key.options, key.type, key.blob, key.comment].filter((s) => s !== "").join(" ");
  const lines = file.lines.map((l) => l.line);
  if (!present) return { file, key, change: "add", now: "", next: [...lines, line] };
  const now = present.key!.options;
  if (key.options === "" || key.options === now) return { file, key, change: "none", now, next: lines };
  let replaced = false;
  const next = file.lines.flatMap((l) => {
    if (!same(l)) return [l.line];
    if (replaced) return []; // a duplicate line of the same key goes: one line, with the asked options
    replaced = true;
    return [line];
  });
  return { file, key, change: "options", now, next };
}

async function preview(p: z.infer<typeof params>, ctx: ActionContext): Promise<Preview> {
  const { file, key, change, now, next } = await inspect(p, ctx);
  const keys = file.lines.flatMap((l) => (l.key ? [summaryOf(l.key)] : []));
  const shown = (o: string): string => (o === "" ? "none" : o);
  const summary = change === "none"
    ? `Add key ${key.fingerprint} for ${p.user}: nothing to do (already authorized${now !== "" && key.options === "" ? ` with options ${now}; send the key line with options to change them` : ""})`
    : change === "options"
      ? `Change the options of key ${key.fingerprint} for ${p.user}: ${shown(now)} → ${key.options}`
      : `Authorize key ${key.fingerprint} (${key.type}${key.comment ? `, ${key.comment}` : ""}) for ${p.user}`;
  const warnings = [
    ...(change === "add" && userOf(await readAccounts(ctx), p.user).uid === 0 ? [`This key will log in as root.`] : []),
    ...(change === "add" && key.options !== "" ? [`The key carries sshd options: ${key.options}`] : []),
    ...(change === "options" ? [`The key is already authorized with options ${shown(now)}; its line is replaced, so sshd applies ${key.options} instead (what ${shown(now)} allowed or restricted no longer holds).`] : []),
  ];
  const text = [
    summary,
    change === "none" ? "(nothing will run)" : `will write ${file.path} as ${p.user} (mode 0600, atomic rename${file.exists ? "" : "; .ssh created 0700 if missing"})`,
    "",
    `keys now (${keys.length}):`,
    ...keys.map((k) => `  ${k.fingerprint} ${k.type} ${k.comment}${k.options ? ` [${k.options}]` : ""}`),
    ...(change === "add" ? [`+ ${key.fingerprint} ${key.type} ${key.comment}${key.options ? ` [${key.options}]` : ""}`] : []),
    ...(change === "options" ? [`~ ${key.fingerprint} ${key.type} ${key.comment} [${shown(now)}] → [${key.options}]`] : []),
    ...(warnings.length > 0 ? ["", "WARNINGS:", ...warnings.map((w) => `  !! ${w}`)] : []),
  ].join("\n");
  const copies = file.lines.filter((l) => l.key?.type === key.type && l.key.blob === key.blob).length;
  const after = change === "add" ? keys.length + 1 : change === "options" ? keys.length - copies + 1 : keys.length;
  return {
    summary, text: `${text}\n`,
    current: { path: file.path, exists: file.exists, sha256: file.sha256, keys },
    intended: { key: summaryOf(key), present: true, lines: next.length },
    ...(warnings.length > 0 ? { warnings } : {}),
    agent: keysAgentView(summary, summaryOf(key), keys.length, after),
  };
}

/** AddAuthorizedKey: append one validated public key to a user's ~/.ssh/authorized_keys (see authorized-keys-file.ts). */
export default defineMutatingAction({
  name: "AddAuthorizedKey",
  title: "Authorize an SSH key for a user",
  description: "Append one SSH public key (validated like ssh-keygen -l) to a local user's ~/.ssh/authorized_keys, written as that user (0600, atomic; links refused). A key already there is nothing to do; sent with other options, its options are replaced (the preview shows both).",
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
  apply: (p, ctx, approved) => applyKeysChange(ctx, p.user, approved, async () => {
    const { file, key, change, next } = await inspect(p, ctx);
    return { file, next, changed: change !== "none", fingerprint: key.fingerprint };
  }),
});
