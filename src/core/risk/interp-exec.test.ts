import { describe, expect, it } from "vitest";
import { embeddedShell } from "./interp-exec.ts";

describe("embeddedShell", () => {
  it("finds literal strings handed to a shell, per language", () => {
    expect(embeddedShell("perl", 'system("rm -rf /")')).toEqual(["rm -rf /"]);
    expect(embeddedShell("python3", 'import os; os.system("id")')).toEqual(["id"]);
    expect(embeddedShell("python3", 'subprocess.run("a | b", shell=True)')).toEqual(["a | b"]);
    expect(embeddedShell("node", 'require("child_process").execSync("uptime")')).toEqual(["uptime"]);
    expect(embeddedShell("php", 'shell_exec("ls");')).toEqual(["ls"]);
    expect(embeddedShell("ruby", "puts `date`")).toEqual(["date"]);
    expect(embeddedShell("perl", "qx{whoami}; qx(id)")).toEqual(["whoami", "id"]);
    expect(embeddedShell("ruby", "%x{uname -a}")).toEqual(["uname -a"]);
  });
  it("rebuilds literal argv lists with shell quoting", () => {
    expect(embeddedShell("python3", 'subprocess.run(["rm", "-rf", "/tmp/a b"])')).toEqual(["rm -rf '/tmp/a b'"]);
    expect(embeddedShell("perl", 'system "rm", "-rf", "/"')).toEqual(["rm -rf /"]);
  });
  it("leaves run-time values and other calls alone", () => {
    expect(embeddedShell("python3", 'os.system(f"rm {d}")')).toEqual([]);
    expect(embeddedShell("perl", 'system("rm $dir")')).toEqual([]);
    expect(embeddedShell("python3", 'print("os.system")')).toEqual([]);
    expect(embeddedShell("lua", 'os.execute("id")')).toEqual([]);
  });
});

describe("embeddedShell, evasions", () => {
  it("finds calls on any receiver, argv lists after the program, and perl q{} / qq{}", () => {
    expect(embeddedShell("python3", "__import__('os').system('rm -rf /')")).toEqual(["rm -rf /"]);
    expect(embeddedShell("node", "require('child_process').spawnSync('rm', ['-rf', '/'])")).toEqual(["rm -rf /"]);
    expect(embeddedShell("perl", "system qq{rm -rf /}")).toEqual(["rm -rf /"]);
    expect(embeddedShell("perl", "system q(id)")).toEqual(["id"]);
    expect(embeddedShell("perl", "system qq{rm $d}")).toEqual([]);
  });
});
