import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AuditEntry } from "../core/audit/entry.ts";
import { trustClosure } from "../core/audit/verify.ts";
import { HostgateError } from "../core/errors.ts";
import { nodeAuditCrypto, parsePublicKeys, publicKeyPem } from "./signer-ed25519.ts";

/**
 * The audit public key pinned outside the state directory (issue 12): written once, at the first start of a
 * daemon on a state directory, into hostgate's configuration directory (`/etc/hostgate` for the system
 * daemon, `$XDG_CONFIG_HOME/hostgate` embedded), never rewritten by hostgate. Verification trusts the pinned
 * key (and the keys it vouches for along rotations), not the keys in the state directory, so a chain re-signed
 * with another key, its public key put beside it, fails. `hostgate audit public-key` prints the key and where
 * it is pinned, for the operator to keep a copy elsewhere too.
 */

/** `<configDir>/audit-pins/<id>.pub`, id = first 16 hex digits of SHA-256 of the absolute state directory. */
export function pinPath(configDir: string, stateDir: string): string {
  const id = createHash("sha256").update(resolve(stateDir)).digest("hex").slice(0, 16);
  return join(configDir, "audit-pins", `${id}.pub`);
}

/** The pinned keys (key id → raw), or null when nothing is pinned for this state directory. Throws on an unreadable pin. */
export function readPin(configDir: string, stateDir: string): Map<string, string> | null {
  const file = pinPath(configDir, stateDir);
  if (!existsSync(file)) return null;
  try {
    return parsePublicKeys(readFileSync(file, "utf8"));
  } catch (err) {
    throw new HostgateError("permission_denied", `the pinned audit key ${file} cannot be read: ${(err as Error).message}`, {
      hint: "Restore the pin from the operator's copy (`hostgate audit public-key` printed it), or move it aside deliberately to pin again.",
      cause: err,
    });
  }
}

/**
 * At daemon start: pins `signer` if nothing is pinned for `stateDir` (created with O_EXCL, mode 0644; a pin
 * that cannot be written is reported through `warn`, and the daemon runs unpinned: verification then says
 * `key_not_pinned`). When a pin exists, the signing key must be trusted from it along the chain's key
 * announcements; otherwise throws `permission_denied` (fail closed: entries signed now would never verify).
 * Returns the pinned keys, or null when none could be written.
 */
export function pinAuditKey(opts: { configDir: string; stateDir: string; signer: { keyId: string; publicKey: string }; announcements: readonly AuditEntry[]; warn: (line: string) => void }): Map<string, string> | null {
  const file = pinPath(opts.configDir, opts.stateDir);
  const pinned = readPin(opts.configDir, opts.stateDir);
  if (pinned !== null) {
    if (!trustClosure(pinned, opts.announcements, nodeAuditCrypto).has(opts.signer.keyId)) {
      throw new HostgateError("permission_denied", `the audit signing key ${opts.signer.keyId} in ${opts.stateDir} is not the key pinned at ${file} (nor one it vouches for): the state directory's key was replaced`, {
        hint: `Restore the original audit key, or, if the state directory was replaced on purpose, move ${file} aside so the next start pins the new key.`,
      });
    }
    return pinned;
  }
  const text = `# hostgate audit public key, pinned at first start for the state directory ${resolve(opts.stateDir)} (key id ${opts.signer.keyId})\n${publicKeyPem(opts.signer.publicKey)}`;
  try {
    mkdirSync(join(opts.configDir, "audit-pins"), { recursive: true, mode: 0o755 });
    const fd = openSync(file, "wx", 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    opts.warn(`audit key not pinned: cannot write ${file} (${(err as Error).message}); verification will report key_not_pinned until it is pinned`);
    return null;
  }
  return new Map([[opts.signer.keyId, opts.signer.publicKey]]);
}
