import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync, realpathSync, mkdirSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import writeFile from "../../src/core/catalogue/actions/write-file.ts";
import { agentPreview } from "../../src/core/transaction/agent-preview.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

const sha = (s: string | Buffer): string => createHash("sha256").update(s).digest("hex");
/**
 * The approver's reason a planned write of `path` cannot be applied (undefined when it can). A blocked plan
 * still succeeds for the model, with the same agent preview as any other (red team, issue 12: plan errors
 * were a probe of paths the model cannot read); apply refuses it and writes nothing.
 */
async function blocked(ctx: ActionContext, path: string): Promise<string | undefined> {
  const p = await writeFile.preview({ path, content: "x" }, ctx);
  const reason = (p.current as { blocked?: string }).blocked;
  if (reason !== undefined) {
    expect(p.summary).toContain("CANNOT BE APPLIED");
    expect(JSON.stringify(agentPreview(p))).not.toMatch(/CANNOT|not a|symlink|does not exist|bytes, larger/);
    expect(await errorCode(() => writeFile.apply({ path, content: "x" }, ctx, p))).toBe("precondition_failed");
  }
  return reason;
}
const lines = (n: number, changed = -1): string => Array.from({ length: n }, (_, i) => (i === changed ? `CHANGED ${i}` : `line ${i}`)).join("\n") + "\n";

describe("WriteFile on a real temp directory", () => {
  let dir: string;
  let ctx: ActionContext;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "hostgate-write-"));
    ctx = await realContext();
  });
  afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

  it("creates a new file: preview shows /dev/null → b/path and does not touch the disk; apply writes it 0644", async () => {
    const path = join(dir, "new.conf");
    const params = { path, content: "a = 1\nb = 2\n" };
    const preview = await writeFile.preview(params, ctx);
    expect(existsSync(path)).toBe(false);
    expect(preview.current).toEqual({ exists: false, sha256: null, size: null, mode: null, real_dir: realpathSync(dir) });
    expect(preview.intended).toEqual({ sha256: sha(params.content), size: 12, mode: "0644" });
    expect(preview.text).toContain("--- /dev/null\n");
    expect(preview.text).toContain(`+++ b${path}\n`);
    expect(preview.text).toContain("+a = 1\n+b = 2\n");
    const out = await writeFile.apply(params, ctx, preview);
    expect(out).toEqual({ path, sha256: sha(params.content), size: 12, mode: "0644", created: true });
    expect(readFileSync(path, "utf8")).toBe(params.content);
    expect(statSync(path).mode & 0o7777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(["new.conf"]); // no temp file left behind
  });

  it("overwrites with a 3-line-context unified diff and keeps the existing mode", async () => {
    const path = join(dir, "app.conf");
    const before = lines(20);
    writeFileSync(path, before);
    chmodSync(path, 0o600);
    const params = { path, content: lines(20, 10) };
    const preview = await writeFile.preview(params, ctx);
    expect(preview.current).toEqual({ exists: true, sha256: sha(before), size: Buffer.byteLength(before), mode: "0600", real_dir: realpathSync(dir) });
    expect(preview.text).toContain(`--- a${path}\n+++ b${path}\n@@ -8,7 +8,7 @@\n line 7\n line 8\n line 9\n-line 10\n+CHANGED 10\n line 11\n line 12\n line 13\n`);
    expect(preview.text).not.toContain("line 6\n");
    await writeFile.apply(params, ctx, preview);
    expect(readFileSync(path, "utf8")).toBe(params.content);
    expect(statSync(path).mode & 0o7777).toBe(0o600);
  });

  it("applies an explicit mode and rejects setuid modes in the params schema", async () => {
    const path = join(dir, "script.sh");
    const params = { path, content: "#!/bin/sh\n", mode: "0750" };
    const preview = await writeFile.preview(params, ctx);
    expect((preview.intended as { mode: string }).mode).toBe("0750");
    await writeFile.apply(params, ctx, preview);
    expect(statSync(path).mode & 0o7777).toBe(0o750);
    expect(writeFile.params.safeParse({ path, content: "", mode: "4755" }).success).toBe(false);
    expect(writeFile.params.safeParse({ path, content: "", extra: 1 }).success).toBe(false);
  });

  it("is deterministic: two previews of the same params and file are identical JSON", async () => {
    const path = join(dir, "same.conf");
    writeFileSync(path, lines(50));
    const params = { path, content: lines(50, 25) };
    expect(JSON.stringify(await writeFile.preview(params, ctx))).toBe(JSON.stringify(await writeFile.preview(params, ctx)));
  });

  it("refuses with precondition_failed when the file changes between preview and apply, leaving the change intact", async () => {
    const path = join(dir, "race.conf");
    writeFileSync(path, "original\n");
    const preview = await writeFile.preview({ path, content: "mine\n" }, ctx);
    writeFileSync(path, "someone else\n");
    expect(await errorCode(() => writeFile.apply({ path, content: "mine\n" }, ctx, preview))).toBe("precondition_failed");
    expect(readFileSync(path, "utf8")).toBe("someone else\n");
    expect(readdirSync(dir)).toEqual(["race.conf"]);
  });

  it("refuses with precondition_failed when a file appears after a create preview", async () => {
    const path = join(dir, "late.conf");
    const preview = await writeFile.preview({ path, content: "mine\n" }, ctx);
    writeFileSync(path, "appeared\n");
    expect(await errorCode(() => writeFile.apply({ path, content: "mine\n" }, ctx, preview))).toBe("precondition_failed");
    expect(readFileSync(path, "utf8")).toBe("appeared\n");
  });

  it("says 'binary file changes' instead of dumping binary content", async () => {
    const path = join(dir, "blob.bin");
    writeFileSync(path, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x53, 0x45, 0x43, 0x52, 0x45, 0x54]));
    const preview = await writeFile.preview({ path, content: "text now\n" }, ctx);
    expect(preview.text).toContain("Binary file changes");
    expect(preview.text).not.toContain("SECRET");
    expect(preview.text).not.toContain("\0");
  });

  it.each(["/etc/shadow", "/etc/sudoers", "/etc/passwd", "/boot/x", "/proc/sys/vm/swappiness", "/sys/kernel/x", "/dev/null", "/root/.ssh/id_rsa", "/etc/ssl/private/x.key", "/srv/cert.pem"])(
    "refuses %s with forbidden_path before reading it",
    async (path) => {
      expect(await errorCode(() => writeFile.preview({ path, content: "x" }, ctx))).toBe("forbidden_path");
    },
  );

  it("blocks a path whose directory is a symlink into a forbidden place, and a symlink file (approver sees why; apply refuses)", async () => {
    symlinkSync("/etc", join(dir, "etc-link"));
    expect(await blocked(ctx, join(dir, "etc-link", "shadow"))).toMatch(/shadow.*after resolving/);
    symlinkSync("/etc/hostname", join(dir, "host-link"));
    expect(await blocked(ctx, join(dir, "host-link"))).toMatch(/is a symlink/);
  });

  it("refuses malformed paths (facts of the input alone); blocks a missing directory and a directory target", async () => {
    expect(await errorCode(() => writeFile.preview({ path: `${dir}/../x`, content: "x" }, ctx))).toBe("invalid_params");
    expect(await errorCode(() => writeFile.preview({ path: "relative/x", content: "x" }, ctx))).toBe("invalid_params");
    expect(await blocked(ctx, join(dir, "missing", "x"))).toMatch(/does not exist/);
    expect(await blocked(ctx, dir)).toMatch(/not a regular file/);
    expect(await blocked(ctx, join(dir, "fine"))).toBeUndefined();
  });
});

describe("WriteFile: a directory swapped for a symlink after approval (review finding)", () => {
  it("changes the preview, and apply with the approved preview writes nothing", async () => {
    const ctx = await realContext();
    const root = mkdtempSync(join(tmpdir(), "hg-swap-"));
    const approvedDir = join(root, "conf");
    const elsewhere = join(root, "elsewhere");
    mkdirSync(approvedDir);
    mkdirSync(elsewhere);
    const params = { path: join(approvedDir, "app.conf"), content: "x\n" };
    const approved = await writeFile.preview(params, ctx);
    renameSync(approvedDir, join(root, "conf.real"));
    symlinkSync(elsewhere, approvedDir);
    const now = await writeFile.preview(params, ctx);
    expect(JSON.stringify(now)).not.toBe(JSON.stringify(approved));
    expect(now.summary).toContain("resolves to");
    await expect(writeFile.apply(params, ctx, approved)).rejects.toMatchObject({ code: "precondition_failed" });
    expect(existsSync(join(elsewhere, "app.conf"))).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });
});

describe("WriteFile: a parent that is not a directory", () => {
  it("is planned blocked instead of as a create (the approver sees why; apply refuses)", async () => {
    const ctx = await realContext();
    const root = mkdtempSync(join(tmpdir(), "hg-notdir-"));
    writeFileSync(join(root, "file"), "x");
    expect(await blocked(ctx, join(root, "file", "child"))).toMatch(/not a directory/);
    rmSync(root, { recursive: true, force: true });
  });
});

describe("WriteFile: paths added after the second review", () => {
  it("refuses /etc/ld.so.preload and /etc/security/opasswd", async () => {
    const ctx = await realContext();
    for (const path of ["/etc/ld.so.preload", "/etc/security/opasswd"]) {
      expect(await errorCode(() => writeFile.preview({ path, content: "x" }, ctx)), path).toBe("forbidden_path");
    }
  });
});

describe("WriteFile: the plan tells the model only the intended state and a count (issue 12)", () => {
  it("shows no current hash, size, mode, existence or line positions; identical for any current content", async () => {
    const ctx = await realContext();
    const root = mkdtempSync(join(tmpdir(), "hg-oracle-"));
    try {
      const secretFile = join(root, "secret.conf");
      // The model guesses 5,000 lines; the file holds one of them (or none): the answer must not tell which.
      const guesses = Array.from({ length: 5000 }, (_, i) => `pin=${String(i).padStart(4, "0")}`).join("\n") + "\n";
      const views: string[] = [];
      for (const current of ["pin=4242\n", "pin=0007\nother\n", null]) {
        if (current === null) rmSync(secretFile, { force: true });
        else { writeFileSync(secretFile, current); chmodSync(secretFile, 0o600); }
        const preview = await writeFile.preview({ path: secretFile, content: guesses }, ctx);
        const model = agentPreview(preview);
        const text = JSON.stringify(model);
        if (current !== null) {
          const cur = preview.current as { sha256: string; size: number; mode: string };
          expect(text).not.toContain(cur.sha256);
          expect(text).not.toContain("0600");
          expect(text).not.toContain("shown only to the approver");
          expect(preview.text).toContain(cur.sha256); // the approver still sees it
        }
        expect(text).toContain(sha(guesses));
        expect(text).toContain("5000 lines");
        views.push(text);
      }
      expect(new Set(views).size).toBe(1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("the preview_hash input still covers the current state (a changed file changes it)", async () => {
    const ctx = await realContext();
    const root = mkdtempSync(join(tmpdir(), "hg-oracle-"));
    try {
      const path = join(root, "a.conf");
      writeFileSync(path, "one\n");
      const a = await writeFile.preview({ path, content: "x\n" }, ctx);
      writeFileSync(path, "two\n");
      const b = await writeFile.preview({ path, content: "x\n" }, ctx);
      expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
      expect(JSON.stringify(agentPreview(a))).toBe(JSON.stringify(agentPreview(b)));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("names the size of a file over the limit to the approver only", async () => {
    const ctx = await realContext();
    const root = mkdtempSync(join(tmpdir(), "hg-oracle-"));
    try {
      const path = join(root, "big.log");
      writeFileSync(path, Buffer.alloc(1024 * 1024 + 17, 97));
      expect(await blocked(ctx, path)).toContain(String(1024 * 1024 + 17));
      const p = await writeFile.preview({ path, content: "x" }, ctx);
      expect(JSON.stringify(agentPreview(p))).not.toContain(String(1024 * 1024 + 17));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("WriteFile refuses hostgate's own state, runtime and configuration (issue 12)", () => {
  it("refuses the signing-key directory, state.db, the sockets' directory and the config locations, also through a symlink", async () => {
    const root = mkdtempSync(join(tmpdir(), "hg-own-"));
    try {
      const state = join(root, "state");
      const runtime = join(root, "run");
      const conf = join(root, "config");
      for (const d of [state, join(state, "audit-keys"), runtime, conf]) mkdirSync(d, { recursive: true });
      const ctx = await realContext({ protected_paths: [state, runtime, conf] });
      for (const path of [join(state, "audit-keys", "current.key"), join(state, "state.db"), join(state, "audit.db"), join(runtime, "admin.sock"), join(conf, "audit-key.pub"), "/etc/hostgate/config.yaml"]) {
        expect(await errorCode(() => writeFile.preview({ path, content: "x" }, ctx)), path).toBe("forbidden_path");
      }
      // Given directly: forbidden_path (a fact of the input). Through a symlink: blocked, since the resolved
      // directory is a fact of the host the model may not be able to read.
      symlinkSync(state, join(root, "innocent"));
      expect(await blocked(ctx, join(root, "innocent", "state.db"))).toMatch(/after resolving/);
      expect(await errorCode(() => writeFile.preview({ path: join(root, "fine.conf"), content: "x" }, ctx))).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("WriteFile: a racing directory swapper (issue 12: hold the directory from the check to the rename)", () => {
  it("never writes into the directory a symlink swapped in, while another process swaps it as fast as it can", async () => {
    const ctx = await realContext();
    const root = mkdtempSync(join(tmpdir(), "hg-racer-"));
    const conf = join(root, "conf");
    const parked = join(root, "conf.parked");
    const elsewhere = join(root, "elsewhere");
    mkdirSync(conf);
    mkdirSync(elsewhere);
    const N = 400;
    // Every preview is approved while `conf` is the real directory.
    const approved = [];
    for (let i = 0; i < N; i++) {
      const params = { path: join(conf, `app-${i}.conf`), content: `v=${i}\n` };
      approved.push({ params, preview: await writeFile.preview(params, ctx) });
    }
    const counter = join(root, "swaps");
    const swapper = spawn(process.execPath, ["-e", `
      const fs = require("fs");
      const [conf, parked, elsewhere, counter] = process.argv.slice(1);
      let n = 0;
      fs.writeSync(1, "ready\\n");
      for (;;) {
        try { fs.renameSync(conf, parked); fs.symlinkSync(elsewhere, conf); fs.unlinkSync(conf); fs.renameSync(parked, conf); n++; } catch {}
        if (n % 16 === 0) fs.writeFileSync(counter + ".tmp", String(n)), fs.renameSync(counter + ".tmp", counter);
      }`, conf, parked, elsewhere, counter], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    swapper.stdout.on("data", (c: Buffer) => { out += c.toString(); });
    const swapsSoFar = (): number => { try { return Number(readFileSync(counter, "utf8")); } catch { return 0; } };
    await new Promise<void>((resolve) => { const poll = (): void => { if (out.includes("ready") && swapsSoFar() >= 16) resolve(); else setTimeout(poll, 5); }; poll(); });
    const before = swapsSoFar();
    let during = 0;
    const outcomes: Record<string, number> = {};
    try {
      for (const { params, preview } of approved) {
        const code = await errorCode(() => writeFile.apply(params, ctx, preview));
        outcomes[code ?? "written"] = (outcomes[code ?? "written"] ?? 0) + 1;
        await new Promise((r) => setImmediate(r));
      }
      during = swapsSoFar() - before;
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((r) => swapper.once("exit", r));
    }
    expect(during, "the swapper kept swapping while the writes ran").toBeGreaterThan(0);
    // Nothing ever landed in the swapped-in directory; whatever was written is in the approved one.
    expect(readdirSync(elsewhere)).toEqual([]);
    const realConf = existsSync(parked) ? parked : conf;
    const written = readdirSync(realConf).filter((f) => f.endsWith(".conf"));
    expect(written.length).toBe(outcomes.written ?? 0);
    expect(Object.keys(outcomes).every((k) => ["written", "precondition_failed", "not_found"].includes(k)), JSON.stringify(outcomes)).toBe(true);
    rmSync(root, { recursive: true, force: true });
  });
});
