import type { Hasher } from "../../ports/hasher.ts";

/**
 * One OpenSSH public key as an authorized_keys line carries it (sshd(8), AUTHORIZED_KEYS FILE FORMAT):
 * `[options] type base64 [comment]`, checked the way `ssh-keygen -l -f` checks a key before it prints a
 * fingerprint: a known key type, valid base64, and a blob whose first SSH string (RFC 4253 §6.6) is that type.
 */
export interface PublicKey {
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`, … */
  type: string;
  /** The base64 blob exactly as written. */
  blob: string;
  /** `SHA256:` + unpadded base64 of SHA-256 over the blob's bytes, as `ssh-keygen -l` prints it. */
  fingerprint: string;
  comment: string;
  /** The options field as written (`from="10.0.0.0/8",no-pty`), or "" when there is none. */
  options: string;
}

/** Key types sshd accepts in authorized_keys (OpenSSH 9: DSA is gone, so ssh-dss is refused). */
const KEY_TYPE = /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)$/;

/** Why a key line was refused; the message says what to send instead. */
export class KeyFormatError extends Error {}

/** The bytes of standard base64 (padded, length a multiple of 4), or null when it is not valid base64. */
export function base64Bytes(b64: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The SSH wire strings of a key blob (RFC 4253 §6.6: uint32 big-endian length + bytes, repeated), up to the first that does not fit. */
export function wireStrings(blob: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at + 4 <= blob.length;) {
    const n = ((blob[at]! << 24) | (blob[at + 1]! << 16) | (blob[at + 2]! << 8) | blob[at + 3]!) >>> 0;
    if (at + 4 + n > blob.length) break;
    out.push(blob.subarray(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

/** `SHA256:` + unpadded base64 of a SHA-256 hex digest: the fingerprint form `ssh-keygen -l` prints. */
export function sha256Fingerprint(hexDigest: string): string {
  let bin = "";
  for (let i = 0; i < hexDigest.length; i += 2) bin += String.fromCharCode(parseInt(hexDigest.slice(i, i + 2), 16));
  return `SHA256:${btoa(bin).replace(/=+$/, "")}`;
}

/** Splits off a leading options field (commas and double-quoted strings, no blanks outside quotes). */
function splitOptions(line: string): { options: string; rest: string } {
  const m = /^((?:[^\s"]|"(?:[^"\\]|\\.)*")+)\s+(.*)$/.exec(line);
  if (m && !KEY_TYPE.test(m[1]!)) return { options: m[1]!, rest: m[2]! };
  return { options: "", rest: line };
}

/**
 * Parses one authorized_keys line. Throws {@link KeyFormatError} for an empty line, a comment, several lines, an
 * unknown or disallowed type (DSA), invalid base64, or a blob of another type than the line names (what
 * `ssh-keygen -l` reports as "is not a public key file").
 */
export function parsePublicKey(line: string, hasher: Hasher): PublicKey {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) throw new KeyFormatError("the key is empty or a comment; send one line such as `ssh-ed25519 AAAAC3Nza… user@host`");
  if (/[\r\n\0]/.test(text)) throw new KeyFormatError("the key spans several lines; send exactly one public key line");
  const { options, rest } = splitOptions(text);
  const [type = "", blob = "", ...comment] = rest.split(/\s+/);
  if (!KEY_TYPE.test(type)) {
    throw new KeyFormatError(`${JSON.stringify(type.slice(0, 40))} is not a public key type sshd accepts (ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa, sk-…@openssh.com); send the .pub file's line, never a private key`);
  }
  const bytes = base64Bytes(blob);
  if (bytes === null) throw new KeyFormatError("the key's second field is not valid base64; copy the whole line of the .pub file");
  const first = wireStrings(bytes)[0];
  const inner = first === undefined ? null : String.fromCharCode(...first);
  if (inner !== type) throw new KeyFormatError(`the key blob holds ${inner === null ? "no key" : JSON.stringify(inner)}, not ${type}: the line is damaged`);
  return { type, blob, fingerprint: sha256Fingerprint(hasher.sha256HexBytes(bytes)), comment: comment.join(" "), options };
}

/**
 * Parses an authorized_keys file into its lines, each with the key it holds (null for blank lines, comments
 * and lines that are not a valid key, which are kept as they are when the file is rewritten).
 */
export function parseAuthorizedKeys(text: string, hasher: Hasher): { line: string; key: PublicKey | null }[] {
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  return lines.map((line) => {
    try {
      return { line, key: parsePublicKey(line, hasher) };
    } catch {
      return { line, key: null };
    }
  });
}
