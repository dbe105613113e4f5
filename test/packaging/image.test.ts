// The container image (issue 25; Containerfile, scripts/build-image.ts, docs/install.md "Container image"): the
// Containerfile users build is built here with rootful podman (test/peers/podman-session.ts), from a base made
// locally because no registry can be reached: a Debian bookworm minbase root filesystem plus this machine's
// Node.js 20 at /usr/local/bin/node (scripts/build-image-base.sh, cached outside git), imported with
// `podman import` and named through --build-arg BASE. The build context is this checkout's build as
// scripts/build-image.ts stages it. Then the image is driven as a client would: the SDK client spawns
// `podman run -i … hostgate:VERSION` (stdio) against a scratch `hostgate daemon` on this machine whose agent socket
// is mounted in, and through tcp:// + token; and the HTTP form (`serve`) is published with -p and reached with
// the SDK's Streamable HTTP client. Timings and the image's size go to stderr as JSON (no timed assertion).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectHttp } from "../helpers/hostgate.ts";
import { peerMissing } from "../helpers/peers.ts";
import { podmanSessionPrereqs, startPodmanSession, type PodmanSession } from "../peers/podman-session.ts";
import { waitFor, whichSync } from "../peers/proc.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; license: string; repository: { url: string } };
const built = existsSync(join(ROOT, "dist", "hostgate.js")) ? null : "no build in dist/ (npm run build)";
const missing = peerMissing("the container image test", built ?? podmanSessionPrereqs() ?? (whichSync("debootstrap") ? null : "no debootstrap (apt-get install debootstrap)"));

const scratch = mkdtempSync(join(tmpdir(), "hg-image-"));
const TAG = `localhost/hostgate-test:${PKG.version}-${process.pid}`;
const names = { stdio: `hg-img-${process.pid}-stdio`, tcp: `hg-img-${process.pid}-tcp`, http: `hg-img-${process.pid}-http`, none: `hg-img-${process.pid}-none` };
const TOKEN = "image-test-tcp-token-0123456789abcdef"; // ≥ 32 characters, this test's own
const HTTP_TOKEN = "image-test-http-token-0123";
const measured: Record<string, number> = {};
let session: PodmanSession | undefined;
let daemon: DaemonProcess | undefined;
let tcpPort = 0;
let groupId = "";

/** Runs scripts/build-image.ts with `args`; exit status, stdout, stderr. */
function buildImageScript(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/build-image.ts"), ...args], { cwd: ROOT, encoding: "utf8", timeout: 600_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Milliseconds `fn` took, recorded under `name` (printed, never asserted). */
function timed<T>(name: string, fn: () => T): T {
  const t0 = performance.now();
  const r = fn();
  measured[name] = Math.round(performance.now() - t0);
  return r;
}

/** A TCP port free on loopback right now. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address() as { port: number }; s.close(() => { done(port); }); });
  });
}

/** `podman ARGS` in the session; throws with its stderr when it fails. */
function podman(args: string[], timeoutMs = 120_000): string {
  const r = session!.run(args, { timeoutMs });
  if (r.status !== 0) throw new Error(`podman ${args.join(" ")} exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** The SDK client connected to `podman run -i --rm RUN_ARGS TAG` over stdio; the container's stderr is kept. */
async function connectContainer(runArgs: string[], env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const [command, ...args] = session!.argv(["run", "-i", "--rm", ...runArgs, TAG]);
  const transport = new StdioClientTransport({ command: command!, args, env: { ...process.env, ...session!.env, ...env } as Record<string, string>, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => { err += c.toString(); });
  const client = new Client({ name: "hostgate-image-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** The tool names `hostgate mcp` on this machine lists from the same daemon (what the image must list too). */
async function hostToolNames(): Promise<string[]> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, "bin/hostgate.js"), "mcp"], env: { ...process.env, HOSTGATE_SOCKET: daemon!.agentSocket }, stderr: "ignore" });
  const client = new Client({ name: "hostgate-image-test-host", version: "1.0.0" });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  if (missing) return;
  session = await startPodmanSession();
  // The base: Debian minbase + Node.js 20, imported once into the cached storage.
  const base = timed("base_tarball_ms", () => spawnSync("sh", [join(ROOT, "scripts/build-image-base.sh")], { encoding: "utf8", timeout: 1_200_000 }));
  if (base.status !== 0) throw new Error(`scripts/build-image-base.sh failed:\n${base.stderr}`);
  const tarball = base.stdout.trim().split("\n").pop()!;
  const baseTag = `localhost/hostgate-test-base:${basename(dirname(tarball))}`;
  if (session.run(["image", "exists", baseTag]).status !== 0) timed("base_import_ms", () => podman(["import", "--change", 'CMD ["/bin/bash"]', tarball, baseTag], 900_000));
  // The context: this checkout's build, staged as `npm run image` stages it; then the users' Containerfile.
  const staged = timed("stage_ms", () => buildImageScript(["--no-build", "--context", join(scratch, "context")]));
  if (staged.status !== 0) throw new Error(`build-image.ts --no-build failed:\n${staged.stderr}`);
  timed("build_ms", () => podman(["build", "--pull=never", "--network", "none", "-f", join(ROOT, "Containerfile"),
    "--build-arg", `BASE=${baseTag}`, "--build-arg", `VERSION=${PKG.version}`, "-t", TAG, join(scratch, "context")], 900_000));
  // The daemon on this machine: agent socket 0660 group nogroup (a group no test user is in), plus tcp:// + token.
  groupId = spawnSync("getent", ["group", "nogroup"], { encoding: "utf8" }).stdout.split(":")[2] ?? "";
  tcpPort = await freePort();
  daemon = await startDaemon("daemon:\n  agent_group: nogroup\n", { args: ["--listen", `tcp://127.0.0.1:${tcpPort}`], env: { HOSTGATE_TOKEN: TOKEN } });
}, 2_400_000);

afterAll(async () => {
  await daemon?.stop();
  await session?.stop(Object.values(names), [TAG]);
  if (daemon) rmSync(daemon.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
  if (Object.keys(measured).length > 0) process.stderr.write(`image measured: ${JSON.stringify(measured)}\n`);
}, 120_000);

describe.skipIf(missing)("the container image (podman, local Debian base)", () => {
  it("carries OCI labels (source, version = package.json's, licenses), runs `hostgate mcp` as a non-root user, and no secret or healthcheck", () => {
    const [image] = JSON.parse(podman(["image", "inspect", TAG])) as { Config: { Labels: Record<string, string>; User: string; Env: string[]; Entrypoint: string[]; Cmd: string[]; Healthcheck?: unknown } }[];
    const c = image!.Config;
    measured.image_mb = Math.round(Number(podman(["image", "inspect", "--format", "{{.Size}}", TAG]).trim()) / 1e6);
    expect(c.Labels["org.opencontainers.image.version"]).toBe(PKG.version);
    expect(c.Labels["org.opencontainers.image.licenses"]).toBe(PKG.license);
    expect(c.Labels["org.opencontainers.image.source"]).toBe(PKG.repository.url.replace(/^git\+/, "").replace(/\.git$/, ""));
    expect(c.User).toBe("10001:10001");
    expect([...c.Entrypoint, ...c.Cmd]).toEqual(["hostgate", "mcp"]);
    expect(c.Env).toContain("HOSTGATE_SOCKET=/run/hostgate/agent.sock");
    expect(c.Env.filter((e) => /TOKEN|SECRET|PASSWORD|KEY/i.test(e.split("=")[0]!))).toEqual([]);
    expect(c.Healthcheck).toBeUndefined();
  });

  it("`hostgate --version` prints package.json's version; the user is uid 10001 and cannot change the program", () => {
    expect(podman(["run", "--rm", TAG, "--version"]).trim()).toBe(PKG.version);
    const who = podman(["run", "--rm", "--entrypoint", "sh", TAG, "-c", "id -u; id -g; id -gn; test -w /usr/lib/hostgate/dist/hostgate.js && echo writable || echo read-only; stat -c %U /usr/lib/hostgate/dist/hostgate.js"]);
    // Issue 25: the group is hostgate with gid 10001 (useradd --user-group had made it 999, leaving 10001 nameless).
    expect(who.split("\n").filter(Boolean)).toEqual(["10001", "10001", "hostgate", "read-only", "root"]);
  });

  it("stdio through the mounted agent socket: the SDK client lists the tools the host's own front lists and a call is answered by the host's daemon", async () => {
    const t0 = performance.now();
    const { client, stderr } = await connectContainer(["--name", names.stdio, "-v", `${dirname(daemon!.agentSocket)}:/run/hostgate`, "--group-add", groupId]);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      measured.stdio_tools_list_ms = Math.round(performance.now() - t0);
      expect(tools).toEqual(await hostToolNames());
      expect(tools).toContain("plan");
      const r = await client.callTool({ name: "get_memory_usage", arguments: {} });
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      // The container has a hostname of its own: this one is the daemon's, on this machine.
      expect((r._meta?.["dev.hostgate/provenance"] as { hostname?: string } | undefined)?.hostname).toBe(hostname());
      expect(stderr()).toMatch(/serving \d+ tools over stdio from the configured daemon at \/run\/hostgate\/agent\.sock/);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("without the socket's group the non-root front is refused (EACCES) and says to add --group-add; with no socket it starts no daemon of its own, answers initialize, and each call says where it looked", async () => {
    const refused = session!.run(["run", "-i", "--rm", "-v", `${dirname(daemon!.agentSocket)}:/run/hostgate`, TAG], { input: "" });
    expect(refused.stderr).toMatch(/Cannot reach the hostgate daemon at \/run\/hostgate\/agent\.sock: connect EACCES/);
    expect(refused.stderr).toMatch(/--group-add/);
    // Issue 25: the front used to exit before initialize (the client saw "Connection closed"); the Containerfile says calls answer unavailable.
    const { client, stderr } = await connectContainer(["--name", names.none]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("plan");
      const r = await client.callTool({ name: "get_memory_usage", arguments: {} });
      expect(r.isError).toBe(true);
      const text = JSON.stringify(r.content);
      expect(text).toMatch(/unavailable/);
      expect(text).toMatch(/Cannot reach the hostgate daemon at \/run\/hostgate\/agent\.sock: connect ENOENT/);
      expect(text).toMatch(/Start the daemon on the host/);
      expect(text).not.toMatch(/Zero-setup|hostgate serve/);
      expect(stderr()).not.toMatch(/embedded daemon/);
      expect(stderr()).toMatch(/approve on the daemon's host, not in this container: sudo hostgate approve <plan_id>/);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("stdio through tcp:// + token (slirp4netns reaches this machine's loopback as 10.0.2.2; the token comes from the environment)", async () => {
    const { client } = await connectContainer(["--name", names.tcp, "--network", "slirp4netns:allow_host_loopback=true",
      "-e", `HOSTGATE_SOCKET=tcp://10.0.2.2:${tcpPort}`, "-e", "HOSTGATE_TOKEN"], { HOSTGATE_TOKEN: TOKEN });
    try {
      const r = await client.callTool({ name: "get_memory_usage", arguments: {} });
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect((r._meta?.["dev.hostgate/provenance"] as { hostname?: string } | undefined)?.hostname).toBe(hostname());
    } finally {
      await client.close();
    }
    // A wrong token: the daemon refuses it; the front says so at start (and each call answers it: test/e2e/front-advice.test.ts).
    const wrong = session!.run(["run", "-i", "--rm", "--network", "slirp4netns:allow_host_loopback=true", "-e", `HOSTGATE_SOCKET=tcp://10.0.2.2:${tcpPort}`, "-e", "HOSTGATE_TOKEN", TAG],
      { input: "", env: { HOSTGATE_TOKEN: "x".repeat(40) } });
    expect(wrong.stderr).toMatch(/Wrong token/);
  }, 120_000);

  it("HTTP: `serve --host 0.0.0.0` published with -p 127.0.0.1:PORT:48000 and a bearer token; the SDK client lists tools, no token gets 401", async () => {
    const port = await freePort();
    podman(["run", "-d", "--name", names.http, "--network", "slirp4netns", "-p", `127.0.0.1:${port}:48000`,
      "-v", `${dirname(daemon!.agentSocket)}:/run/hostgate`, "--group-add", groupId, "-e", `HOSTGATE_HTTP_TOKEN=${HTTP_TOKEN}`, TAG, "serve", "--host", "0.0.0.0"]);
    await waitFor("serve to listen", () => /listening on http:\/\/0\.0\.0\.0:48000\/mcp/.test(session!.run(["logs", names.http]).stderr), 60_000);
    const url = `http://127.0.0.1:${port}/mcp`;
    const client = await connectHttp(url, "legacy", { Authorization: `Bearer ${HTTP_TOKEN}` });
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(await hostToolNames());
    } finally {
      await client.close();
    }
    const anon = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(anon.status).toBe(401);
    podman(["rm", "-f", "-t", "5", names.http]);
  }, 180_000);
});

describe.skipIf(built !== null)("scripts/build-image.ts: bad input says what to do", () => {
  it("an unknown option, or a build option before --", () => {
    const r = buildImageScript(["--frmo", "/usr/lib/hostgate"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/unknown option --frmo: use --from DIR, --context DIR, --tag NAME, --no-build, and put podman build options after --/);
  });

  it("--from a directory that holds no hostgate, or a hostgate without a build", () => {
    const empty = mkdtempSync(join(tmpdir(), "hg-image-from-"));
    try {
      const r = buildImageScript(["--from", empty, "--no-build", "--context", join(empty, "ctx")]);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/holds no hostgate package .*\/usr\/lib\/hostgate \(the \.deb\)/);
      writeFileSync(join(empty, "package.json"), JSON.stringify({ name: "hostgate", version: "0.0.1" }));
      const unbuilt = buildImageScript(["--from", empty, "--no-build", "--context", join(empty, "ctx")]);
      expect(unbuilt.status).toBe(1);
      expect(unbuilt.stderr).toMatch(/has no built dist\/ .*run `npm run build` there or give the installed tree/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("a CONTAINER_ENGINE that does not run", () => {
    const r = buildImageScript(["--context", join(scratch, "unused")], { CONTAINER_ENGINE: "no-such-engine-here" });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/CONTAINER_ENGINE=no-such-engine-here does not run: install it or unset CONTAINER_ENGINE/);
  });

  it("--from an installed hostgate copies it as it is: the same build id", () => {
    const installed = join(scratch, "installed");
    mkdirSync(join(installed, "dist"), { recursive: true });
    mkdirSync(join(installed, "node_modules", "zod"), { recursive: true });
    writeFileSync(join(installed, "package.json"), JSON.stringify({ name: "hostgate", version: "9.8.7" }));
    writeFileSync(join(installed, "dist", "hostgate.js"), "// a build\n");
    writeFileSync(join(installed, "dist", "prebuilt.json"), JSON.stringify({ build_id: "from-an-installed-tree" }));
    const r = buildImageScript(["--from", installed, "--no-build", "--context", join(scratch, "ctx-from")]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ version: "9.8.7", build_id: "from-an-installed-tree", tag: "hostgate:9.8.7", built: false });
    expect(readFileSync(join(scratch, "ctx-from", "dist", "hostgate.js"), "utf8")).toBe("// a build\n");
    expect(existsSync(join(scratch, "ctx-from", "node_modules", "zod"))).toBe(true);
  });
});
