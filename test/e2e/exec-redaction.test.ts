/**
 * Corpus T3-13 (area redact): exec_on_host output is redacted by the daemon exactly as read_log_file redacts the
 * same bytes. A file holding an AWS secret key line, a ghp_ token, a `password=` line and a real OpenSSH private
 * key is read on real sshd hosts (network namespaces) with `cat`, through SDK client ↔ `hostgate mcp` ↔ `hostgate
 * daemon`, alone and as a two-host fan-out; the same file is read with read_log_file on the daemon's host.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { netnsPrereqs, startNetnsLab, type NetnsLab } from "../peers/netns-sshd.ts";

const missing = netnsPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`netns sshd peers required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING exec redaction e2e: ${missing}\n`);

type Json = Record<string, unknown>;
const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const GH_TOKEN = `ghp_${"Zy9Xw8Vu7T".repeat(3)}abcdef`;
const PASSWORD = "Hunter2Secret";
const logDir = `/var/log/hostgate-t3-13-${process.pid}`;
const file = `${logDir}/secrets.log`;
const work = mkdtempSync(join(tmpdir(), "hg-t3-13-"));
let keyBody: string[] = [];
let lab: NetnsLab;
let daemon: DaemonProcess;
let client: Client;

async function call(name: string, args: Json): Promise<{ isError: boolean; value: Json; meta: Json }> {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, value: r.structuredContent as Json, meta: r._meta ?? {} };
}
const provenance = (m: Json): Json => m["dev.hostgate/provenance"] as Json;

describe.skipIf(missing !== null)("T3-13: exec_on_host output is redacted as read_log_file redacts the same bytes", () => {
  beforeAll(async () => {
    // A real OpenSSH private key (throwaway), as an operator's leftover copy would hold it.
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "t3-13", "-f", join(work, "id_ed25519")]);
    const key = readFileSync(join(work, "id_ed25519"), "utf8").trimEnd();
    keyBody = key.split("\n").slice(1, -1);
    mkdirSync(logDir, { recursive: true });
    chmodSync(logDir, 0o755);
    writeFileSync(file, [
      "[default]", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", `aws_secret_access_key = ${AWS_SECRET}`,
      `export GITHUB_TOKEN=${GH_TOKEN}`, `password=${PASSWORD}`, key, "end of file", "",
    ].join("\n"), { mode: 0o644 });
    lab = await startNetnsLab(2);
    cpSync("examples/policies", join(work, "policies"), { recursive: true });
    daemon = await startDaemon([
      "backend:", "  type: mock",
      "logs:", "  readable: all",
      "inventory:", "  providers:", "    - kind: static", "      name: lab", "      hosts:",
      ...lab.hosts.map((h) => `        - { name: ${h.name}, address: ${h.ip}, user: root, tags: [lab] }`),
      "exec:", "  enabled: true", `  known_hosts: [${lab.knownHosts}]`, `  identity_files: [${lab.clientKey}]`,
      "policy:", `  dir: ${join(work, "policies")}`, "",
    ].join("\n"));
    client = await connectStdio("legacy", ["--config", daemon.configPath], { HOSTGATE_SOCKET: daemon.agentSocket });
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
    await lab?.stop();
    rmSync(logDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it("one host: stdout equals read_log_file's lines, 4 of 4 secrets gone, and _meta counts the same redactions", async () => {
    const log = await call("read_log_file", { path: file, lines: 100 });
    expect(log.isError).toBe(false);
    const lines = log.value.lines as string[];
    const r = await call("exec_on_host", { host: lab.hosts[0]!.name, command: `cat ${file}` });
    expect(r.isError, JSON.stringify(r.value)).toBe(false);
    const result = (r.value.results as Json[])[0]!;
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toBe(`${lines.join("\n")}\n`);
    // Issue 22: the output is carried once, as stdout (+ stderr); no `output` copy beside it.
    expect(result).not.toHaveProperty("output");
    const text = JSON.stringify(r.value);
    for (const secret of [AWS_SECRET, GH_TOKEN, PASSWORD, ...keyBody]) expect(text).not.toContain(secret);
    for (const kind of ["credential_assignment", "github_token", "private_key"]) expect(result.stdout).toContain(`[redacted:${kind}]`);
    expect(result.stdout).toContain("aws_secret_access_key = [redacted:");
    expect(result.stdout).toContain("password=[redacted:");
    // Provenance: the same count as read_log_file's for the same bytes (a key block counts one per line), in the same _meta field.
    expect(provenance(r.meta)).toMatchObject({ host: lab.hosts[0]!.name, action: "exec_on_host", untrusted: true, redactions: provenance(log.meta).redactions });
    expect(provenance(r.meta).redactions).toBeGreaterThanOrEqual(4);
    expect(r.meta["dev.hostgate/untrusted"]).toBe(true);
    expect(r.value).not.toHaveProperty("meta");
  });

  it("stderr is redacted too; output with no secret says redactions 0", async () => {
    const r = await call("exec_on_host", { host: lab.hosts[0]!.name, command: `echo ok; cat ${file} >&2` });
    const result = (r.value.results as Json[])[0]!;
    expect(result.stdout).toBe("ok\n");
    expect(result.stderr).toContain("[redacted:github_token]");
    expect(JSON.stringify(r.value)).not.toContain(GH_TOKEN);
    const clean = await call("exec_on_host", { host: lab.hosts[0]!.name, command: "echo nothing secret" });
    expect(provenance(clean.meta)).toMatchObject({ redactions: 0, untrusted: true });
  });

  it("two-host fan-out: redacted before grouping, so the identical outputs are one group; _meta counts both hosts", async () => {
    const log = await call("read_log_file", { path: file, lines: 100 });
    const hosts = lab.hosts.map((h) => h.name);
    const r = await call("exec_on_host", { hosts, command: `cat ${file}` });
    expect(r.isError, JSON.stringify(r.value)).toBe(false);
    const groups = r.value.groups as Json[];
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ hosts, exit_code: 0, stdout: `${(log.value.lines as string[]).join("\n")}\n` });
    expect((r.value.results as Json[]).every((x) => x.group === 0 && x.stdout === "")).toBe(true);
    for (const secret of [AWS_SECRET, GH_TOKEN, PASSWORD, ...keyBody]) expect(JSON.stringify(r.value)).not.toContain(secret);
    expect(provenance(r.meta)).toMatchObject({ host: hosts[0], hosts, redactions: 2 * (provenance(log.meta).redactions as number) });
  });

  it("outputs that differ only in a secret group as one after redaction", async () => {
    const hosts = lab.hosts.map((h) => h.name);
    const r = await call("exec_on_host", { hosts, command: "echo \"password=$(hostname)-$(hostname)-secret\"" });
    expect(r.value.groups).toEqual([expect.objectContaining({ hosts, stdout: "password=[redacted:credential_assignment]\n" })]);
  });
});
