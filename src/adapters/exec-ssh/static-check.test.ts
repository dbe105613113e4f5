/** Static checks over the source tree for the SSH corpus cases that are about code, not behaviour. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") && !p.endsWith(".test.ts") ? [p] : [];
  });
}
const sources = files("src").map((p) => ({ p, text: readFileSync(p, "utf8") }));

describe("ssh2 usage in src/", () => {
  it("S006: every ssh2 Client.connect passes a hostVerifier (ssh2 accepts any key without one)", () => {
    const users = sources.filter((s) => /new ssh2\.Client\(|from "ssh2"/.test(s.text) && /\.connect\(\{/.test(s.text));
    expect(users.map((u) => u.p)).toEqual(["src/adapters/exec-ssh/dial.ts"]);
    for (const u of users) {
      const connects = u.text.split(/\.connect\(\{/).slice(1);
      for (const c of connects) expect(c.slice(0, 2000)).toMatch(/hostVerifier:/);
    }
  });
  it("S007: no verifier that accepts every key", () => {
    for (const s of sources) {
      expect(s.text, s.p).not.toMatch(/hostVerifier\s*:\s*(\([^)]*\)|\w+)\s*(:\s*\w+\s*)?=>\s*true/);
      expect(s.text, s.p).not.toMatch(/hostVerifier\s*:\s*\(\)\s*=>/);
    }
  });
  it("S009/S017: no password or keyboard-interactive authentication, no agent forwarding", () => {
    for (const s of sources.filter((x) => x.p.includes("exec-ssh"))) {
      expect(s.text, s.p).not.toMatch(/type: "password"|type: "keyboard-interactive"|tryKeyboard: true|agentForward: true/);
    }
  });
});
