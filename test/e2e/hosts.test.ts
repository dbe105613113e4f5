/**
 * The hosts toolset end to end with real processes: SDK client ↔ `hostgate mcp` ↔ `hostgate daemon` ↔ real
 * sshd hosts in network namespaces, Cedar policies from a directory, a human approval at a pseudo-terminal.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { approveViaPty, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { netnsPrereqs, startNetnsLab, type NetnsLab } from "../peers/netns-sshd.ts";

const missing = netnsPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`netns sshd peers required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING hosts e2e: ${missing}\n`);

type Json = Record<string, unknown>;
let lab: NetnsLab;
let daemon: DaemonProcess;
let client: Client;
const work = mkdtempSync(join(tmpdir(), "hg-hosts-e2e-"));
const policies = join(work, "policies");

async function tool(name: string, args: Json): Promise<{ isError: boolean; value: Json; code: unknown }> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { text: string }[])[0]!.text;
  return { isError: r.isError === true, value: (r.structuredContent as Json | undefined) ?? (JSON.parse(text) as Json), code: r._meta?.["dev.hostgate/error_code"] };
}

describe.skipIf(missing !== null)("hosts toolset through MCP and the daemon", () => {
  beforeAll(async () => {
    lab = await startNetnsLab(3);
    cpSync("examples/policies", policies, { recursive: true });
    // Typed reads of lab hosts (issue 20: action `read`, deny by default); prod hosts stay unreadable.
    writeFileSync(join(policies, "05-read-lab.cedar"), '@id("read-lab")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n');
    const yaml = [
      "backend:", "  type: mock",
      // planner and approver are both root in this test: allow same-user approval (approval.same_user)
      "approval:", "  same_user: allow",
      "tools:", "  enable: [exec_on_host]",
      "inventory:", "  providers:", "    - kind: static", "      name: lab", "      hosts:",
      ...lab.hosts.map((h, i) => `        - { name: ${h.name}, address: ${h.ip}, user: root, tags: [${i === 2 ? "prod" : "lab"}] }`),
      "exec:", `  known_hosts: [${lab.knownHosts}]`, `  identity_files: [${lab.clientKey}]`,
      "policy:", `  dir: ${policies}`, "",
    ].join("\n");
    daemon = await startDaemon(yaml);
    client = await connectStdio("legacy", ["--config", daemon.configPath], { HOSTGATE_SOCKET: daemon.agentSocket });
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
    await lab?.stop();
  });

  it("lists the hosts tools with their annotations (exec_on_host destructive, shown because tools.enable names it)", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const n of ["search_hosts", "list_backends", "get_host_details"]) expect(byName.get(n)?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("exec_on_host")?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  it("search_hosts, list_backends and get_host_details answer from the daemon", async () => {
    const s = await tool("search_hosts", { name: "lab" });
    expect(s.value).toMatchObject({ count: 3, errors: [] });
    const b = await tool("list_backends", {});
    expect(b.value).toEqual({ backends: [{ kind: "static", name: "lab", hint: "3 hosts in the config file", notes: [] }], defaulted: false });
    const d = await tool("get_host_details", { name: "lab2" });
    expect(d.value).toMatchObject({ capabilities: ["ssh"], ssh: { host: lab.hosts[0]!.ip, user: "root" } });
  });

  it("a direct read tool takes host: passed to the daemon's query (these hosts' sshd has no SFTP subsystem: a clear error naming it, exec still offered); a host without a read permit is refused, a hostile name invalid; local by default", async () => {
    const listed = (await client.listTools()).tools.find((t) => t.name === "get_memory_usage");
    expect((listed?.inputSchema.properties as Json | undefined)?.host).toEqual({ type: "string" });
    const lab2 = await tool("get_memory_usage", { host: "lab2" });
    expect(lab2.isError).toBe(true);
    expect(lab2.code).toBe("unavailable");
    expect(JSON.stringify(lab2.value)).toContain("SFTP");
    expect(JSON.stringify(lab2.value)).toContain("it offers exec");
    const prod = await tool("get_memory_usage", { host: "lab4" });
    expect(prod.isError).toBe(true);
    expect(prod.code).toBe("refused");
    // A name no backend lists is a literal host (no tags): the read policy does not grant it.
    const literal = await tool("get_memory_usage", { host: "no-such-host" });
    expect(literal.isError).toBe(true);
    expect(literal.code).toBe("refused");
    const hostile = await tool("get_memory_usage", { host: "a;id" });
    expect(hostile.isError).toBe(true);
    expect(hostile.code).toBe("invalid_params");
    const local = await client.callTool({ name: "get_memory_usage", arguments: {} });
    expect(local._meta?.["dev.hostgate/provenance"]).toMatchObject({ host: "local" });
    const explicit = await client.callTool({ name: "get_memory_usage", arguments: { host: "local" } });
    expect(explicit._meta?.["dev.hostgate/provenance"]).toMatchObject({ host: "local" });
  });

  it("plan_command with target reports the policy decision for that host, without connecting", async () => {
    const lab2 = await tool("plan_command", { command: "touch /tmp/x", target: "lab2" });
    expect(lab2.value).toMatchObject({ decision: "allow", target: "lab2", interpreter: "sh", policy: { source: "cedar" } });
    const prod = await tool("plan_command", { command: "touch /tmp/x", target: "lab4" });
    expect(prod.value).toMatchObject({ decision: "require_approval", policy: { source: "cedar" } });
    expect((prod.value.policy as Json).note).toContain("changes on prod hosts need a human approval");
  });

  it("exec_on_host runs an allowed command and reports the exec result; a denied one is refused", async () => {
    const r = await tool("exec_on_host", { host: "lab2", command: "hostname" });
    expect(r.isError).toBe(false);
    expect((r.value.results as Json[])[0]).toMatchObject({ host: "lab2", stdout: "lab2\n", exit_code: 0 });
    const denied = await tool("exec_on_host", { host: "lab2", command: "apt-get remove -y nginx" });
    expect(denied.isError).toBe(true);
    expect(denied.code).toBe("refused");
    // The decision reaches the model as structured content in the tool's own output shape (reviewer report).
    expect(denied.value).toMatchObject({ results: [], groups: [], plan: null, decision: { decision: "deny", reasons: expect.arrayContaining([expect.any(String)]) as string[] } });
  });

  it("require_approval → plan (RunCommand on that host) → hostgate approve → execute runs it exactly once", async () => {
    // Unique per run (a pid is reused across runs, and a stale marker would read as "ran before approval").
    const marker = `/tmp/hg-hosts-e2e-${process.pid}-${Date.now()}`;
    onTestFinished(() => { rmSync(marker, { force: true }); });
    const r = await tool("exec_on_host", { host: "lab4", command: `echo once >> ${marker}` });
    expect(r.isError).toBe(false);
    expect(r.value.results).toEqual([]);
    const step = ((r.value.plan as Json).steps as Json[])[0]!;
    expect(step).toMatchObject({ action_name: "RunCommand", host: "lab4", params: { command: `echo once >> ${marker}`, shell: "sh" } });
    expect(existsSync(marker)).toBe(false);
    const approval = await approveViaPty(daemon.adminSocket, step.transaction_id as string);
    expect(approval.output).toContain("lab4");
    // the approver sees who logs in where (issue 21)
    expect(approval.output).toContain(`login:    root@${lab.hosts[2]!.ip} port 22`);
    expect(approval.output).toContain(`echo once >> ${marker}`);
    expect(approval.output).toContain("changes on prod hosts need a human approval");
    expect(approval.receipt, approval.output).not.toBeNull();
    const receipt = approval.receipt!;
    const exec = () => tool("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "RunCommand", host: "lab4", params: step.params, approval_receipt: receipt }] });
    const first = await exec();
    expect(first.isError, JSON.stringify(first.value)).toBe(false);
    expect(readFileSync(marker, "utf8")).toBe("once\n");
    const second = await exec();
    expect(second.isError).toBe(true);
    expect(readFileSync(marker, "utf8")).toBe("once\n");
  });

  it("T22-exec-fanout-plan: require_approval on two hosts → one plan, one hostgate approve, one receipt runs each host's step once, in order", async () => {
    const marker = `/tmp/hg-hosts-fanout-${process.pid}-${Date.now()}`;
    onTestFinished(() => { rmSync(marker, { force: true }); });
    const r = await tool("exec_on_host", { hosts: ["lab2", "lab4"], command: `echo $(hostname) >> ${marker}` });
    expect(r.isError).toBe(false);
    const plan = r.value.plan as Json;
    const steps = plan.steps as Json[];
    expect(steps.map((s) => s.host)).toEqual(["lab2", "lab4"]);
    expect(plan.next).toContain(`hostgate approve ${plan.plan_id as string}`);
    const approval = await approveViaPty(daemon.adminSocket, plan.plan_id as string);
    expect(approval.output).toContain("── Step 1 of 2 ──");
    expect(approval.output).toContain("── Step 2 of 2 ──");
    expect(approval.receipt, approval.output).not.toBeNull();
    const exec = () => tool("execute", { approval_receipt: approval.receipt, steps: steps.map((s) => ({ transaction_id: s.transaction_id, action_name: "RunCommand", host: s.host, params: s.params })) });
    const first = await exec();
    expect(first.isError, JSON.stringify(first.value)).toBe(false);
    expect(readFileSync(marker, "utf8")).toBe("lab2\nlab4\n");
    const second = await exec();
    expect(second.isError).toBe(true);
    expect(readFileSync(marker, "utf8")).toBe("lab2\nlab4\n");
  });

  it("cancel: a client that cancels exec_on_host gets the remote command killed (MCP → socket → daemon → SSH)", async () => {
    // The command runs in the host's sandbox (private /tmp, own PID namespace): it is found by its unique argv.
    const nap = `sleep 31.${process.pid}`;
    const running = (): boolean => spawnSync("pgrep", ["-f", nap.replace(/\./, "[.]")]).status === 0;
    const ac = new AbortController();
    const call = client.callTool({ name: "exec_on_host", arguments: { host: "lab3", command: `exec ${nap}`, timeout_sec: 0 } }, { signal: ac.signal });
    await expect.poll(running, { timeout: 10_000 }).toBe(true);
    ac.abort();
    await expect(call).rejects.toThrow();
    // namespaces share our pid namespace: the sandboxed sleep must be gone
    await expect.poll(running, { timeout: 5000 }).toBe(false);
  });

  it("SIGHUP reloads policies; a broken file keeps the old set (doctor says so)", async () => {
    writeFileSync(join(policies, "30-broken.cedar"), "permit (principal, action, resource");
    daemon.child.kill("SIGHUP");
    await expect.poll(async () => JSON.stringify((await tool("doctor", {})).value), { timeout: 5000 }).toContain("last reload failed");
    expect((await tool("exec_on_host", { host: "lab2", command: "hostname" })).isError).toBe(false);
  });
});
