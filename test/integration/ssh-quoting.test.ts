/**
 * The one quoting function for the remote shell (shellQuote / shellJoin, core/inventory/target.ts) round-trips
 * hostile argv through a REAL remote `sh` over a real sshd: the probe's `run` sends `printf '%s\0' "$@"` with
 * the generated words as arguments, and the words printed must be exactly the words sent (quotes, `$()`,
 * backticks, newlines, leading dashes, globs, any Unicode). What no argv can carry is refused before sending:
 * a NUL, a lone surrogate (no UTF-8 form: JavaScript's only "non-UTF-8" strings).
 */
import fc from "fast-check";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostProbe } from "../../src/adapters/host-ssh.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const skip = peerMissing("remote shell quoting", sshdPrereqs());
const CANARY = "/tmp/hg-quoting-canary";

const hostile = fc.array(fc.constantFrom("'", '"', "$(touch /tmp/hg-quoting-canary)", "`touch /tmp/hg-quoting-canary`", "\n", "-", "--", "-n", "\\", "$", "$HOME", "*", "?", "[a]", "~", ";", "&", "|", ">", "<", " ", "\t", "#", "!", "{a,b}", "é", "\u{1F600}", "\x7f", "\x01", "\r", "'\\''", "%s", "a"), { maxLength: 8 }).map((xs) => xs.join(""));
const anyText = fc.string({ unit: "binary", maxLength: 24 }).filter((s) => !s.includes("\0"));

describe.skipIf(skip)("shellJoin through a real remote sh", () => {
  let peer: SshdPeer;
  let pool: SshPool;
  let probe: SshHostProbe;
  beforeAll(async () => {
    peer = await startSshd();
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    pool = new SshPool({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 3000 });
    probe = new SshHostProbe(sshSession(pool, { target: { host: "127.0.0.1", port: peer.port } }), "loopback");
  });
  afterAll(async () => {
    pool?.close();
    await peer?.stop();
  });

  const roundTrip = async (words: string[]): Promise<void> => {
    const r = await probe.run(["sh", "-c", 'printf "%s\\0" "$@"', "sh", ...words]);
    expect(r.exit_code).toBe(0);
    const got = r.stdout.split("\0");
    expect(got.pop()).toBe("");
    expect(got).toEqual(words);
  };

  it("hostile words arrive exactly as sent, nothing they spell runs", async () => {
    await fc.assert(fc.asyncProperty(fc.array(hostile, { minLength: 1, maxLength: 6 }), roundTrip), { numRuns: 60 });
    expect(existsSync(CANARY)).toBe(false);
  });

  it("any well-formed Unicode text (no NUL) arrives exactly as sent", async () => {
    await fc.assert(fc.asyncProperty(fc.array(anyText, { minLength: 1, maxLength: 4 }), roundTrip), { numRuns: 40 });
  });

  it("a NUL or a lone surrogate is refused with a clear error before anything is sent", async () => {
    await expect(probe.run(["printf", "%s", "a\0b"])).rejects.toMatchObject({ code: "invalid_params", hint: expect.stringContaining("NUL") as unknown });
    await expect(probe.run(["printf", "%s", "a\uD800b"])).rejects.toMatchObject({ code: "invalid_params", message: expect.stringContaining("surrogate") as unknown });
    await expect(probe.run(["printf", "%s", "\uDC00"])).rejects.toMatchObject({ code: "invalid_params" });
    // a well-formed pair is fine
    await roundTrip(["\uD83D\uDE00"]);
  });
});
