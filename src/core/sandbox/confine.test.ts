import { describe, expect, it } from "vitest";
import { chooseSandbox, confine, describeSandbox, type HostSandbox, type NetworkGrant } from "./confine.ts";
import { printfOctal, sandboxFilter, type SocketRule } from "./seccomp.ts";

/** A root login on x86_64 with `mechanism`'s programs (what a probe of a Debian host finds). */
function sandbox(mechanism: "bwrap" | "hostgate-confine", arch = "x86_64"): HostSandbox {
  return {
    mechanism, summary: mechanism, identity: "nobody",
    facts: {
      uid: 0, arch, systemd: false, log_groups: [], posix_shell: true,
      programs: { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv", timeout: "/usr/bin/timeout", ...(mechanism === "hostgate-confine" ? { confine_helper: "/root/.cache/hostgate/confine" } : {}) },
    },
  };
}

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const wrap = (sb: HostSandbox, network: NetworkGrant, hostView = false): string =>
  confine(["sh", "-c", "true"], sb, { network, timeout_sec: 10, run_id: "t", host_network_view: hostView }).command;

describe("the seccomp filter in a wrapper, encoded once per architecture, socket rule and form (issue 20)", () => {
  // Interleaved on purpose: a memo keyed too coarsely would hand one rule's or one form's text to another.
  const cases: [NetworkGrant, boolean, SocketRule][] = [["none", false, "local"], ["any", false, "all"], ["none", true, "netlink"], ["none", false, "local"], ["any", false, "all"]];

  it("bubblewrap's printf carries exactly the filter of each call's network rule", () => {
    for (const [network, view, rule] of cases) {
      const cmd = wrap(sandbox("bwrap"), network, view);
      expect(cmd).toContain(`printf '${printfOctal(sandboxFilter("x86_64", { sockets: rule }))}' |`);
      for (const other of (["local", "all", "netlink"] as const).filter((r) => r !== rule)) {
        expect(cmd).not.toContain(printfOctal(sandboxFilter("x86_64", { sockets: other })));
      }
    }
  });

  it("hostgate-confine's --seccomp carries exactly the filter of each call's network rule, in hex", () => {
    for (const [network, view, rule] of cases) {
      const cmd = wrap(sandbox("hostgate-confine"), network, view);
      expect(cmd).toContain(`--seccomp ${hex(sandboxFilter("x86_64", { sockets: rule }))}`);
    }
  });

  it("another architecture gets its own filter; one without a filter gets none", () => {
    expect(wrap(sandbox("bwrap", "aarch64"), "none")).toContain(printfOctal(sandboxFilter("aarch64", { sockets: "local" })));
    expect(wrap(sandbox("bwrap", "riscv64"), "none")).not.toContain("--seccomp");
    expect(wrap(sandbox("hostgate-confine", "riscv64"), "none")).not.toContain("--seccomp");
  });
});

describe("a host's sandbox in one line (get_host_details, doctor)", () => {
  it("adds who commands run as when there is a mechanism; without one the summary alone says why", () => {
    const sb = sandbox("bwrap");
    expect(describeSandbox(sb)).toBe("bwrap; commands run as nobody");
    const none = chooseSandbox({ ...sb.facts, programs: {} });
    expect(none.mechanism).toBeNull();
    expect(describeSandbox(none)).toBe(none.summary);
    expect(describeSandbox(none)).not.toContain("commands run as");
  });
});
