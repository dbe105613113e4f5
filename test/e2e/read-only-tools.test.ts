import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { cpus, hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connectHttp, connectStdio, startServe, type Era, type ServeProcess } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

type Structured = Record<string, unknown>;

/** Calls a tool and returns its structuredContent, failing the test on an error result. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Structured> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual(r.structuredContent);
  return r.structuredContent as Structured;
}

const logDir = `/var/log/hostgate-e2e-${process.pid}`;
let listener: Server;
let listenPort = 0;
let serve: ServeProcess;
/** One daemon of this file's own (serve runs it, the stdio fronts join it): never this user's shared default one. */
const env = isolatedEnv("read-only-tools");

beforeAll(async () => {
  mkdirSync(logDir, { recursive: true });
  writeFileSync(`${logDir}/app.log`, Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
  listener = createServer();
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  listenPort = (listener.address() as { port: number }).port;
  serve = await startServe([], env);
});

afterAll(async () => {
  rmSync(logDir, { recursive: true, force: true });
  listener.close();
  await serve.stop();
});

const transports: { name: string; era: Era; connect: () => Promise<Client> }[] = [
  { name: "stdio, 2025-era client", era: "legacy", connect: () => connectStdio("legacy", [], env) },
  { name: "stdio, 2026-07-28 client", era: "modern", connect: () => connectStdio("modern", [], env) },
  { name: "HTTP, 2025-era client", era: "legacy", connect: () => connectHttp(serve.url, "legacy") },
  { name: "HTTP, 2026-07-28 client", era: "modern", connect: () => connectHttp(serve.url, "modern") },
];

describe.each(transports)("read-only tools over $name", ({ era, connect }) => {
  let client: Client;
  beforeAll(async () => { client = await connect(); });
  afterAll(async () => { await client.close(); });

  it("negotiates the expected protocol era", () => {
    const version = client.getNegotiatedProtocolVersion();
    if (era === "modern") expect(version).toBe("2026-07-28");
    else expect(version).not.toBe("2026-07-28");
  });

  it("lists every tool, with package tools for this Debian host and no mutating action as a direct tool", async () => {
    const tools = (await client.listTools()).tools;
    // Default toolsets: the host's read-only tools, the fixed tools, hosts' read-only tools (exec_on_host is opt-in)
    // and skills' read-only tools (install/exec need --allow-install/--allow-exec); the catalogue's other reads are
    // reached through find_actions + read_action (issue 24, docs/tool-surface.md).
    expect(tools.map((t) => t.name).sort()).toEqual(["audit_verify", "doctor", "execute", "find_actions",
      "get_disk_usage", "get_host_details", "get_largest_directories", "get_load", "get_memory_usage",
      "get_network_interfaces", "get_package_info", "get_process", "get_service_status", "get_system_info", "history",
      "list_backends", "list_failed_units", "list_listening_ports", "list_processes", "list_unit_types", "list_units",
      "plan", "plan_command", "read_action", "read_journal", "read_log_file", "read_on_hosts", "read_unit",
      "read_unit_definition", "search_hosts", "search_packages", "skills_diagnose", "skills_inspect",
      "skills_install_plan", "skills_read", "skills_resolve", "skills_route", "skills_search", "skills_sync_plan"]);
    expect(tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name).sort()).toEqual(["execute", "plan"]);
  });

  it("get_system_info matches os-release, uname and the hostname", async () => {
    const info = await call(client, "get_system_info");
    const osRelease = readFileSync("/etc/os-release", "utf8");
    expect((info.os as Structured).id).toBe(/^ID=(.*)$/m.exec(osRelease)![1]!.replace(/"/g, ""));
    expect(info.family).toBe("debian");
    expect((info.kernel as Structured).release).toBe(execFileSync("uname", ["-r"]).toString().trim());
    expect(info.hostname).toBe(hostname());
    expect(info.boot_id).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  });

  it("get_disk_usage matches df -B1 for the root file system", async () => {
    const { filesystems } = await call(client, "get_disk_usage") as { filesystems: Structured[] };
    const root = filesystems.find((f) => f.mount_point === "/")!;
    const [, size, used, avail] = execFileSync("df", ["-B1", "--output=target,size,used,avail", "/"]).toString().trim().split("\n")[1]!.trim().split(/\s+/).map((v, i) => (i === 0 ? 0 : Number(v)));
    expect(root.size_bytes).toBe(size);
    expect(Math.abs((root.used_bytes as number) - used!)).toBeLessThan(64 * 1024 * 1024);
    expect(Math.abs((root.avail_bytes as number) - avail!)).toBeLessThan(64 * 1024 * 1024);
    expect(filesystems.some((f) => f.fs_type === "proc")).toBe(false);
  });

  it("get_memory_usage matches /proc/meminfo", async () => {
    const mem = await call(client, "get_memory_usage");
    const total = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))![1]) * 1024;
    expect(mem.total_bytes).toBe(total);
    expect(mem.used_bytes).toBe((mem.total_bytes as number) - (mem.available_bytes as number));
  });

  it("get_load reports the online CPUs", async () => {
    const load = await call(client, "get_load");
    expect(load.cpu_count).toBe(cpus().length);
    expect(load.load1).toBeGreaterThanOrEqual(0);
  });

  it("list_listening_ports finds this test's own listener with its pid, as ss does", async () => {
    const { ports } = await call(client, "list_listening_ports", { protocol: "tcp" }) as { ports: Structured[] };
    const mine = ports.find((p) => p.port === listenPort && p.address === "127.0.0.1");
    expect(mine).toMatchObject({ protocol: "tcp", family: "ipv4", pid: process.pid });
    const ss = execFileSync("ss", ["-ltnH"]).toString();
    for (const p of ports) expect(ss).toContain(`:${p.port as number} `);
  });

  it("list_processes and get_process see this test process", async () => {
    const page = await call(client, "list_processes", { sort: "pid", limit: 500 }) as { processes: Structured[]; total: number };
    expect(page.processes.some((p) => p.pid === process.pid)).toBe(true);
    const me = await call(client, "get_process", { pid: process.pid });
    expect(me.ppid).toBe(process.ppid);
    expect(me.argv).toEqual(readFileSync(`/proc/${process.pid}/cmdline`, "utf8").split("\0").filter((_, i, a) => i < a.length - 1));
    const first = await call(client, "list_processes", { sort: "pid", limit: 2 }) as { processes: Structured[]; next_cursor: string };
    const second = await call(client, "list_processes", { sort: "pid", limit: 2, cursor: first.next_cursor }) as { processes: Structured[] };
    expect((second.processes[0]!.pid as number)).toBeGreaterThan(first.processes[1]!.pid as number);
  });

  it("get_network_interfaces lists loopback with 127.0.0.1", async () => {
    const { interfaces } = await call(client, "get_network_interfaces") as { interfaces: Structured[] };
    const lo = interfaces.find((i) => i.name === "lo")!;
    expect((lo.addresses as Structured[]).some((a) => a.address === "127.0.0.1")).toBe(true);
  });

  it("read_log_file returns the tail of a file under /var/log", async () => {
    const r = await call(client, "read_log_file", { path: `${logDir}/app.log`, lines: 3 });
    expect(r.lines).toEqual(["line 18", "line 19", "line 20"]);
  });

  it("get_package_info and search_packages agree with dpkg-query", async () => {
    const version = execFileSync("dpkg-query", ["-W", "-f=${Version}", "bash"]).toString();
    expect((await call(client, "get_package_info", { name: "bash" })).installed_version).toBe(version);
    const { packages } = await call(client, "search_packages", { query: "bash", names_only: true, limit: 500 }) as { packages: Structured[] };
    expect(packages.find((p) => p.name === "bash")?.installed_version).toBe(version);
  });

  it("read_journal answers with entries or a clean unavailable error", async () => {
    const r = await client.callTool({ name: "read_journal", arguments: { limit: 5 } });
    const text = (r.content as { text: string }[])[0]!.text;
    if (r.isError) expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe("unavailable");
    else expect(Array.isArray((r.structuredContent as Structured).entries)).toBe(true);
  });
});
