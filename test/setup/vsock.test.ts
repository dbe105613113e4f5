// The client side of vsock:// : socat as a child process relays the connection over its stdio. What runs
// here: the URI parsing, socat's plumbing and error reporting against a real Unix socket, and a real
// AF_VSOCK connect attempt (which fails: this machine has no vsock loopback transport, so no vsock
// connection can succeed here — that one hop is NOT tested).
import { createServer, type Server } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectThroughSocat, parseVsockUri, vsockAddress } from "../../src/ipc/vsock.ts";
import { REQUIRE_PEERS, whichSync } from "../peers/proc.ts";

const missing = whichSync("socat") === null ? "socat is not installed (apt-get install socat)" : null;
if (missing && REQUIRE_PEERS) throw new Error(missing);
if (missing) console.warn(`SKIP vsock: ${missing}`);

describe("vsock URIs", () => {
  it("parses vsock://CID:PORT and refuses anything else", () => {
    expect(parseVsockUri("vsock://3:7420")).toEqual({ cid: 3, port: 7420 });
    for (const bad of ["vsock://3", "vsock://:7420", "vsock://x:1", "vsock://3:0", "vsock://3:4294967295", "vsock://99999999999:1", "tcp://3:7420"]) expect(parseVsockUri(bad), bad).toBeNull();
    expect(vsockAddress(3, 7420)).toBe("VSOCK-CONNECT:3:7420");
  });
});

describe.skipIf(missing !== null)("socat as the vsock client", () => {
  let server: Server;
  let path: string;
  beforeAll(async () => {
    path = join(mkdtempSync(join(tmpdir(), `hg-vsock-${process.pid}-`)), "echo.sock");
    server = createServer((s) => { s.on("data", (d) => s.write(`echo:${d.toString()}`)); });
    await new Promise<void>((r) => server.listen(path, r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => { rmSync(dirname(path), { recursive: true, force: true }); r(); })));

  it("relays a connection through the child's stdio, and stops socat when closed", async () => {
    const stream = await connectThroughSocat(`UNIX-CONNECT:${path}`);
    const answer = await new Promise<string>((resolve) => { stream.once("data", (d: Buffer) => { resolve(d.toString()); }); stream.write("ping\n"); });
    expect(answer).toBe("echo:ping\n");
    await new Promise<void>((resolve) => { stream.once("close", () => { resolve(); }); stream.destroy(); });
  });

  it("reports socat's own error when nothing listens", async () => {
    await expect(connectThroughSocat(`UNIX-CONNECT:${path}.absent`)).rejects.toThrow(/exited \(1\): connect\(.*No such file or directory/);
  });

  it("a real AF_VSOCK connect is attempted (and fails here: no vsock loopback on this machine)", async () => {
    await expect(connectThroughSocat(vsockAddress(1, 40000 + (process.pid % 20000)), "socat", 8000)).rejects.toThrow(/socat VSOCK-CONNECT:1:\d+ (exited|did not connect)/);
  });

  it("without socat: says to install it", async () => {
    await expect(connectThroughSocat(vsockAddress(3, 7420), "/nonexistent/socat")).rejects.toThrow(/vsock:\/\/ needs socat.*apt-get install socat/);
  });
});
