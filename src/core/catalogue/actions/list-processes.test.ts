import { describe, expect, it } from "vitest";
import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import ListProcesses from "./list-processes.ts";
import GetProcess from "./get-process.ts";
import { readUsers } from "./process-table.ts";

/**
 * ListProcesses over an in-memory /proc (a fake: a process that exits between two of its reads cannot be made
 * to on demand with real processes). Each process can vanish after a given number of reads of its files, as the
 * kernel removes /proc/[pid] when the process is reaped. The real /proc is covered by test/e2e/read-only-tools
 * and test/security/process-filter.
 */
interface FakeProcess {
  pid: number;
  name: string;
  uid: number;
  argv: string[];
  /** utime + stime, in clock ticks. */
  ticks: number;
  rss_kb: number;
  /** Exits (its /proc directory goes away) after this many reads of its files. */
  vanishAfter?: number;
}

const UPTIME = 1000; // seconds; every process started at boot + 10 s

function fakeProc(procs: FakeProcess[]): { ctx: ActionContext; reads: string[] } {
  const reads: string[] = [];
  const count = new Map<number, number>();
  const file = (pid: number, kind: string): string => {
    const p = procs.find((x) => x.pid === pid);
    const n = count.get(pid) ?? 0;
    if (!p || (p.vanishAfter !== undefined && n >= p.vanishAfter)) throw new HostgateError("not_found", `/proc/${pid}/${kind} does not exist.`);
    count.set(pid, n + 1);
    reads.push(`${pid}/${kind}`);
    if (kind === "stat") {
      const f: (string | number)[] = [];
      for (let i = 3; i <= 52; i++) f.push({ 3: "S", 4: 1, 14: p.ticks, 15: 0, 20: 1, 22: 1000 }[i] ?? 0);
      return `${pid} (${p.name}) ${f.join(" ")}\n`;
    }
    // status escapes `\` and newline in the name, stat does not (the kernel's proc_task_name)
    if (kind === "status") return `Name:\t${p.name.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\nUid:\t${p.uid}\t${p.uid}\t${p.uid}\t${p.uid}\nVmSize:\t${p.rss_kb * 2} kB\nVmRSS:\t${p.rss_kb} kB\n`;
    if (kind === "cmdline") return p.argv.map((a) => `${a}\0`).join("");
    throw new HostgateError("not_found", `/proc/${pid}/${kind} does not exist.`);
  };
  const host = {
    readText: (path: string) => {
      if (path === "/proc/stat") return Promise.resolve("cpu 1 2 3\nbtime 1764547200\n");
      if (path === "/proc/uptime") return Promise.resolve(`${UPTIME}.00 1.00\n`);
      if (path === "/etc/passwd") return Promise.resolve("root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n");
      const m = /^\/proc\/(\d+)\/(\w+)$/.exec(path);
      return new Promise<string>((resolve) => { resolve(file(Number(m![1]), m![2]!)); });
    },
    stat: () => Promise.resolve({ size: 64, mtime_ms: 1, is_file: true, is_directory: false, is_symlink: false }),
    readDir: () => Promise.resolve([...procs.map((p) => String(p.pid)), "self", "stat", "uptime"]),
  };
  return { ctx: { host } as unknown as ActionContext, reads };
}

const P = (pid: number, over: Partial<FakeProcess> = {}): FakeProcess => ({ pid, name: `proc${pid}`, uid: 0, argv: [`/usr/bin/proc${pid}`, "--flag"], ticks: 10_000 * pid, rss_kb: 100 * pid, ...over });
const params = (p: Record<string, unknown>) => ListProcesses.params.parse(p);

describe("ListProcesses", () => {
  it("answers every field as before: name, user, memory from status; cpu and start from stat; argv from cmdline", async () => {
    const { ctx } = fakeProc([P(1), P(2, { uid: 1000, name: "my proc" })]);
    const r = await ListProcesses.run(params({ sort: "pid" }), ctx);
    expect(r.total).toBe(2);
    expect(r.processes[1]).toEqual({
      pid: 2, ppid: 1, name: "my proc", state: "S", user: "alice", uid: 1000, threads: 1, rss_bytes: 200 * 1024, vms_bytes: 400 * 1024,
      cpu_seconds: 200, cpu_percent: Math.round((200 / (UPTIME - 10)) * 1000) / 10, started_at: new Date((1764547200 + 10) * 1000).toISOString(),
      argv: ["/usr/bin/proc2", "--flag"],
    });
    expect(Object.keys(r.processes[0]!)).toEqual(Object.keys(ListProcesses.output.shape.processes.element.shape));
  });

  it("sorts by cpu (default), memory or pid, ties by pid, and pages with a cursor", async () => {
    const procs = [P(5, { ticks: 10_000 }), P(3, { ticks: 90_000, rss_kb: 1 }), P(4, { ticks: 90_000, rss_kb: 50 }), P(7, { ticks: 40_000, rss_kb: 900 })];
    const pids = async (p: Record<string, unknown>) => (await ListProcesses.run(params(p), fakeProc(procs).ctx)).processes.map((x) => x.pid);
    expect(await pids({})).toEqual([3, 4, 7, 5]);
    expect(await pids({ sort: "memory" })).toEqual([7, 5, 4, 3]);
    expect(await pids({ sort: "pid" })).toEqual([3, 4, 5, 7]);
    const first = await ListProcesses.run(params({ sort: "pid", limit: 3 }), fakeProc(procs).ctx);
    expect(first.processes.map((x) => x.pid)).toEqual([3, 4, 5]);
    const second = await ListProcesses.run(params({ sort: "pid", limit: 3, cursor: first.next_cursor }), fakeProc(procs).ctx);
    expect(second).toMatchObject({ processes: [{ pid: 7 }], total: 4, next_cursor: null });
  });

  it("reads status and cmdline only for the rows of the page when no filter or sort needs them", async () => {
    const { ctx, reads } = fakeProc([P(1), P(2), P(3), P(4)]);
    const r = await ListProcesses.run(params({ sort: "pid", limit: 2 }), ctx);
    expect(r.processes.map((x) => x.pid)).toEqual([1, 2]);
    expect(reads.filter((x) => x.endsWith("/stat")).length).toBe(4);
    expect(reads.filter((x) => !x.endsWith("/stat")).sort()).toEqual(["1/cmdline", "1/status", "2/cmdline", "2/status"]);
  });

  it.each([
    ["during its stat", 0],
    ["between stat and status", 1],
    ["between status and cmdline", 2],
  ])("leaves out a process that exits %s, and counts it out of the total", async (_when, after) => {
    for (const p of [{}, { sort: "memory" }, { user: "root" }, { name: "proc" }]) {
      const { ctx } = fakeProc([P(1), P(2, { vanishAfter: after }), P(3)]);
      const r = await ListProcesses.run(params({ sort: "pid", ...p }), ctx);
      expect(r.processes.map((x) => x.pid).sort(), JSON.stringify(p)).toEqual([1, 3]);
      expect(r.total, JSON.stringify(p)).toBe(2);
    }
  });

  it("filters by user and by name (status name or argv[0])", async () => {
    const procs = [P(1, { uid: 1000 }), P(2, { name: "sshd" }), P(3, { argv: ["/opt/sshd-helper"] })];
    expect((await ListProcesses.run(params({ user: "alice" }), fakeProc(procs).ctx)).processes.map((x) => x.pid)).toEqual([1]);
    expect((await ListProcesses.run(params({ name: "sshd", sort: "pid" }), fakeProc(procs).ctx)).processes.map((x) => x.pid)).toEqual([2, 3]);
    expect((await ListProcesses.run(params({ name: "sshd", user: "alice" }), fakeProc(procs).ctx)).total).toBe(0);
  });

  it("the name filter reads status only for a name that stat shows differently (a `\\` or newline in it)", async () => {
    const procs = [P(1, { name: "plain", argv: ["x"] }), P(2, { name: "a\\b", argv: ["y"] }), P(3, { name: "c\nd", argv: ["z"] })];
    const { ctx, reads } = fakeProc(procs);
    const r = await ListProcesses.run(params({ name: "\\", sort: "pid" }), ctx);
    expect(r.processes.map((x) => [x.pid, x.name])).toEqual([[2, "a\\\\b"], [3, "c\\nd"]]);
    expect(reads.filter((x) => x.endsWith("/status")).sort()).toEqual(["2/status", "3/status"]);
    expect((await ListProcesses.run(params({ name: "a\\b" }), fakeProc(procs).ctx)).total).toBe(0); // status shows a\\b
  });

  it("the name filter matches the redacted argv[0], so it cannot probe a secret in a process title", async () => {
    const title = "worker --password=Lq7vX2pK9sW4zT1 queue";
    const procs = [P(1), P(2, { name: "worker", argv: [title] }), P(3, { name: "x", argv: [title] })];
    for (const guess of ["Lq7", "password=L", "=Lq7vX2pK9sW4zT1", "X2pK9"]) {
      expect((await ListProcesses.run(params({ name: guess }), fakeProc(procs).ctx)).total, guess).toBe(0);
    }
    expect((await ListProcesses.run(params({ name: "worker --password=", sort: "pid" }), fakeProc(procs).ctx)).processes.map((x) => x.pid)).toEqual([2, 3]);
    // A key split over argv elements: argv[0] is a body line, redacted as part of the key (redactLines' rule).
    const body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
    const keyed = [P(4, { name: "k", argv: [body, "-----END PRIVATE KEY-----"] })];
    expect((await ListProcesses.run(params({ name: body.slice(0, 12) }), fakeProc(keyed).ctx)).total).toBe(0);
  });
});

describe("GetProcess", () => {
  it("reads one process whole, and says not_found for one that exits mid-read", async () => {
    const ok = await GetProcess.run({ pid: 2 }, { ...fakeProc([P(2)]).ctx }).catch((e: unknown) => e);
    expect(ok).toMatchObject({ pid: 2, name: "proc2", argv: ["/usr/bin/proc2", "--flag"] });
    await expect(GetProcess.run({ pid: 2 }, fakeProc([P(2, { vanishAfter: 2 })]).ctx)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("readUsers", () => {
  it("parses /etc/passwd again only when its mtime or size changed, and never caches a symlinked one", async () => {
    let text = "root:x:0:0::/root:/bin/sh\n";
    let st = { size: 1, mtime_ms: 1, is_file: true, is_directory: false, is_symlink: false };
    let reads = 0;
    const host = {
      stat: () => Promise.resolve(st),
      readText: () => { reads++; return Promise.resolve(text); },
    };
    const ctx = { host } as unknown as ActionContext;
    expect((await readUsers(ctx)).get(0)).toBe("root");
    text = "admin:x:0:0::/root:/bin/sh\n";
    expect((await readUsers(ctx)).get(0)).toBe("root"); // same mtime and size: not read again
    expect(reads).toBe(1);
    st = { ...st, mtime_ms: 2 };
    expect((await readUsers(ctx)).get(0)).toBe("admin");
    st = { ...st, size: 2 };
    text = "toor:x:0:0::/root:/bin/sh\n";
    expect((await readUsers(ctx)).get(0)).toBe("toor");
    st = { ...st, is_file: false, is_symlink: true };
    await readUsers(ctx);
    await readUsers(ctx);
    expect(reads).toBe(5);
  });

  it("an unreadable /etc/passwd leaves names out", async () => {
    const host = { stat: () => Promise.reject(new HostgateError("permission_denied", "no")), readText: () => Promise.resolve("") };
    expect((await readUsers({ host } as unknown as ActionContext)).size).toBe(0);
  });
});
