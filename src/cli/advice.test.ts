import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandLine } from "./common.ts";
import { approveCommand } from "./front-client.ts";
import { clientUrlOf } from "./serve.ts";

// Issue 25 re-trial, finding 3: advice names what the user ran and where they stand.

describe("commandLine: the command as the user would retype it", () => {
  it("is hostgate and the arguments after the launcher, quoted only where the shell needs it", () => {
    expect(commandLine(["/usr/bin/node", "/usr/bin/hostgate", "approve", "3f2a9c"])).toBe("hostgate approve 3f2a9c");
    expect(commandLine(["node", "hostgate.js", "pending", "--socket", "/run/host gate/admin.sock"])).toBe("hostgate pending --socket '/run/host gate/admin.sock'");
    expect(commandLine(["node", "hostgate.js", "reject", "x", "--reason", "it's wrong"])).toBe("hostgate reject x --reason 'it'\\''s wrong'");
  });
});

describe("clientUrlOf: the URL serve's start notice gives a client", () => {
  it("a wildcard listener on the host: this host's address", () => {
    expect(clientUrlOf("http://0.0.0.0:48000/mcp", {})).toBe("http://<this host's address>:48000/mcp");
    expect(clientUrlOf("http://127.0.0.1:48123/mcp", {})).toBe("http://127.0.0.1:48123/mcp");
  });
  it("in the image (HOSTGATE_IN_IMAGE): the address and port published with -p, not the container's port", () => {
    const url = clientUrlOf("http://0.0.0.0:48000/mcp", { HOSTGATE_IN_IMAGE: "1" });
    expect(url).toBe("http://<the address and port you published with -p, e.g. 127.0.0.1:48000>/mcp");
    expect(url).not.toContain("this host's address");
  });
});

describe("approveCommand: sudo when the admin socket admits root alone and the caller is not root", () => {
  let dir: string;
  let server: Server;
  let sock: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "hg-approve-cmd-"));
    sock = join(dir, "admin.sock");
    server = createServer();
    await new Promise<void>((resolve) => { server.listen(sock, resolve); });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => { server.close(() => { resolve(); }); });
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(process.getuid?.() !== 0)("a root-owned 0600 socket: sudo for uid 65534, none for root; a 0660 socket: none", async () => {
    chmodSync(sock, 0o600);
    expect(await approveCommand(sock, 65534)).toBe("sudo hostgate approve");
    expect(await approveCommand(sock, 0)).toBe("hostgate approve");
    chmodSync(sock, 0o660);
    expect(await approveCommand(sock, 65534)).toBe("hostgate approve");
    expect(await approveCommand(undefined, 65534)).toBe("hostgate approve");
  });
});
