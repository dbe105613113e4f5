import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parsePasswd } from "../../host/passwd.ts";
import { sha256Fingerprint, wireStrings } from "../../host/ssh-key.ts";

const key = z.object({
  file: z.string(),
  line: z.number(),
  type: z.string(),
  /** Key size in bits as `ssh-keygen -l` prints it. */
  bits: z.number().nullable(),
  /** `SHA256:…` as `ssh-keygen -l` prints it. */
  fingerprint: z.string(),
  comment: z.string(),
  /** sshd(8) AUTHORIZED_KEYS options (`from="…"`, `command="…"`, `no-pty`), as written. */
  options: z.array(z.string()),
});
const account = z.object({ user: z.string(), home: z.string(), keys: z.array(key), skipped: z.array(z.object({ file: z.string(), reason: z.string() })) });

const KEY_TYPE = /^(ssh-(rsa|dss|ed25519|ed448)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)(-cert-v01@openssh\.com)?$/;
const FILES = ["authorized_keys", "authorized_keys2"];

/** Splits a line on blanks outside double quotes (sshd's option syntax). */
function tokens(line: string): string[] {
  return line.match(/(?:[^\s"]+|"(?:[^"\\]|\\.)*")+/g) ?? [];
}

/** Splits an options field on commas outside double quotes. */
function splitOptions(field: string): string[] {
  return field.match(/(?:[^,"]+|"(?:[^"\\]|\\.)*")+/g) ?? [];
}

/** Lenient base64 (atob: padding optional), as sshd reads a key it lists; null when undecodable. */
function lenientBase64(b64: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function bitLength(mpint: Uint8Array): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  return i === mpint.length ? 0 : (mpint.length - i - 1) * 8 + (32 - Math.clz32(mpint[i]!));
}

/** Bits as ssh-keygen reports them: RSA/DSA modulus length, the curve size for ECDSA, 256 for Ed25519. */
function keyBits(type: string, blob: Uint8Array): number | null {
  const base = type.replace("-cert-v01@openssh.com", "");
  if (base.includes("ed25519")) return 256;
  if (base === "ssh-ed448") return 456;
  const curve = /nistp(\d+)/.exec(base);
  if (curve) return Number(curve[1]);
  if (type !== base) return null; // certificates: the key sits after the nonce; not decoded
  const s = wireStrings(blob);
  if (base === "ssh-rsa" && s[2]) return bitLength(s[2]);
  if (base === "ssh-dss" && s[1]) return bitLength(s[1]);
  return null;
}

/**
 * Parses an authorized_keys file (sshd(8) AUTHORIZED_KEYS FILE FORMAT) into fingerprints, never the key
 * body. Lines that are not keys (comments, blanks, garbage) are skipped; `hash` is SHA-256 over raw bytes.
 */
export function parseAuthorizedKeys(file: string, text: string, hash: (bytes: Uint8Array) => string): z.infer<typeof key>[] {
  const out: z.infer<typeof key>[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const t = tokens(line);
    const at = KEY_TYPE.test(t[0] ?? "") ? 0 : KEY_TYPE.test(t[1] ?? "") ? 1 : -1;
    if (at < 0) return;
    const blob = lenientBase64(t[at + 1] ?? "");
    if (!blob || blob.length === 0) return;
    out.push({
      file,
      line: i + 1,
      type: t[at]!,
      bits: keyBits(t[at]!, blob),
      fingerprint: sha256Fingerprint(hash(blob)),
      comment: t.slice(at + 2).join(" "),
      options: at === 1 ? splitOptions(t[0]!) : [],
    });
  });
  return out;
}

/**
 * Reads one account's ~/.ssh/authorized_keys{,2}. ~/.ssh must be a real directory (not a symlink) and each file
 * is read confined to it (HostProbe.readTailConfined: no symlink, no hard link to a file elsewhere), so a user
 * cannot point root's read at another file. What cannot be read is reported in `skipped`.
 */
export async function readAccountKeys(ctx: ActionContext, user: string, home: string): Promise<z.infer<typeof account>> {
  const result: z.infer<typeof account> = { user, home, keys: [], skipped: [] };
  let sshDir: string;
  try {
    sshDir = `${(await ctx.host.realPath(home)).replace(/\/$/, "")}/.ssh`;
    const st = await ctx.host.stat(sshDir);
    if (st.is_symlink || !st.is_directory) {
      result.skipped.push({ file: sshDir, reason: st.is_symlink ? "a symlink: not followed" : "not a directory" });
      return result;
    }
  } catch {
    return result; // no home or no ~/.ssh: no keys
  }
  for (const name of FILES) {
    const file = `${sshDir}/${name}`;
    try {
      const r = await ctx.host.readTailConfined(file, sshDir, { maxBytes: 1024 * 1024, maxLines: 10_000 });
      if (r.startOffset > 0) result.skipped.push({ file, reason: "larger than 1 MiB: only its end was read" });
      result.keys.push(...parseAuthorizedKeys(file, r.text, (b) => ctx.hash.sha256HexBytes(b)));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== "not_found") result.skipped.push({ file, reason: code === "forbidden_path" ? "a symlink or hard link: not followed" : (err as Error).message });
    }
  }
  return result;
}

/** ListAuthorizedKeys: per account, the SSH keys allowed to log in: type, bits, SHA-256 fingerprint, comment, options. */
export default defineReadOnlyAction({
  name: "ListAuthorizedKeys",
  title: "Authorized SSH keys",
  description: "SSH keys allowed to log in, per user (~/.ssh/authorized_keys): type, bits, fingerprint, comment, options. Never the key itself.",
  params: z.object({ user: z.string().max(64).optional().describe("one account; default every account with a home") }).strict(),
  output: z.object({ accounts: z.array(account) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const users = parsePasswd(await ctx.host.readText("/etc/passwd")).filter((u) => params.user === undefined || u.name === params.user);
    if (params.user !== undefined && users.length === 0) {
      throw new HostgateError("not_found", `No local account named ${params.user}.`, { hint: "read_action { action: \"ListUsers\" } shows the accounts." });
    }
    const seen = new Set<string>();
    const accounts: z.infer<typeof account>[] = [];
    for (const u of users) {
      if (!u.home.startsWith("/") || u.home === "/" || seen.has(u.home + u.name)) continue;
      seen.add(u.home + u.name);
      const a = await readAccountKeys(ctx, u.name, u.home);
      if (a.keys.length > 0 || a.skipped.length > 0 || params.user !== undefined) accounts.push(a);
    }
    return { accounts };
  },
});
