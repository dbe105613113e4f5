import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { once } from "node:events";
import type { Command } from "commander";
import { canonicalJson } from "../core/audit/canonical.ts";
import type { VerifyResult, Witness } from "../core/audit/verify.ts";
import { judgeAnchoring, type AnchorEvidence } from "../core/audit/anchor.ts";
import { isWithinRoot } from "../core/paths.ts";
import { readPin, pinPath } from "../adapters/audit-pin.ts";
import { configDir, systemCheckpointCopy } from "../daemon/paths.ts";
import { HostgateError } from "../core/errors.ts";
import { readCheckpointCopy } from "../adapters/audit-checkpoint-copy.ts";
import { auditPaths } from "../adapters/audit-sqlite.ts";
import { ENTRY_COLUMNS, openReadOnly, openReadOnlyAnywhere, readDbCheckpoints } from "../adapters/audit-sqlite-schema.ts";
import { verifyAuditDb, verifyAuditJsonl } from "../adapters/audit-verify.ts";
import { parsePublicKeys, publicKeyPem, rawPublicKey, readPublicKeyDir } from "../adapters/signer-ed25519.ts";
import { createPrivateKey, createPublicKey } from "node:crypto";

/** The system daemon's state directory (daemon/paths.ts). */
const SYSTEM_STATE_DIR = "/var/lib/hostgate";

/** Where output goes; tests pass their own. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** `$HOSTGATE_STATE_DIR`, else `${XDG_STATE_HOME:-~/.local/state}/hostgate`. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOSTGATE_STATE_DIR) return env.HOSTGATE_STATE_DIR;
  return join(env.XDG_STATE_HOME || join(homedir(), ".local", "state"), "hostgate");
}

/**
 * Exit codes of `hostgate audit verify`: 0 intact, 1 broken, 2 cannot_verify or bad input, 3 unanchored (every
 * entry checks out, but nothing from outside the state directory proves the end was not cut or the key swapped).
 */
export const VERIFY_EXIT = { intact: 0, broken: 1, cannot_verify: 2, unanchored: 3 } as const;

/**
 * Adds `hostgate audit` with `verify`, `export` and `public-key` to `program`. Everything works offline on a copy
 * of the database (or an export) and never writes to the store. Sets `process.exitCode`.
 */
export function registerAuditCommand(program: Command, io: CliIo = defaultIo): Command {
  const audit = program.command("audit").description("Verify, export and inspect the signed audit chain (offline).");

  audit
    .command("verify")
    .description("Verify the audit chain: exit 0 intact, 1 broken, 2 cannot verify, 3 unanchored (checks out, but its end is not proven by anything outside the state directory).")
    .option("--since <seq>", "verify from this seq (the entry before it is taken as given)")
    .option("--public-key <file>", "trusted public key(s), PEM, from `hostgate audit public-key` (default: the key pinned in the config dir, else the state dir's keys, which proves less)")
    .option("--witness <seq:hash>", "a chain head printed by `hostgate approve` or returned by execute: the chain must still reach it (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--config-dir <dir>", "where the audit key is pinned (default: $HOSTGATE_CONFIG_DIR, /etc/hostgate for /var/lib/hostgate, else $XDG_CONFIG_HOME/hostgate)")
    .option("--db <file>", "audit database (default: <state dir>/audit.db)")
    .option("--jsonl <file>", "verify a JSON Lines export instead of a database")
    .option("--checkpoints <file>", "checkpoint copy (the configured second place) to check truncation against")
    .option("--state-dir <dir>", "state directory (default: $HOSTGATE_STATE_DIR or $XDG_STATE_HOME/hostgate)")
    .option("--hash-only", "fast check of order, links and hashes without signatures (not proof of authorship)")
    .option("--json", "print the result as JSON")
    .action(async (o: VerifyFlags) => {
      const result = await runVerify(o);
      if (o.json) io.out(`${JSON.stringify(result)}\n`);
      else io.out(`${describe(result)}\n`);
      process.exitCode = VERIFY_EXIT[result.status];
    });

  audit
    .command("export")
    .description("Write the chain and its checkpoints as JSON Lines (accepted by `audit verify --jsonl`).")
    .option("--db <file>", "audit database (default: <state dir>/audit.db)")
    .option("--out <file>", "output file (default: stdout)")
    .option("--state-dir <dir>", "state directory")
    .action(async (o: { db?: string; out?: string; stateDir?: string }) => {
      await guard(io, async () => exportJsonl(o.db ?? auditPaths(o.stateDir ?? defaultStateDir()).dbPath, o.out, io));
    });

  audit
    .command("public-key")
    .description("Print the current audit public key (PEM) for offline verification; --all prints every key ever used.")
    .option("--state-dir <dir>", "state directory")
    .option("--all", "print all known public keys (current and rotated out)")
    .option("--config-dir <dir>", "where the key is pinned (as for verify)")
    .action(async (o: { stateDir?: string; all?: boolean; configDir?: string }) => {
      await guard(io, () => {
        const stateDir = o.stateDir ?? defaultStateDir();
        io.out(publicKeyText(stateDir, o.all === true));
        const pin = pinPath(verifyConfigDir({ configDir: o.configDir }, stateDir), stateDir);
        io.err(existsSync(pin) ? `hostgate: pinned at ${pin}; keep a copy of this key off this host and verify with --public-key.\n` : `hostgate: not pinned yet (${pin} is written at the daemon's first start); keep a copy of this key off this host.\n`);
        return Promise.resolve();
      });
    });
  return audit;
}

interface VerifyFlags {
  /** A positive integer (as typed); anything else is bad input (exit 2). */
  since?: string | number;
  publicKey?: string;
  db?: string;
  jsonl?: string;
  checkpoints?: string;
  stateDir?: string;
  hashOnly?: boolean;
  json?: boolean;
  witness?: string[];
  configDir?: string;
}


/** Runs `audit verify` with the given flags; never throws (bad input becomes cannot_verify). */
export async function runVerify(o: VerifyFlags): Promise<VerifyResult> {
  const stateDir = o.stateDir ?? defaultStateDir();
  const since = o.since === undefined ? undefined : Number(o.since);
  if (since !== undefined && (!Number.isSafeInteger(since) || since < 1)) {
    return { status: "cannot_verify", why: "bad_input", detail: `--since must be a positive integer seq, not ${JSON.stringify(o.since)}` };
  }
  const witnesses: Witness[] = [];
  for (const w of o.witness ?? []) {
    const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(w.trim());
    if (m === null) return { status: "cannot_verify", why: "bad_input", detail: `--witness must be seq:hash (a positive seq, 64 lowercase hex digits), not ${JSON.stringify(w)}` };
    witnesses.push({ seq: Number(m[1]), hash: m[2]! });
  }
  let trusted: Map<string, string>;
  let keySource: AnchorEvidence["key_source"];
  let extra: ReturnType<typeof readCheckpointCopy> = [];
  let outside = false;
  try {
    const pinned = o.publicKey === undefined ? readPin(verifyConfigDir(o, stateDir), stateDir) : null;
    if (o.publicKey !== undefined) [trusted, keySource] = [parsePublicKeys(readFileSync(o.publicKey, "utf8")), "given"];
    else if (pinned !== null) [trusted, keySource] = [pinned, "pinned"];
    else [trusted, keySource] = [readPublicKeyDir(auditPaths(stateDir).keyDir), "state_dir"];
    const copy = o.checkpoints ?? (resolve(stateDir) === SYSTEM_STATE_DIR && existsSync(systemCheckpointCopy()) ? systemCheckpointCopy() : undefined);
    if (copy !== undefined) {
      extra = readCheckpointCopy(copy, await chainIdOf(o));
      outside = !isWithinRoot(resolve(copy), resolve(stateDir));
    }
  } catch (err) {
    return { status: "cannot_verify", why: "bad_input", detail: (err as Error).message };
  }
  const opts = { trusted, since_seq: since, signatures: o.hashOnly !== true, extra_checkpoints: extra, witnesses };
  let result: VerifyResult;
  if (o.jsonl !== undefined) {
    result = await verifyAuditJsonl(o.jsonl, opts);
  } else {
    const db = o.db ?? auditPaths(stateDir).dbPath;
    if (!existsSync(db)) return { status: "cannot_verify", why: "unreadable_store", detail: `no audit database at ${db}` };
    result = await verifyAuditDb(db, opts);
  }
  return judgeAnchoring(result, { key_source: keySource, outside_checkpoints: outside ? extra : [], witnesses });
}

/** Where `audit verify` looks for the pinned key. */
function verifyConfigDir(o: VerifyFlags, stateDir: string): string {
  if (o.configDir !== undefined) return o.configDir;
  return configDir(resolve(stateDir) === SYSTEM_STATE_DIR ? "system" : "embedded");
}

/** The chain id (genesis hash) of the input, used to pick its lines from a shared checkpoint copy; null if unknown. */
async function chainIdOf(o: VerifyFlags): Promise<string | null> {
  if (o.jsonl !== undefined) {
    const line = readFileSync(o.jsonl, "utf8").split("\n").find((l) => l.includes('"type":"entry"'));
    const e = line === undefined ? null : (JSON.parse(line) as { seq?: number; hash?: string });
    return e?.seq === 1 ? (e.hash ?? null) : null;
  }
  try {
    const db = openReadOnly(o.db ?? auditPaths(o.stateDir ?? defaultStateDir()).dbPath);
    try {
      return (db.prepare("SELECT hash FROM audit_entries WHERE seq = 1").get() as { hash: string } | undefined)?.hash ?? null;
    } finally {
      db.close();
    }
  } catch {
    return Promise.resolve(null);
  }
}

/** One line of text for a result. */
export function describe(r: VerifyResult): string {
  const passkeys = (r.status === "intact" || r.status === "unanchored") && r.passkey_approvals !== undefined
    ? r.passkey_approvals.map((a) => `\n  seq ${a.seq}, plan ${a.plan_id}: ${a.text}`).join("")
    : "";
  return describeChain(r) + passkeys;
}

/** The first line of {@link describe}: the chain's status. */
function describeChain(r: VerifyResult): string {
  switch (r.status) {
    case "intact":
      return `intact: ${r.checked} entries up to seq ${r.last_seq}, anchored by a signed checkpoint up to seq ${r.anchored_seq}${r.signatures_checked ? "" : " (hash-only: signatures not checked)"}`;
    case "broken":
      return `broken: ${r.reason} at seq ${r.first_bad_seq}: ${r.detail}`;
    case "cannot_verify":
      return `cannot verify (${r.why}): ${r.detail}`;
    case "unanchored":
      return `unanchored (${r.reason}): ${r.checked} entries up to seq ${r.last_seq} check out, but ${r.detail}`;
  }
}

/**
 * Writes the export: a header line `{"type":"header","format":"hostgate-audit-v1"}`, then every entry in storage
 * order as `{"type":"entry",…}`, then every stored checkpoint as `{"type":"checkpoint",…}`; canonical JSON lines.
 */
export async function exportJsonl(dbPath: string, outFile: string | undefined, io: CliIo): Promise<void> {
  let opened;
  try {
    opened = openReadOnlyAnywhere(dbPath);
  } catch (err) {
    throw new HostgateError("unavailable", `cannot read audit database ${dbPath}: ${(err as Error).message}`, { hint: "Pass --db FILE or --state-dir DIR." });
  }
  const db = opened.db;
  const stream = outFile === undefined ? null : createWriteStream(outFile);
  const write = async (line: string): Promise<void> => {
    if (stream === null) io.out(line);
    else if (!stream.write(line)) await once(stream, "drain");
  };
  try {
    await write(`${canonicalJson({ format: "hostgate-audit-v1", type: "header" })}\n`);
    for (const e of db.prepare(`SELECT ${ENTRY_COLUMNS} FROM audit_entries ORDER BY pos`).iterate() as Iterable<Record<string, string | number>>) {
      await write(`${canonicalJson({ ...e, type: "entry" })}\n`);
    }
    for (const cp of readDbCheckpoints(db)) await write(`${canonicalJson({ ...cp, type: "checkpoint" })}\n`);
  } finally {
    db.close();
    opened.cleanup();
    if (stream !== null) {
      stream.end();
      await once(stream, "close");
    }
  }
}

/** PEM text of the current key (from `current.key`), or of every `<key_id>.pub` with `all`. */
export function publicKeyText(stateDir: string, all: boolean): string {
  const { keyDir } = auditPaths(stateDir);
  if (all) {
    const keys = readPublicKeyDir(keyDir);
    if (keys.size === 0) throw new HostgateError("not_found", `no audit public keys in ${keyDir}`, { hint: "Start the daemon once (it creates the key), or pass --state-dir." });
    return [...keys.values()].map(publicKeyPem).join("");
  }
  const file = join(keyDir, "current.key");
  if (!existsSync(file)) throw new HostgateError("not_found", `no audit signing key at ${file}`, { hint: "Start the daemon once (it creates the key), or pass --state-dir." });
  return publicKeyPem(rawPublicKey(createPublicKey(createPrivateKey(readFileSync(file)))));
}

async function guard(io: CliIo, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    const e = err instanceof HostgateError ? err : new HostgateError("internal_error", (err as Error).message);
    io.err(`error (${e.code}): ${e.message}${e.hint ? `\n${e.hint}` : ""}\n`);
    process.exitCode = 2;
  }
}
