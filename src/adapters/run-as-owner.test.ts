import { chmodSync, chownSync, lchownSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { directoryOwner, ownerArgv, runAsOwner } from "./run-as-owner.ts";

const base = realpathSync(mkdtempSync(join(tmpdir(), "hg-run-as-owner-")));
afterAll(() => { rmSync(base, { recursive: true, force: true }); });
const isRoot = process.getuid?.() === 0;

describe("directoryOwner", () => {
  it("answers the uid and gid of a real directory", () => {
    const d = join(base, "home");
    mkdirSync(d);
    expect(directoryOwner(d)).toEqual({ ok: true, owner: { uid: process.getuid!(), gid: process.getgid!() } });
  });

  it("refuses a missing directory or a file, saying what to do", () => {
    expect(directoryOwner(join(base, "absent"))).toEqual({ ok: false, reason: `${join(base, "absent")} does not exist; set HOME to the user's home directory` });
    writeFileSync(join(base, "file"), "");
    expect(directoryOwner(join(base, "file"))).toEqual({ ok: false, reason: `${join(base, "file")} is not a directory` });
  });

  it.skipIf(!isRoot)("refuses a symlink owned by someone other than its target's owner", () => {
    const target = join(base, "victim");
    mkdirSync(target);
    const link = join(base, "link");
    symlinkSync(target, link);
    lchownSync(link, 65534, 65534);
    expect(directoryOwner(link)).toEqual({ ok: false, reason: `${link} is a symlink of uid 65534 to a directory of uid 0; point HOME at the directory itself` });
    chownSync(target, 65534, 65534);
    expect(directoryOwner(link)).toMatchObject({ ok: true, owner: { uid: 65534 } });
  });
});

describe("ownerArgv / runAsOwner", () => {
  it("drops uid, gid and groups, and forbids regaining privileges", () => {
    expect(ownerArgv({ uid: 1000, gid: 1001 }, ["/usr/bin/node", "x.js"], true)).toEqual(["setpriv", "--reuid", "1000", "--regid", "1001", "--init-groups", "--no-new-privs", "--", "/usr/bin/node", "x.js"]);
    // setpriv --init-groups needs a passwd entry to read the groups from; a bare uid gets none.
    expect(ownerArgv({ uid: 4242, gid: 4242 }, ["true"], false)).toContain("--clear-groups");
  });

  it.skipIf(!isRoot)("runs the command as that uid and returns its exit code", async () => {
    const out = join(base, "out");
    mkdirSync(out);
    chmodSync(base, 0o755);
    chmodSync(out, 0o777);
    const code = await runAsOwner({ uid: 65534, gid: 65534 }, ["/bin/sh", "-c", `id -u > ${out}/uid; exit 7`], { env: { PATH: process.env.PATH }, cwd: base });
    expect(code).toBe(7);
    expect(readFileSync(join(out, "uid"), "utf8").trim()).toBe("65534");
    expect(statSync(join(out, "uid")).uid).toBe(65534);
  });

  it("without setpriv: a message saying what to do instead", async () => {
    await expect(runAsOwner({ uid: 65534, gid: 65534 }, ["true"], { env: { PATH: join(base, "no-bin") }, cwd: base })).rejects.toThrow(/setpriv \(util-linux\) is not installed; run the command as that user instead \(sudo -u '#65534'/);
  });
});
