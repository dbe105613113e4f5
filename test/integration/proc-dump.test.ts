import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseProcDump } from "../../src/core/host/proc-dump.ts";

/** Runs the same sed program as PROC_DUMP_ARGV over files named like /proc ones, then maps names back. */
function dump(files: Record<string, Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), "hg-dump-"));
  try {
    const paths = Object.entries(files).map(([p, b]) => {
      const f = join(dir, p.replace(/\//g, "_"));
      writeFileSync(f, b);
      return f;
    });
    const out = execFileSync("sed", ["-z", "-n", "-s", "1F;l 0", ...paths], { env: { LC_ALL: "C", PATH: process.env.PATH }, encoding: "latin1" });
    return out.replaceAll(`${dir}/`, "").replace(/_proc_(\d+)_(\w+)/g, "/proc/$1/$2");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("parseProcDump (GNU sed -z -s '1F;l 0' over /proc files)", () => {
  it("gives back every file's bytes, hostile command lines included", () => {
    const files = {
      "/proc/1/stat": Buffer.from("1 (init) S 0 1 1 0 -1\n"),
      "/proc/1/status": Buffer.from("Name:\tinit\nUid:\t0\t0\t0\t0\n"),
      "/proc/1/cmdline": Buffer.from("/sbin/init\0--x\0"),
      "/proc/22/stat": Buffer.from("22 (a) b$\n) R 1\n"),
      "/proc/22/cmdline": Buffer.concat([Buffer.from("evil\0/proc/1/cmdline\0x$\0\\101\n"), Buffer.from([0xc3, 0xa9, 0xff, 0]), Buffer.from("\0")]),
    };
    const got = parseProcDump(dump(files));
    expect(got).not.toBeNull();
    expect(Object.fromEntries([...got!].map(([k, v]) => [k, v.toString("latin1")]))).toEqual(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.toString("latin1")])));
  });

  it("an empty file is absent; text that is not a dump is null", () => {
    expect(parseProcDump(dump({ "/proc/3/cmdline": Buffer.alloc(0), "/proc/3/stat": Buffer.from("3 (k) I\n") }))).toEqual(new Map([["/proc/3/stat", Buffer.from("3 (k) I\n")]]));
    expect(parseProcDump("sed: -z: invalid option\n")).toBeNull();
    expect(parseProcDump("/etc/passwd\0root$\0")).toBeNull();
    expect(parseProcDump("/proc/1/stat\0a\\9$\0")).toBeNull();
    expect(parseProcDump("x$\0")).toBeNull();
  });
});
