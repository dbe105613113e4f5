import { describe, expect, it } from "vitest";
import { sysctlKeyPath } from "./sysctl-key.ts";

const code = (f: () => unknown): string | null => {
  try {
    f();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? "untyped";
  }
};

describe("sysctlKeyPath: the one sysctl key check (GetSysctl reads, SetSysctl and the mutators write)", () => {
  it("maps dotted words to /proc/sys, the same for reading and writing one key", () => {
    expect(sysctlKeyPath("net.ipv4.ip_forward", "write")).toBe("/proc/sys/net/ipv4/ip_forward");
    expect(sysctlKeyPath("net.ipv4.ip_forward", "read")).toBe("/proc/sys/net/ipv4/ip_forward");
  });

  it("reading also takes sysctl(8)'s / for a dot inside a name and a subtree prefix; writing does not", () => {
    expect(sysctlKeyPath("net.ipv4.conf.eth0/1.rp_filter", "read")).toBe("/proc/sys/net/ipv4/conf/eth0.1/rp_filter");
    expect(sysctlKeyPath("vm.", "read")).toBe("/proc/sys/vm");
    expect(code(() => sysctlKeyPath("net.ipv4.conf.eth0/1.rp_filter", "write"))).toBe("invalid_params");
    expect(code(() => sysctlKeyPath("vm.", "write"))).toBe("invalid_params");
    expect(code(() => sysctlKeyPath("vm", "write"))).toBe("invalid_params");
  });

  it.each(["../../etc/shadow", "kernel/../../etc", "net..ipv4", "net./x", "a b", "", "net.ipv4.ip_forward\n"])("refuses %j for both uses, saying what a key looks like", (key) => {
    for (const use of ["read", "write"] as const) {
      let message = "";
      try {
        sysctlKeyPath(key, use);
      } catch (err) {
        message = `${(err as { code: string }).code}: ${(err as Error).message}`;
      }
      expect(message, `${use} ${JSON.stringify(key)}`).toMatch(/^invalid_params: .* is not a sysctl key/);
    }
  });
});
