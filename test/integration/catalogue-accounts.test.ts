import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import listAuthorizedKeys, { readAccountKeys } from "../../src/core/catalogue/actions/list-authorized-keys.ts";
import listGroups from "../../src/core/catalogue/actions/list-groups.ts";
import listLoginSessions, { parseLogindSession } from "../../src/core/catalogue/actions/list-login-sessions.ts";
import listSudoRules, { readSudoers, visudoRejects, withRejections } from "../../src/core/catalogue/actions/list-sudo-rules.ts";
import listRecentLogins, { readLogins } from "../../src/core/catalogue/actions/list-recent-logins.ts";
import listUsers from "../../src/core/catalogue/actions/list-users.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { parseUtmp } from "../../src/core/host/utmp.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

/** Issue 24, accounts toolset: each action against the standard tool on this machine, planted fixtures where it lacks data. */
let ctx: ActionContext;
let dir: string;
const hasVisudo = (() => { try { execFileSync("visudo", ["-V"], { stdio: "ignore" }); return true; } catch { return false; } })();
const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });

beforeAll(async () => {
  ctx = await realContext();
  dir = mkdtempSync(join(tmpdir(), "hostgate-accounts-"));
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe("ListUsers", () => {
  it("lists exactly what getent -s files passwd prints, without the password field", async () => {
    const r = await listUsers.run(listUsers.params.parse({ limit: 1000 }), ctx);
    const expected = sh("getent", ["-s", "files", "passwd"]).trim().split("\n").map((l) => {
      const f = l.split(":");
      return { name: f[0], uid: Number(f[2]), gid: Number(f[3]), gecos: f[4], home: f[5], shell: f[6] };
    });
    expect(r.users.map(({ name, uid, gid, gecos, home, shell }) => ({ name, uid, gid, gecos, home, shell }))).toEqual(expected);
    expect(r.total).toBe(expected.length);
    expect(JSON.stringify(r)).not.toMatch(/"password"/);
    expect(r.users.find((u) => u.name === "root")).toMatchObject({ system: true, can_login: true });
    const nologin = r.users.find((u) => /nologin$/.test(u.shell));
    if (nologin) expect(nologin.can_login).toBe(false);
  });

  it("include_system: false keeps only uids from login.defs UID_MIN on, and pages with a cursor", async () => {
    const all = await listUsers.run(listUsers.params.parse({ limit: 1000 }), ctx);
    const human = await listUsers.run(listUsers.params.parse({ include_system: false, limit: 1000 }), ctx);
    expect(human.users.every((u) => u.uid >= all.uid_min && u.uid !== 65534)).toBe(true);
    expect(human.total).toBe(all.users.filter((u) => !u.system).length);
    const first = await listUsers.run(listUsers.params.parse({ limit: 2 }), ctx);
    const second = await listUsers.run(listUsers.params.parse({ limit: 2, cursor: first.next_cursor! }), ctx);
    expect([...first.users, ...second.users].map((u) => u.name)).toEqual(all.users.slice(0, 4).map((u) => u.name));
  });

  it("a cursor of another query is refused invalid_params", async () => {
    const first = await listUsers.run(listUsers.params.parse({ limit: 1 }), ctx);
    expect(await errorCode(() => listUsers.run(listUsers.params.parse({ include_system: false, cursor: first.next_cursor! }), ctx))).toBe("invalid_params");
  });
});

describe("ListGroups", () => {
  it("lists exactly what getent -s files group prints, with each account's primary group", async () => {
    const r = await listGroups.run(listGroups.params.parse({ limit: 1000 }), ctx);
    const expected = sh("getent", ["-s", "files", "group"]).trim().split("\n").map((l) => {
      const f = l.split(":");
      return { name: f[0], gid: Number(f[2]), members: f[3] ? f[3].split(",") : [] };
    });
    expect(r.groups.map(({ name, gid, members }) => ({ name, gid, members }))).toEqual(expected);
    expect(r.groups.find((g) => g.name === sh("id", ["-gn", "root"]).trim())!.primary_of).toContain("root");
  });

  it("name filters to one group; an unknown name gives an empty list", async () => {
    expect((await listGroups.run(listGroups.params.parse({ name: "root" }), ctx)).groups.map((g) => g.gid)).toEqual([0]);
    expect((await listGroups.run(listGroups.params.parse({ name: "no-such-group-x" }), ctx)).groups).toEqual([]);
  });
});

describe("ListLoginSessions", () => {
  it("on this machine answers what who(1) answers", async () => {
    const r = await listLoginSessions.run({}, ctx);
    const who = sh("who", []).trim().split("\n").filter((l) => l !== "").map((l) => l.split(/\s+/)[0]);
    expect(r.sessions.map((s) => s.user)).toEqual(who);
  });

  it("parses utmp records as who(1) reads them (a file written by utmpdump -r)", () => {
    const file = join(dir, "utmp");
    const dump = [
      "[2] [00000] [~~  ] [reboot  ] [~           ] [6.1.0               ] [0.0.0.0        ] [2026-12-01T09:00:00,000000+00:00]",
      "[7] [12345] [ts/0] [alice   ] [pts/0       ] [192.0.2.7           ] [192.0.2.7      ] [2026-12-01T10:00:00,000000+00:00]",
      "[7] [23456] [ts/1] [bob     ] [pts/1       ] [2001:db8::5         ] [2001:db8::5    ] [2026-12-01T11:30:00,000000+00:00]",
      "[8] [34567] [ts/2] [        ] [pts/2       ] [                    ] [0.0.0.0        ] [2026-12-01T12:00:00,000000+00:00]",
    ].join("\n") + "\n";
    writeFileSync(file, execFileSync("utmpdump", ["-r"], { input: dump, stdio: ["pipe", "pipe", "ignore"] }));
    const records = parseUtmp(readFileSync(file).toString("latin1"));
    const users = records.filter((r) => r.type === "user_process");
    const who = sh("who", [file]).trim().split("\n").map((l) => /^(\S+)\s+(\S+)\s+(\S+ \S+)\s+\((.*)\)$/.exec(l)!.slice(1));
    expect(users.map((u) => [u.user, u.line, new Date(u.time_ms).toISOString().slice(0, 16).replace("T", " "), u.host])).toEqual(who);
    expect(users.map((u) => u.address)).toEqual(["192.0.2.7", "2001:db8::5"]);
    expect(records.map((r) => r.type)).toEqual(["boot_time", "user_process", "user_process", "dead_process"]);
  });

  it("reads a logind session file as sd-login does", () => {
    const s = parseLogindSession("3", "# written by logind\nUID=1000\nUSER=alice\nACTIVE=1\nSTATE=active\nREMOTE=1\nTTY=pts/0\nREMOTE_HOST=192.0.2.7\nLEADER=4242\nREALTIME=1764583200000000\n");
    expect(s).toEqual({ user: "alice", tty: "pts/0", remote_host: "192.0.2.7", since: "2025-12-01T10:00:00.000Z", leader_pid: 4242, session_id: "3", state: "active" });
    expect(parseLogindSession("4", "STATE=closing\n")).toBeNull();
  });
});

describe("ListSudoRules", () => {
  type Spec = { User_List: Record<string, string>[]; Host_List: Record<string, string>[]; Cmnd_Specs: { Commands: Record<string, string>[] }[] };
  const names = (list: Record<string, string>[]): string[] => list.map((e) => (e.usergroup !== undefined ? `%${e.usergroup}` : Object.values(e)[0]!));

  function plant(): string {
    const root = join(dir, "sudo");
    mkdirSync(join(root, "d"), { recursive: true });
    writeFileSync(join(root, "sudoers"), [
      "# comment", "Defaults env_reset", "Defaults:alice !requiretty",
      "User_Alias ADMINS = alice, bob", "Cmnd_Alias SVC = /usr/bin/systemctl restart nginx, /usr/bin/systemctl status *",
      "root ALL=(ALL:ALL) ALL", "%sudo ALL=(ALL:ALL) ALL", "ADMINS ALL = (root) NOPASSWD: SVC",
      "@include extra", `@includedir ${root}/d`, "",
    ].join("\n"));
    writeFileSync(join(root, "extra"), "carol ALL = /usr/bin/journalctl\n");
    writeFileSync(join(root, "d", "deploy"), "deploy web1, web2 = (www-data) NOPASSWD: SETENV: /usr/bin/rsync, \\\n   /usr/bin/git pull\n");
    writeFileSync(join(root, "d", "skip.me"), "ignored ALL=ALL\n");
    writeFileSync(join(root, "d", "old~"), "ignored ALL=ALL\n");
    return root;
  }

  it("parses a planted tree with @include and @includedir as cvtsudoers -f json does", async () => {
    const root = plant();
    const parsed = await readSudoers(join(root, "sudoers"), { read: (p) => ctx.host.readText(p), list: (d) => ctx.host.readDir(d) });
    const json = JSON.parse(sh("cvtsudoers", ["-f", "json", join(root, "sudoers")])) as { User_Specs: Spec[]; User_Aliases: Record<string, unknown>; Command_Aliases: Record<string, unknown> };
    expect(parsed.rules.map((r) => ({ users: r.users, hosts: r.hosts, commands: r.commands }))).toEqual(json.User_Specs.map((s) => ({
      users: names(s.User_List), hosts: names(s.Host_List), commands: s.Cmnd_Specs.flatMap((c) => names(c.Commands)),
    })));
    expect(parsed.aliases.map((a) => a.name).sort()).toEqual([...Object.keys(json.User_Aliases), ...Object.keys(json.Command_Aliases)].sort());
    expect(parsed.rules.find((r) => r.users[0] === "deploy")).toMatchObject({ runas: "(www-data)", tags: ["NOPASSWD", "SETENV"], file: join(root, "d", "deploy"), line: 1 });
    expect(parsed.files).toEqual([join(root, "sudoers"), join(root, "extra"), join(root, "d", "deploy")]);
    expect(parsed.defaults.map((d) => d.text)).toEqual(["Defaults env_reset", "Defaults:alice !requiretty"]);
    expect(parsed.errors).toEqual([]);
  });

  it.skipIf(!hasVisudo)("a sudoers.d file visudo -c rejects is an error entry naming file and line, and its line is not reported as a rule (trial f24b)", async () => {
    const root = join(dir, "sudo-visudo");
    mkdirSync(join(root, "d"), { recursive: true });
    writeFileSync(join(root, "sudoers"), `root ALL=(ALL:ALL) ALL\n@includedir ${root}/d\n`);
    writeFileSync(join(root, "d", "bad"), "deploy ALL=(ALL) NOPASSWD /usr/bin/true\nops ALL=(ALL) ALL\n"); // NOPASSWD without its colon
    writeFileSync(join(root, "d", "good"), "web ALL=(ALL) NOPASSWD: /usr/bin/systemctl\n");
    for (const f of ["sudoers", "d/bad", "d/good"]) chmodSync(join(root, f), 0o440);
    const main = join(root, "sudoers");
    const checked = execFileSync("sh", ["-c", `visudo -c -f ${main} 2>&1; echo "exit $?"`], { encoding: "utf8" });
    expect(checked).toMatch(new RegExp(`${join(root, "d", "bad")}:1:\\d+: syntax error[\\s\\S]*exit 1`)); // visudo's own verdict
    const rejected = await visudoRejects(ctx, main);
    expect(rejected).toEqual([{ file: join(root, "d", "bad"), line: 1, message: "syntax error" }]);
    const parsed = withRejections(await readSudoers(main, { read: (p) => ctx.host.readText(p), list: (d) => ctx.host.readDir(d) }), rejected!);
    expect(parsed.errors).toEqual([{ file: join(root, "d", "bad"), error: "line 1: syntax error (visudo -c rejects it; sudo skips it, or refuses to run without error recovery)" }]);
    expect(parsed.rules.map((r) => r.users[0])).toEqual(["root", "ops", "web"]);
    writeFileSync(join(root, "d", "bad"), "ops ALL=(ALL) ALL\n");
    expect(await visudoRejects(ctx, main)).toEqual([]);
    expect(await visudoRejects({ ...ctx, host: { ...ctx.host, which: () => Promise.resolve(null) } }, main)).toBeNull();
  });

  it("a loop of includes and a missing include are reported, not thrown", async () => {
    const root = join(dir, "sudo-loop");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "a"), "#include b\n#include missing\n");
    writeFileSync(join(root, "b"), "#include a\nroot ALL=(ALL) ALL\n");
    const parsed = await readSudoers(join(root, "a"), { read: (p) => ctx.host.readText(p), list: (d) => ctx.host.readDir(d) });
    expect(parsed.rules).toHaveLength(1);
    expect(parsed.errors.map((e) => e.file)).toEqual([join(root, "a"), join(root, "missing")]);
  });

  it("on this machine agrees with cvtsudoers on /etc/sudoers; user filters by name, ALL and %group", async () => {
    const r = await listSudoRules.run({}, ctx);
    const json = JSON.parse(sh("cvtsudoers", ["-f", "json", "/etc/sudoers"])) as { User_Specs?: Spec[] };
    expect(r.rules.map((x) => x.users)).toEqual((json.User_Specs ?? []).map((s) => names(s.User_List)));
    const forRoot = await listSudoRules.run({ user: "root" }, ctx);
    expect(forRoot.rules.every((x) => x.users.some((u) => u === "root" || u === "ALL" || u.startsWith("%")))).toBe(true);
  });
});

describe("ListAuthorizedKeys", () => {
  let home: string;
  beforeAll(() => {
    home = join(dir, "home-alice");
    mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
    const lines: string[] = ["# keys of alice", ""];
    for (const [type, bits, opts] of [["ed25519", "", ""], ["rsa", "3072", 'from="192.0.2.0/24",command="/usr/bin/backup --fast",no-pty '], ["ecdsa", "384", "restrict "]] as const) {
      const f = join(dir, `k-${type}`);
      execFileSync("ssh-keygen", ["-q", "-t", type, ...(bits ? ["-b", bits] : []), "-N", "", "-C", `alice ${type} key`, "-f", f]);
      lines.push(opts + readFileSync(`${f}.pub`, "utf8").trim());
    }
    lines.push("not a key line at all");
    writeFileSync(join(home, ".ssh", "authorized_keys"), lines.join("\n") + "\n");
    chmodSync(join(home, ".ssh", "authorized_keys"), 0o600);
  });

  it("gives type, bits, fingerprint and comment as ssh-keygen -l does, with options, and never the key body", async () => {
    const a = await readAccountKeys(ctx, "alice", home);
    const file = join(home, ".ssh", "authorized_keys");
    const expected = sh("ssh-keygen", ["-l", "-f", file]).trim().split("\n").map((l) => /^(\d+) (\S+) (.*) \((\S+)\)$/.exec(l)!.slice(1));
    expect(a.keys.map((k) => [String(k.bits), k.fingerprint, k.comment])).toEqual(expected.map((e) => [e[0], e[1], e[2]]));
    expect(a.keys.map((k) => k.type)).toEqual(["ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp384"]);
    expect(a.keys[1]!.options).toEqual(['from="192.0.2.0/24"', 'command="/usr/bin/backup --fast"', "no-pty"]);
    const bodies = readFileSync(file, "utf8").match(/AAAA[A-Za-z0-9+/=]{20,}/g)!;
    for (const b of bodies) expect(JSON.stringify(a)).not.toContain(b.slice(0, 40));
    expect(a.skipped).toEqual([]);
  });

  it("does not follow a symlinked authorized_keys or ~/.ssh", async () => {
    const h2 = join(dir, "home-mallory");
    mkdirSync(join(h2, ".ssh"), { recursive: true });
    symlinkSync(join(home, ".ssh", "authorized_keys"), join(h2, ".ssh", "authorized_keys"));
    const a = await readAccountKeys(ctx, "mallory", h2);
    expect(a.keys).toEqual([]);
    expect(a.skipped).toEqual([{ file: join(h2, ".ssh", "authorized_keys"), reason: "a symlink or hard link: not followed" }]);
    const h3 = join(dir, "home-eve");
    mkdirSync(h3);
    symlinkSync(join(home, ".ssh"), join(h3, ".ssh"));
    expect((await readAccountKeys(ctx, "eve", h3)).skipped).toEqual([{ file: join(h3, ".ssh"), reason: "a symlink: not followed" }]);
  });

  it("on this machine: root's keys match ssh-keygen -l (none when root has no authorized_keys); an unknown user is not_found", async () => {
    const r = await listAuthorizedKeys.run({ user: "root" }, ctx);
    const rootHome = sh("getent", ["passwd", "root"]).split(":")[5]!;
    let expected: string[] = [];
    try { expected = sh("ssh-keygen", ["-l", "-f", `${rootHome}/.ssh/authorized_keys`]).trim().split("\n").map((l) => l.split(" ")[1]!); } catch { /* no file */ }
    expect(r.accounts[0]!.keys.filter((k) => k.file.endsWith("/authorized_keys")).map((k) => k.fingerprint)).toEqual(expected);
    expect(await errorCode(() => listAuthorizedKeys.run({ user: "no-such-user-x" }, ctx))).toBe("not_found");
  });
});

describe("ListRecentLogins", () => {
  it("reads a wtmp written by utmpdump -r as last(1) does, newest first", async () => {
    const file = join(dir, "wtmp");
    const dump = [
      "[7] [12345] [ts/0] [alice   ] [pts/0       ] [192.0.2.7           ] [192.0.2.7      ] [2026-12-01T10:00:00,000000+00:00]",
      "[8] [12345] [ts/0] [        ] [pts/0       ] [                    ] [0.0.0.0        ] [2026-12-01T10:30:00,000000+00:00]",
      "[6] [00000] [    ] [mallory ] [ssh:notty   ] [198.51.100.9        ] [198.51.100.9   ] [2026-12-01T11:00:00,000000+00:00]",
    ].join("\n") + "\n";
    writeFileSync(file, execFileSync("utmpdump", ["-r"], { input: dump, stdio: ["pipe", "pipe", "ignore"] }));
    const ours = await readLogins(ctx, file, 50);
    const last = sh("last", ["-f", file, "-w", "--time-format", "iso"]).trim().split("\n").filter((l) => /^\S/.test(l) && !l.includes(" begins ")).map((l) => {
      const f = l.split(/\s+/);
      return [f[0], f[1], f[2], new Date(f[3]!).toISOString()];
    });
    expect(ours!.map((x) => [x.user, x.tty, x.remote_host, x.at])).toEqual(last);
    expect((await readLogins(ctx, file, 1))!.map((x) => x.user)).toEqual(["mallory"]);
    expect(await readLogins(ctx, join(dir, "no-such-btmp"), 5)).toBeNull();
  });

  it("on this machine agrees with last(1) on /var/log/wtmp", async () => {
    const r = await listRecentLogins.run(listRecentLogins.params.parse({ limit: 500 }), ctx);
    let users: string[] = [];
    try { users = sh("last", ["-w", "-n", "500"]).trim().split("\n").filter((l) => /^\S/.test(l) && !l.includes(" begins ") && !l.startsWith("reboot ")).map((l) => l.split(/\s+/)[0]!); } catch { /* no wtmp */ }
    expect(r.logins.map((l) => l.user)).toEqual(users);
  });
});
