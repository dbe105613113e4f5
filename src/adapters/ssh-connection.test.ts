import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BecomeCheck } from "../core/inventory/become.ts";
import { HostgateError } from "../core/errors.ts";
import { connectionFacts, PRIVILEGE_TTL_MS, sshHostConnection } from "./ssh-connection.ts";

/** The blob of a real OpenSSH public key file (what a server presents during key exchange). */
function keyBlob(type: "ed25519" | "rsa" | "ecdsa"): { blob: Buffer; keygen: string } {
  const dir = mkdtempSync(join(tmpdir(), "hg-fp-"));
  try {
    execFileSync("ssh-keygen", ["-q", "-t", type, "-N", "", "-C", "", "-f", join(dir, "k")]);
    const blob = Buffer.from(readFileSync(join(dir, "k.pub"), "utf8").split(" ")[1]!, "base64");
    return { blob, keygen: execFileSync("ssh-keygen", ["-lf", join(dir, "k.pub")], { encoding: "utf8" }).split(" ")[1]! };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("connectionFacts", () => {
  it("fingerprints the host key exactly as ssh-keygen -lf does, and names its type", () => {
    for (const [type, name] of [["ed25519", "ssh-ed25519"], ["rsa", "ssh-rsa"], ["ecdsa", "ecdsa-sha2-nistp256"]] as const) {
      const { blob, keygen } = keyBlob(type);
      expect(connectionFacts({ user: "deploy", key: { host: "h", port: 22, blob } }, true)).toEqual({ ssh_user: "deploy", host_key: keygen, host_key_type: name, sudo: true });
    }
  });
});

describe("sshHostConnection.privilege: kept per context for a while", () => {
  function setup(answers: (() => Promise<BecomeCheck>)[]) {
    let t = 0;
    let calls = 0;
    const mutator = { sudo: true, canBecome: () => answers[calls++]!() };
    const c = sshHostConnection({ identity: () => Promise.reject(new Error("not used")), mutator, systemd: { kind: "none", detail: "x" }, clock: { now: () => t } });
    return { c, calls: () => calls, advance: (ms: number) => { t += ms; } };
  }
  const ok: BecomeCheck = { ok: true, via: "sudo", login: "deploy" };
  const refused: BecomeCheck = { ok: false, login: "asker", code: "sudo_password_required", message: "m", hint: "h" };

  it("asks once within the TTL, again after it; a refusal is kept like an answer", async () => {
    const s = setup([() => Promise.resolve(refused), () => Promise.resolve(ok)]);
    expect(await s.c.privilege()).toBe(refused);
    s.advance(PRIVILEGE_TTL_MS - 1);
    expect(await s.c.privilege()).toBe(refused);
    expect(s.calls()).toBe(1);
    s.advance(1);
    expect(await s.c.privilege()).toBe(ok);
    expect(s.calls()).toBe(2);
  });

  it("a check that could not reach the host is not kept: the next plan asks again", async () => {
    const s = setup([() => Promise.reject(new HostgateError("unreachable", "gone")), () => Promise.resolve(ok)]);
    await expect(s.c.privilege()).rejects.toMatchObject({ code: "unreachable" });
    expect(await s.c.privilege()).toBe(ok);
    expect(s.calls()).toBe(2);
  });
});
