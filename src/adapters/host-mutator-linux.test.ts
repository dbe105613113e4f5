import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LinuxHostMutator } from "./host-mutator-linux.ts";

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
async function codeOf(p: Promise<unknown>): Promise<string | null> {
  try { await p; return null; } catch (err) { return (err as { code?: string }).code ?? "untyped"; }
}

describe("LinuxHostMutator.writeFileAtomic", () => {
  let dir: string;
  const m = new LinuxHostMutator();
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), "hostgate-mut-")); });
  afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

  it("replaces content, keeps mode when none is given, leaves no temp file", async () => {
    const path = join(dir, "f");
    writeFileSync(path, "old");
    chmodSync(path, 0o640);
    await m.writeFileAtomic(path, "new ✓", { expectedSha256: sha("old") });
    expect(readFileSync(path, "utf8")).toBe("new ✓");
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["f"]);
  });

  it("enforces expectedSha256: mismatch and null-for-existing are precondition_failed and change nothing", async () => {
    const path = join(dir, "f");
    writeFileSync(path, "old");
    expect(await codeOf(m.writeFileAtomic(path, "x", { expectedSha256: sha("other") }))).toBe("precondition_failed");
    expect(await codeOf(m.writeFileAtomic(path, "x", { expectedSha256: null }))).toBe("precondition_failed");
    expect(readFileSync(path, "utf8")).toBe("old");
    expect(readdirSync(dir)).toEqual(["f"]);
  });

  it("creates with expectedSha256 null and the given mode; no precondition when omitted", async () => {
    const path = join(dir, "g");
    await m.writeFileAtomic(path, "one", { expectedSha256: null, mode: 0o600 });
    expect(statSync(path).mode & 0o7777).toBe(0o600);
    await m.writeFileAtomic(path, "two", {});
    expect(readFileSync(path, "utf8")).toBe("two");
  });

  it("does not write through a symlink at the path", async () => {
    const target = join(dir, "target");
    writeFileSync(target, "keep");
    symlinkSync(target, join(dir, "link"));
    expect(await codeOf(m.writeFileAtomic(join(dir, "link"), "x", { expectedSha256: sha("keep") }))).toBe("precondition_failed");
    expect(readFileSync(target, "utf8")).toBe("keep");
  });

  it("a missing directory is not_found", async () => {
    expect(await codeOf(m.writeFileAtomic(join(dir, "nope", "f"), "x", {}))).toBe("not_found");
  });
});

describe("LinuxHostMutator.signal and run", () => {
  const m = new LinuxHostMutator();

  it("delivers a signal and maps a missing pid to not_found", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    await once(child, "spawn");
    const exited = once(child, "exit");
    await m.signal(child.pid!, "SIGINT");
    expect((await exited)[1]).toBe("SIGINT");
    expect(await codeOf(m.signal(child.pid!, "SIGTERM"))).toBe("not_found");
  });

  it("runs argv without a shell and passes env", async () => {
    const r = await m.run(["/bin/sh", "-c", "echo \"$FOO\" '$(id)'"], { timeoutMs: 5000, env: { FOO: "bar" } });
    expect(r.exit_code).toBe(0);
    expect(r.stdout).toBe("bar $(id)\n");
    const literal = await m.run(["echo", "$(id); rm -rf /"], { timeoutMs: 5000 });
    expect(literal.stdout).toBe("$(id); rm -rf /\n");
  });
});
