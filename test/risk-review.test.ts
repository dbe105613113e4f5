/** Commands a newcomer review found slipping through the risk engine; each must stay at least require_approval. */
import { describe, expect, it } from "vitest";
import { testEngine as engine } from "./support/risk-engine.ts";

const CASES: [string, "deny" | "require_approval"][] = [
  ["dpkg -i x.deb", "require_approval"],
  ["rpm -Uvh pkg.rpm", "require_approval"],
  ["echo 'rm -rf /' | xargs -0 sh -c", "deny"],
  ["echo 'id' | xargs -0 sh -c", "require_approval"],
  ["printf 'reboot' | xargs -d '\\n' bash -c", "require_approval"],
];

describe("review findings", () => {
  for (const [command, atLeast] of CASES) {
    it(`${command} → at least ${atLeast}`, async () => {
      const r = (await engine()).assess(command);
      expect(r.decision === "deny" || (atLeast === "require_approval" && r.decision === "require_approval"), `${command}: ${r.decision}`).toBe(true);
    });
  }
  it("keeps read-only package queries and plain xargs allowed", async () => {
    for (const c of ["dpkg -l", "rpm -qa", "echo a b | xargs ls"]) expect((await engine()).assess(c).decision).toBe("allow");
  });
});

describe("second review: programs and commands built at run time", () => {
  const HIGH = [
    "cat /tmp/f | xargs env", "cat /tmp/f | xargs nice", "cat /tmp/f | xargs -I{} sed -n {} /etc/hosts", "cat /tmp/f | xargs sed -i",
    "cat /tmp/f | xargs -I{} awk {}", "cat /tmp/f | xargs -I{} rsync -e {} a b", "sed -n \"$(cat /tmp/f)\" /etc/hosts", "awk \"$(cat /tmp/f)\"",
    "apt-get install /tmp/x.deb", "apt install ./x.deb", "dnf install ./x.rpm", "snap install --dangerous x.snap", "pip install /tmp/evil.tar.gz",
  ];
  for (const command of HIGH) {
    it(`${command} is never allowed`, async () => {
      expect((await engine()).assess(command).decision).not.toBe("allow");
    });
  }
  it("keeps everyday sed, awk, xargs and package installs as they were", async () => {
    for (const c of ["sed -n 1p /etc/hosts", "awk '{print $1}' /etc/passwd", "find . -name '*.log' | xargs grep error", "apt-get install -y nginx"]) {
      expect((await engine()).assess(c).decision).toBe("allow");
    }
  });
});
