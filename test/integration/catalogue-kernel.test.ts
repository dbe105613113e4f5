import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import getRebootRequired, { compareKernelRelease, rebootRequired } from "../../src/core/catalogue/actions/get-reboot-required.ts";
import getSysctl from "../../src/core/catalogue/actions/get-sysctl.ts";
import { sysctlKeyPath } from "../../src/core/host/sysctl-key.ts";
import listKernelModules, { parseModules } from "../../src/core/catalogue/actions/list-kernel-modules.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

/** Issue 24, kernel toolset: each action against sysctl, lsmod and uname on this machine; planted trees for the reboot flag. */
let ctx: ActionContext;
let dir: string;
const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
beforeAll(async () => {
  ctx = await realContext();
  dir = mkdtempSync(join(tmpdir(), "hostgate-kernel-"));
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe("GetSysctl", () => {
  it.each(["kernel.ostype", "kernel.pid_max", "vm.swappiness", "net.ipv4.ip_forward", "net.ipv4.tcp_rmem", "kernel.osrelease"])("%s is what sysctl -n prints", async (key) => {
    const r = await getSysctl.run({ key }, ctx);
    expect(r.values).toEqual([{ key, value: sh("sysctl", ["-n", key]).replace(/\n$/, "") }]);
  });

  it.each([["net.ipv4.conf.lo.", "^net\\.ipv4\\.conf\\.lo\\."], ["net.ipv4.tcp_", "^net\\.ipv4\\.tcp_"], ["vm.", "^vm\\."]])("prefix %s lists what sysctl -a -r prints", async (key, pattern) => {
    const r = await getSysctl.run({ key }, ctx);
    const expected = sh("sysctl", ["-a", "-r", pattern]).trim().split("\n").map((l) => {
      const i = l.indexOf(" = ");
      return { key: l.slice(0, i), value: l.slice(i + 3) };
    }).sort((a, b) => a.key.localeCompare(b.key));
    // sysctl -a prints multi-line values one "key = line" per line; those keys are compared by their first line
    const ours = r.values.map((v) => ({ key: v.key, value: v.value.split("\n")[0]! })).sort((a, b) => a.key.localeCompare(b.key));
    const seen = new Set<string>();
    expect(ours).toEqual(expected.filter((e) => !seen.has(e.key) && seen.add(e.key)));
  });

  it("maps a / in a key to a . in a name, as sysctl(8) does", () => {
    expect(sysctlKeyPath("net.ipv4.conf.eth0/1.rp_filter", "read")).toBe("/proc/sys/net/ipv4/conf/eth0.1/rp_filter");
    expect(sysctlKeyPath("vm.", "read")).toBe("/proc/sys/vm");
  });

  it("refuses a path-like key and says what an unknown key is", async () => {
    expect(await errorCode(() => getSysctl.run({ key: "../../etc/shadow" }, ctx))).toBe("invalid_params");
    expect(await errorCode(() => getSysctl.run({ key: "kernel/../../etc" }, ctx))).toBe("invalid_params");
    expect(await errorCode(() => getSysctl.run({ key: "no.such.key_x" }, ctx))).toBe("not_found");
  });
});

describe("ListKernelModules", () => {
  it("agrees with lsmod on this machine (or, without /proc/modules, both say there is nothing)", async () => {
    const lsmod = spawnSync("lsmod", [], { encoding: "utf8" });
    if (!existsSync("/proc/modules")) {
      expect(lsmod.status).not.toBe(0);
      expect(await errorCode(() => listKernelModules.run({}, ctx))).toBe("unavailable");
      return;
    }
    const r = await listKernelModules.run({}, ctx);
    const expected = lsmod.stdout.trim().split("\n").slice(1).map((l) => {
      const f = l.split(/\s+/);
      return { name: f[0], size_bytes: Number(f[1]), used_by_count: Number(f[2]), used_by: f[3] ? f[3].split(",") : [] };
    });
    expect(r.modules.map(({ name, size_bytes, used_by_count, used_by }) => ({ name, size_bytes, used_by_count, used_by }))).toEqual(expected);
  });

  it("parses /proc/modules lines (users comma-terminated, - for none)", () => {
    expect(parseModules("nf_tables 348160 1 nft_chain_nat, Live 0x0000000000000000\nvirtio_net 69632 0 - Live 0x0000000000000000\n")).toEqual([
      { name: "nf_tables", size_bytes: 348160, used_by_count: 1, used_by: ["nft_chain_nat"], state: "Live" },
      { name: "virtio_net", size_bytes: 69632, used_by_count: 0, used_by: [], state: "Live" },
    ]);
  });
});

describe("GetRebootRequired", () => {
  it("on this machine: the running kernel is uname -r's; required matches the flag and /lib/modules", async () => {
    const r = await getRebootRequired.run({}, ctx);
    expect(r.running_kernel).toBe(sh("uname", ["-r"]).trim());
    expect(r.required).toBe(existsSync("/run/reboot-required") || (r.newest_installed_kernel !== null && compareKernelRelease(r.newest_installed_kernel, r.running_kernel) > 0));
  });

  it("a planted Debian flag with its packages, and a newer installed kernel, are both reasons", async () => {
    writeFileSync(join(dir, "reboot-required"), "*** System restart required ***\n");
    writeFileSync(join(dir, "reboot-required.pkgs"), "linux-image-6.1.0-30-amd64\nlibc6\nlibc6\n");
    for (const k of ["6.1.0-28-amd64", "6.1.0-30-amd64", "6.1.0-9-amd64"]) mkdirSync(join(dir, "modules", k), { recursive: true });
    writeFileSync(join(dir, "osrelease"), "6.1.0-28-amd64\n");
    const paths = { flag: join(dir, "reboot-required"), pkgs: join(dir, "reboot-required.pkgs"), modules: join(dir, "modules"), osrelease: join(dir, "osrelease") };
    const r = await rebootRequired(ctx, paths);
    expect(r).toMatchObject({ required: true, packages: ["linux-image-6.1.0-30-amd64", "libc6"], running_kernel: "6.1.0-28-amd64", newest_installed_kernel: "6.1.0-30-amd64" });
    expect(r.reasons).toHaveLength(2);
    rmSync(paths.flag);
    writeFileSync(paths.osrelease, "6.1.0-30-amd64\n");
    expect(await rebootRequired(ctx, paths)).toMatchObject({ required: false, reasons: [], packages: [] });
  });
});
