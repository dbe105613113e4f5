import { spawn, type ChildProcess } from "node:child_process";
import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connectStdio } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

// A syntactically real (throwaway) PEM body; the test fails if any of its lines comes back from any tool.
const KEY_LINES = ["MC4CAQAwBQYDK2VwBCIEIGhvc3RnYXRlLXBsYW50ZWQta2V5LWZvci10ZXN0cw==", "aG9zdGdhdGUtc2Vjb25kLWxpbmUtb2YtdGhlLXBsYW50ZWQta2V5LWJvZHk="];
const PEM = ["-----BEGIN PRIVATE KEY-----", ...KEY_LINES, "-----END PRIVATE KEY-----"].join("\n");
const logDir = `/var/log/hostgate-secrets-${process.pid}`;
const outside = join(tmpdir(), `hostgate-secret-${process.pid}`);
let holder: ChildProcess;
let client: Client;

beforeAll(async () => {
  mkdirSync(logDir, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(`${logDir}/app.log`, `starting\n${PEM}\nready\n`);
  writeFileSync(join(outside, "id_ed25519"), `${PEM}\n`);
  symlinkSync(join(outside, "id_ed25519"), `${logDir}/key.log`);
  // A process whose argv and environment carry the key, as a careless deploy script would.
  holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", "--", PEM], { env: { ...process.env, DEPLOY_KEY: PEM }, stdio: "ignore" });
  client = await connectStdio("legacy", [], isolatedEnv("secrets")); // its own daemon, never this user's shared one
});

afterAll(async () => {
  holder.kill("SIGKILL");
  await client.close();
  rmSync(logDir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

it("read_log_file refuses a hard link to a file outside /var/log", async () => {
  const secret = `/var/cache/hostgate-secret-${process.pid}`;
  writeFileSync(secret, `${PEM}\n`);
  try {
    linkSync(secret, `${logDir}/hard.log`);
    const r = await client.callTool({ name: "read_log_file", arguments: { path: `${logDir}/hard.log` } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).toContain("hard link");
  } finally {
    rmSync(secret, { force: true });
  }
});

it("no read-only tool returns a planted private key", async () => {
  const calls: [string, Record<string, unknown>][] = [
    ["read_log_file", { path: `${logDir}/app.log` }],
    ["read_log_file", { path: `${logDir}/key.log` }],
    ["read_log_file", { path: "/var/log/../../etc/shadow" }],
    ["list_processes", { name: "node", limit: 500 }],
    ["get_process", { pid: holder.pid }],
    ["get_system_info", {}],
    ["list_listening_ports", {}],
    ["get_network_interfaces", {}],
    ["read_journal", { limit: 50 }],
  ];
  let sawHolder = false;
  for (const [name, args] of calls) {
    const text = JSON.stringify(await client.callTool({ name, arguments: args }));
    for (const line of KEY_LINES) expect(text, `${name} ${JSON.stringify(args)}`).not.toContain(line);
    expect(text).not.toMatch(/root:\$[0-9a-z]+\$/);
    if (name === "get_process") sawHolder = text.includes("setTimeout");
  }
  expect(sawHolder).toBe(true); // the process was seen, with its argv redacted rather than hidden
});
