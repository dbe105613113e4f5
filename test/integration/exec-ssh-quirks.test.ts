/**
 * Server behaviour OpenSSH never shows, against ssh2's own SSH server (a real protocol implementation on a real
 * TCP socket; OpenSSH always sends exit-status, so it cannot play these parts): S015, a channel closed without
 * exit-status or exit-signal. Also S017: there is no way to hand hostgate a sudo password.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ssh2 from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshExecutor } from "../../src/adapters/exec-ssh/ssh-executor.ts";
import { ExecConfigSchema } from "../../src/config/hosts.ts";

describe("S015: a server that closes the channel without an exit status", () => {
  const dir = mkdtempSync(join(tmpdir(), "hg-ssh2srv-"));
  let server: ssh2.Server;
  let port = 0;
  let executor: SshExecutor;

  beforeAll(async () => {
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host")]);
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client")]);
    server = new ssh2.Server({ hostKeys: [readFileSync(join(dir, "host"))] }, (client) => {
      client.on("authentication", (ctx) => { if (ctx.method === "publickey") ctx.accept(); else ctx.reject(["publickey"]); });
      client.on("ready", () => {
        client.on("session", (accept) => {
          const session = accept();
          session.on("exec", (acceptExec) => {
            const stream = acceptExec();
            stream.write("partial\n");
            stream.close();
          });
        });
      });
      client.on("error", () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
    const pub = readFileSync(join(dir, "host.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${pub}\n`);
    executor = new SshExecutor({ known_hosts: [join(dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [join(dir, "client")], connect_timeout_ms: 3000 });
  });
  afterAll(() => {
    executor?.close();
    server?.close();
  });

  it("reports exit status unknown: exit_code null, no signal, never success", async () => {
    const r = await executor.exec({ target: { host: "127.0.0.1", port }, command: "true", timeout_ms: 5000, max_output_bytes: 1000 });
    expect(r.exit_code).toBeNull();
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe("partial\n");
    expect(r.error).toMatch(/exit status unknown/);
  });
});

describe("S017: no sudo password can be configured (nothing to leak into a remote command line)", () => {
  it("exec config refuses sudo_password / password keys", () => {
    expect(ExecConfigSchema.safeParse({ sudo_password: "hunter2" }).success).toBe(false);
    expect(ExecConfigSchema.safeParse({ password: "hunter2" }).success).toBe(false);
  });
});
