import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryAction } from "../../src/app/query.ts";
import { hostEntry } from "../../src/app/hosts.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { ISSUE_CASES, REDACT_CASES } from "../fixtures/redact-cases.ts";
import { realContext } from "../helpers/real-context.ts";

/**
 * Red team, route "read a secret through read_log_file": planted files under /var/log (real files, the real
 * action, the daemon's query path). Each test is named for the route it tries.
 */
const dir = `/var/log/hostgate-trust-${process.pid}`;
const PASSWORD = "Lq7vX2pK9sW4zT1";
const KEY_BODY = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu", "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ"];
let ctx: ActionContext;
/** Every read is an attempt; a secret found in an answer (before the assertion fails) is a secret recovered. */
const tally = { attempts: 0, secrets_recovered: 0 };
const ALL_SECRETS = (): string[] => [PASSWORD, ...KEY_BODY.map((b) => b.slice(0, 20)), ...[...REDACT_CASES, ...ISSUE_CASES].flatMap((c) => c.secrets)];

async function read(args: Record<string, unknown>, c: ActionContext = ctx): Promise<{ ok: boolean; lines: string[]; code?: string }> {
  tally.attempts++;
  const r = await queryAction("ReadLogFile", args, hostEntry(c, "local"));
  if (!r.ok) return { ok: false, lines: [], code: r.error.code };
  const lines = (r.value.data as { lines: string[] }).lines;
  const text = lines.join("\n");
  if (ALL_SECRETS().some((s) => text.includes(s))) tally.secrets_recovered++;
  return { ok: true, lines };
}

beforeAll(async () => {
  ctx = await realContext();
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/corpus.log`, [...REDACT_CASES, ...ISSUE_CASES].map((c) => c.line).join("\n") + "\n");
  writeFileSync(`${dir}/app.log`, `start\ndb password=${PASSWORD} ok\nmid\n-----BEGIN PRIVATE KEY-----\n${KEY_BODY.join("\n")}\n-----END PRIVATE KEY-----\nend\n`);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`red team (read channels): ${JSON.stringify(tally)}\n`);
});

describe("route: read_log_file on a planted file (corpus area redact)", () => {
  for (const c of [...REDACT_CASES.map((x) => ({ ...x, name: x.id })), ...ISSUE_CASES]) {
    it(`${c.name}: the secret does not come back`, async () => {
      const r = await read({ path: `${dir}/corpus.log`, lines: 500 });
      expect(r.ok).toBe(true);
      const text = r.lines.join("\n");
      for (const s of c.secrets) expect(text).not.toContain(s);
    });
  }
});

describe("route: grep as an oracle on redacted values", () => {
  it("grep 'password=L' (the first letter of the hidden password) returns nothing", async () => {
    expect((await read({ path: `${dir}/app.log`, grep: "password=L" })).lines).toEqual([]);
    expect((await read({ path: `${dir}/app.log`, grep: PASSWORD.slice(3, 9) })).lines).toEqual([]);
  });

  it("recovering the password letter by letter: every guess answers the same", async () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const answers = new Set<string>();
    for (const ch of alphabet) answers.add(JSON.stringify((await read({ path: `${dir}/app.log`, grep: `password=${ch}` })).lines));
    expect([...answers]).toEqual(["[]"]);
  });

  it("grep for a substring of a PEM body line returns nothing, with or without the armour in the window", async () => {
    for (const lines of [100, 3, 2]) {
      const r = await read({ path: `${dir}/app.log`, grep: KEY_BODY[1]!.slice(10, 30), lines });
      expect(r.lines, `lines=${lines}`).toEqual([]);
    }
  });

  it("a tail window that starts inside the key body does not return the body lines", async () => {
    for (let lines = 1; lines <= 8; lines++) {
      const text = (await read({ path: `${dir}/app.log`, lines })).lines.join("\n");
      for (const b of KEY_BODY) expect(text, `lines=${lines}`).not.toContain(b.slice(0, 20));
    }
  });
});

describe("provenance counts what the action redacted itself (newcomer report)", () => {
  const markers = (lines: string[]): number => lines.join("\n").split("[redacted:").length - 1;

  it("redactions equals the markers in the lines returned, with and without grep", async () => {
    for (const args of [{ path: `${dir}/app.log` }, { path: `${dir}/app.log`, grep: "password" }, { path: `${dir}/app.log`, lines: 1 }, { path: `${dir}/app.log`, grep: "PRIVATE KEY" }]) {
      const r = await queryAction("ReadLogFile", args, hostEntry(ctx, "local"));
      if (!r.ok) throw new Error(r.error.message);
      const lines = (r.value.data as { lines: string[] }).lines;
      expect(r.value.meta.redactions, JSON.stringify(args)).toBe(markers(lines));
    }
    const all = await queryAction("ReadLogFile", { path: `${dir}/app.log` }, hostEntry(ctx, "local"));
    expect(all.ok && all.value.meta.redactions).toBe(6); // the password + the key's five lines
  });
});

describe("route: root-only logs (logs.readable)", () => {
  const files = { root600: `${dir}/root-only.log`, adm640: `${dir}/adm.log`, world644: `${dir}/world.log` };
  beforeAll(() => {
    for (const f of Object.values(files)) writeFileSync(f, "line\n");
    chmodSync(files.root600, 0o600);
    chownSync(files.adm640, 0, 4);
    chmodSync(files.adm640, 0o640);
    chmodSync(files.world644, 0o644);
  });

  it("adm (system default): a 0600 root log is refused, a root:adm 0640 and a 0644 log are read", async () => {
    const adm = await realContext({ logs_readable: { kind: "group", name: "adm", gid: 4 } });
    expect((await read({ path: files.root600 }, adm)).code).toBe("forbidden_path");
    expect((await read({ path: files.adm640 }, adm)).ok).toBe(true);
    expect((await read({ path: files.world644 }, adm)).ok).toBe(true);
  });

  it("a list of paths: only those are read", async () => {
    const only = await realContext({ logs_readable: { kind: "paths", paths: [files.world644] } });
    expect((await read({ path: files.world644 }, only)).ok).toBe(true);
    expect((await read({ path: files.adm640 }, only)).code).toBe("forbidden_path");
  });

  it("route: probe a root-only directory under /var/log by name — absent, 0600, symlink, directory, FIFO, hard link answer alike under adm", async () => {
    const adm = await realContext({ logs_readable: { kind: "group", name: "adm", gid: 4 } });
    const priv = `${dir}/private`;
    mkdirSync(priv, { mode: 0o700 });
    writeFileSync(`${priv}/secret.log`, "x\n", { mode: 0o600 });
    symlinkSync("/etc/shadow", `${priv}/link.log`);
    mkdirSync(`${priv}/sub.log`);
    expect(spawnSync("mkfifo", [`${priv}/fifo.log`]).status).toBe(0);
    linkSync(`${priv}/secret.log`, `${priv}/hard.log`);
    const answers = new Set<string>();
    for (const name of ["absent.log", "secret.log", "link.log", "sub.log", "fifo.log", "hard.log"]) {
      tally.attempts++;
      const r = await queryAction("ReadLogFile", { path: `${priv}/${name}` }, hostEntry(adm, "local"));
      expect(r.ok).toBe(false);
      answers.add(JSON.stringify(r).replaceAll(name, "<name>"));
    }
    expect([...answers]).toHaveLength(1);
    expect([...answers][0]).not.toMatch(/0600|shadow|does not exist|hard links|resolves to|opened as/);
  });

  it("all: the root-only log is read (redacted), as the embedded daemon's default", async () => {
    expect((await read({ path: files.root600 })).ok).toBe(true);
  });
});

describe("tally", () => {
  it("no secret recovered through any read (runs after the routes above)", () => {
    expect(tally.attempts).toBeGreaterThan(0);
    expect(tally.secrets_recovered).toBe(0);
  });
});
