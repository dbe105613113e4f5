import { describe, expect, it } from "vitest";
import { parseOptions } from "./options.ts";
import { deletionSeverity, globBase, isBlockDevice, isSecretPath, normalisePath, writeSeverity } from "./paths.ts";
import { scanSed } from "./sed.ts";
import { decodeAnsiC, literalArg } from "./words.ts";

const args = (...t: string[]) => t.map(literalArg);

describe("parseOptions", () => {
  it("splits packed short flags and reads attached and separate values", () => {
    const p = parseOptions(args("-Rf", "-n5", "-u", "root", "x"), { shortArgs: "nu" });
    expect([...p.flags.keys()]).toEqual(["-R", "-f", "-n", "-u"]);
    expect(p.flags.get("-n")).toEqual(["5"]);
    expect(p.flags.get("-u")).toEqual(["root"]);
    expect(p.operands.map((a) => a.text)).toEqual(["x"]);
  });
  it("resolves unambiguous long abbreviations and aliases", () => {
    const p = parseOptions(args("--recurs", "root", "/srv"), { longFlags: ["recursive", "reference"] });
    expect(p.flags.has("--recursive")).toBe(true);
    const q = parseOptions(args("-R"), { aliases: { R: "recursive" } });
    expect(q.flags.has("--recursive")).toBe(true);
  });
  it("keeps GNU permutation and stops at --", () => {
    const p = parseOptions(args("/etc", "-r", "-f", "--", "-x"), {});
    expect(p.operands.map((a) => a.text)).toEqual(["/etc", "-x"]);
    expect(p.flags.has("-r") && p.flags.has("-f")).toBe(true);
  });
  it("in posix mode reports where the inner command starts, also after --", () => {
    expect(parseOptions(args("-u", "root", "--", "rm", "-rf", "/"), { posix: true, shortArgs: "u" }).stop).toBe(3);
    expect(parseOptions(args("-n", "5", "ls", "-l"), { posix: true, shortArgs: "n" }).stop).toBe(2);
    expect(parseOptions(args("-n", "5"), { posix: true, shortArgs: "n" }).stop).toBe(-1);
  });
});

describe("paths", () => {
  it("normalises lexically and against a working directory", () => {
    expect(normalisePath("/var//lib/../log/")).toBe("/var/log");
    expect(normalisePath("*", "/var")).toBe("/var/*");
    expect(normalisePath("../../..", "/a")).toBe("/");
    expect(globBase("/.*/*")).toBe("/");
    expect(globBase("/var/*")).toBe("/var");
  });
  it("grades deletions", () => {
    expect(deletionSeverity("/")).toBe("critical");
    expect(deletionSeverity("/home/user")).toBe("critical");
    expect(deletionSeverity("/home/user/a/b")).toBe("high");
    expect(deletionSeverity("/tmp/build")).toBeNull();
    expect(deletionSeverity("/builds/x")).toBeNull();
  });
  it("grades writes and recognises devices and secrets", () => {
    expect(writeSeverity("/etc/passwd")).toBe("critical");
    expect(writeSeverity("/etc/sudoers.d/x")).toBe("critical");
    expect(writeSeverity("/etc/hosts")).toBe("high");
    expect(writeSeverity("./out.log")).toBe("medium");
    expect(writeSeverity("/dev/null")).toBeNull();
    expect(isBlockDevice("/dev/nvme0n1p2")).toBe(true);
    expect(isBlockDevice("/dev/tty")).toBe(false);
    expect(isSecretPath("/etc/shadow")).toBe(true);
    expect(isSecretPath("/etc/passwd")).toBe(false);
    expect(isSecretPath("~/.ssh/id_rsa.pub")).toBe(false);
  });
});

describe("decodeAnsiC", () => {
  it("decodes octal, hex, unicode and control escapes", () => {
    expect(decodeAnsiC("r\\155")).toBe("rm");
    expect(decodeAnsiC("\\x72\\x6d")).toBe("rm");
    expect(decodeAnsiC("\\u0072m")).toBe("rm");
    expect(decodeAnsiC("a\\nb\\'")).toBe("a\nb'");
  });
});

describe("scanSed", () => {
  it("finds e commands, the e flag and w files", () => {
    expect(scanSed("1e rm -rf /srv").execs).toEqual(["rm -rf /srv"]);
    expect(scanSed("s|.*|id|e").execFlag).toBe(true);
    expect(scanSed("/x/w /root/.ssh/authorized_keys").writes).toEqual(["/root/.ssh/authorized_keys"]);
    expect(scanSed("1{w /etc/profile.d/x.sh\n}").writes).toEqual(["/etc/profile.d/x.sh"]);
    expect(scanSed("s/w/e/g;1,20p")).toEqual({ execs: [], execFlag: false, writes: [], reads: [] });
  });
  it("finds the files r and R insert (issue 19: sed r read secrets while rated low)", () => {
    expect(scanSed("r /etc/shadow").reads).toEqual(["/etc/shadow"]);
    expect(scanSed("1R /root/.ssh/id_rsa\n$r x").reads).toEqual(["/root/.ssh/id_rsa", "x"]);
    expect(scanSed("s/r/R/;/r/p").reads).toEqual([]);
  });
});
