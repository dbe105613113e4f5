import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { accountName, readAccounts, refuseProtected, userOf } from "./accounts-common.ts";
import { keyOf } from "./add-authorized-key.ts";
import { applyKeysChange, keysAgentView, keysApplyOutput, readKeysFile, summaryOf, type KeysFile } from "./authorized-keys-file.ts";

/** `SHA256:` + 43 unpadded base64 characters, as ssh-keygen -l and list_authorized_keys print it. */
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

const params = z.object({
  user: accountName,
  key: z.string().min(1).max(16 * 1024).describe("The key's fingerprint (SHA256:…, as ListAuthorizedKeys shows it) or its public key line"),
}).strict();

async function inspect(p: z.infer<typeof params>, ctx: ActionContext): Promise<{ file: KeysFile; fingerprint: string; removed: number; next: string[] }> {
  const fingerprint = FINGERPRINT.test(p.key.trim()) ? p.key.trim() : p.key.trim().startsWith("SHA256:")
    ? (() => { throw new HostgateError("invalid_params", "key: a fingerprint is SHA256: followed by 43 base64 characters.", { hint: "Copy it from read_action { action: \"ListAuthorizedKeys\" }." }); })()
    : keyOf(p.key, ctx).fingerprint;
  const acc = await readAccounts(ctx);
  const u = userOf(acc, p.user);
  await refuseProtected(ctx, acc, p.user, "remove authorized keys of");
  const file = await readKeysFile(ctx, u);
  const keep = file.lines.filter((l) => l.key?.fingerprint !== fingerprint);
  return { file, fingerprint, removed: file.lines.length - keep.length, next: keep.map((l) => l.line) };
}

async function preview(p: z.infer<typeof params>, ctx: ActionContext): Promise<Preview> {
  const { file, fingerprint, removed } = await inspect(p, ctx);
  const keys = file.lines.flatMap((l) => (l.key ? [summaryOf(l.key)] : []));
  const gone = keys.find((k) => k.fingerprint === fingerprint) ?? null;
  const summary = removed === 0 ? `Remove key ${fingerprint} of ${p.user}: nothing to do (not authorized)` : `Remove key ${fingerprint}${gone?.comment ? ` (${gone.comment})` : ""} from ${p.user}'s authorized keys`;
  const text = [
    summary,
    removed === 0 ? "(nothing will run)" : `will rewrite ${file.path} as ${p.user} without ${removed} line${removed === 1 ? "" : "s"} (mode 0600, atomic rename)`,
    "",
    `keys now (${keys.length}):`,
    ...keys.map((k) => `${k.fingerprint === fingerprint ? "-" : " "} ${k.fingerprint} ${k.type} ${k.comment}${k.options ? ` [${k.options}]` : ""}`),
  ].join("\n");
  return {
    summary, text: `${text}\n`,
    current: { path: file.path, exists: file.exists, sha256: file.sha256, keys },
    intended: { fingerprint, present: false },
    agent: keysAgentView(summary, gone, keys.length, keys.length - (gone ? keys.filter((k) => k.fingerprint === fingerprint).length : 0)),
  };
}

/** RemoveAuthorizedKey: drop every line of one key (by fingerprint) from a user's ~/.ssh/authorized_keys. */
export default defineMutatingAction({
  name: "RemoveAuthorizedKey",
  title: "Remove an SSH key of a user",
  description: "Remove one SSH key (by SHA256 fingerprint or key line) from a local user's ~/.ssh/authorized_keys, written as that user (atomic; links refused). Refuses root and the user hostgate logs in as.",
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
    const { file, fingerprint, removed, next } = await inspect(p, ctx);
    return { file, next, changed: removed > 0, fingerprint };
  }),
});
