import { ensurePrivateDir } from "./private-files.ts";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { HostgateError } from "../core/errors.ts";
import type { AuditCrypto } from "../core/audit/entry.ts";
import type { Signer } from "../ports/signer.ts";

/**
 * Ed25519 signing key on disk (issue 5, "Key management"). Layout under `<stateDir>/audit-keys/` (0700):
 * - `current.key`: PKCS#8 PEM private key, mode 0600, owned by the daemon user; created on first start;
 * - `next.key`: a prepared rotation key (exists only between the two rotation steps);
 * - `<key_id>.pub`: SPKI PEM public key of every key ever used (kept forever, for verification and export), mode
 *   0600 like every file under the state directory (issue 25; `hostgate audit public-key` prints it for others).
 * The private key file is refused if its mode allows group/other access or another user owns it.
 */
export class Ed25519Signer implements Signer {
  private key: KeyObject;
  keyId: string;
  publicKey: string;
  private next: { key: KeyObject; keyId: string; publicKey: string } | null = null;

  private constructor(private readonly dir: string, key: KeyObject) {
    this.key = key;
    this.publicKey = rawPublicKey(createPublicKey(key));
    this.keyId = keyIdOfRaw(this.publicKey);
  }

  /** Loads `<stateDir>/audit-keys/current.key`, creating the directory and the key on first start. */
  static open(stateDir: string): Ed25519Signer {
    const dir = join(stateDir, "audit-keys");
    try {
      ensurePrivateDir(dir);
      const file = join(dir, "current.key");
      if (!existsSync(file)) writeKeyFile(file, generateKeyPairSync("ed25519").privateKey);
      const signer = new Ed25519Signer(dir, loadPrivateKey(file));
      signer.savePublic(signer.keyId, signer.publicKey);
      return signer;
    } catch (err) {
      if (err instanceof HostgateError) throw err;
      throw new HostgateError("audit_unavailable", `cannot open the audit signing key in ${dir}: ${(err as Error).message}`, {
        hint: "Check that the state directory exists, is writable by the daemon user and is not on a read-only mount.",
        cause: err,
      });
    }
  }

  sign(message: Uint8Array): string {
    return sign(null, message, this.key).toString("base64url");
  }

  knownPublicKeys(): Map<string, string> {
    return readPublicKeyDir(this.dir);
  }

  prepareRotation(proofInput: (p: { old_key_id: string; new_key_id: string; new_public_key: string }) => Uint8Array) {
    const key = generateKeyPairSync("ed25519").privateKey;
    writeKeyFile(join(this.dir, "next.key"), key);
    const publicKey = rawPublicKey(createPublicKey(key));
    const keyId = keyIdOfRaw(publicKey);
    this.next = { key, keyId, publicKey };
    const input = proofInput({ old_key_id: this.keyId, new_key_id: keyId, new_public_key: publicKey });
    return { old_key_id: this.keyId, new_key_id: keyId, new_public_key: publicKey, proof: sign(null, input, key).toString("base64url") };
  }

  commitRotation(): void {
    if (this.next === null) throw new HostgateError("internal_error", "commitRotation called without prepareRotation");
    this.savePublic(this.next.keyId, this.next.publicKey);
    renameSync(join(this.dir, "next.key"), join(this.dir, "current.key"));
    this.key = this.next.key;
    this.keyId = this.next.keyId;
    this.publicKey = this.next.publicKey;
    this.next = null;
  }

  abortRotation(): void {
    this.next = null;
    rmIfExists(join(this.dir, "next.key"));
  }

  recover(chainKeyId: string | null): void {
    const file = join(this.dir, "next.key");
    if (!existsSync(file)) return;
    const key = loadPrivateKey(file);
    const publicKey = rawPublicKey(createPublicKey(key));
    const keyId = keyIdOfRaw(publicKey);
    if (chainKeyId === keyId) {
      this.next = { key, keyId, publicKey };
      this.commitRotation();
    } else {
      rmIfExists(file);
    }
  }

  private savePublic(keyId: string, publicKey: string): void {
    const file = join(this.dir, `${keyId}.pub`);
    if (!existsSync(file)) writeDurable(file, publicKeyPem(publicKey), 0o600);
  }
}

/** Base64url of the 32 raw bytes of an Ed25519 public key (the JWK `x` member). */
export function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" });
  if (jwk.x === undefined) throw new HostgateError("invalid_params", "not an Ed25519 public key");
  return jwk.x;
}

/** Key id: first 16 hex digits of SHA-256 of the raw public key bytes. */
export function keyIdOfRaw(publicKey: string): string {
  return createHash("sha256").update(Buffer.from(publicKey, "base64url")).digest("hex").slice(0, 16);
}

/** SPKI PEM text for a base64url raw Ed25519 public key. */
export function publicKeyPem(publicKey: string): string {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: publicKey }, format: "jwk" }).export({ format: "pem", type: "spki" }).toString();
}

/**
 * Parses one or more PEM public keys (SPKI, as written by `hostgate audit public-key`) into key id → raw key.
 * Throws `invalid_params` if the text holds no Ed25519 public key.
 */
export function parsePublicKeys(pemText: string): Map<string, string> {
  const out = new Map<string, string>();
  const blocks = pemText.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  for (const block of blocks) {
    const key = createPublicKey(block);
    if (key.asymmetricKeyType !== "ed25519") continue;
    const raw = rawPublicKey(key);
    out.set(keyIdOfRaw(raw), raw);
  }
  if (out.size === 0) throw new HostgateError("invalid_params", "no Ed25519 public key (PEM, BEGIN PUBLIC KEY) found", { hint: "Export one with `hostgate audit public-key`." });
  return out;
}

/** Every `<key_id>.pub` in a key directory; empty if the directory does not exist. */
export function readPublicKeyDir(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".pub")) continue;
    for (const [id, raw] of parsePublicKeys(readFileSync(join(dir, name), "utf8"))) out.set(id, raw);
  }
  return out;
}

const keyCache = new Map<string, KeyObject>();

/** node:crypto implementation of the core's hash and signature primitives. Public keys are cached by value. */
export const nodeAuditCrypto: AuditCrypto = {
  sha256Hex: (data) => createHash("sha256").update(data).digest("hex"),
  verify(publicKey, message, signature) {
    let key = keyCache.get(publicKey);
    if (key === undefined) {
      try {
        key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: publicKey }, format: "jwk" });
      } catch {
        return false;
      }
      keyCache.set(publicKey, key);
    }
    const sig = Buffer.from(signature, "base64url");
    if (sig.length !== 64) return false;
    return verify(null, message, key, sig);
  },
};

function loadPrivateKey(file: string): KeyObject {
  const st = statSync(file);
  if ((st.mode & 0o077) !== 0) {
    throw new HostgateError("permission_denied", `audit signing key ${file} is accessible to other users (mode ${(st.mode & 0o777).toString(8)})`, {
      hint: `Run: chmod 600 ${file}`,
    });
  }
  if (process.getuid !== undefined && st.uid !== process.getuid()) {
    throw new HostgateError("permission_denied", `audit signing key ${file} is owned by uid ${st.uid}, not by the daemon user`, {
      hint: `Run: chown $(id -u) ${file}`,
    });
  }
  const key = createPrivateKey(readFileSync(file));
  if (key.asymmetricKeyType !== "ed25519") throw new HostgateError("invalid_params", `${file} is not an Ed25519 private key`);
  return key;
}

function writeKeyFile(file: string, key: KeyObject): void {
  writeDurable(file, key.export({ format: "pem", type: "pkcs8" }).toString(), 0o600);
}

/** Writes `text` to `file` atomically (temp file, fsync, rename) with the given mode. */
function writeDurable(file: string, text: string, mode: number): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, "w", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function rmIfExists(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}
