import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DbusUnitManager } from "./systemd-dbus.ts";

const dir = mkdtempSync(join(tmpdir(), "hg-dbus-unit-"));
const servers: Server[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

describe("DbusUnitManager without a manager", () => {
  it("does no I/O until the first operation and closes cleanly", async () => {
    const m = new DbusUnitManager({ busAddress: `unix:path=${join(dir, "absent")}` });
    expect(m.busAddress).toContain("absent");
    await expect(m.close()).resolves.toBeUndefined();
  });

  it("fails the operation with backend_error naming the address; no fallback, retried next time", async () => {
    const address = `unix:path=${join(dir, "absent")}`;
    const m = new DbusUnitManager({ busAddress: address });
    for (let i = 0; i < 2; i++) {
      const err = await m.listUnits().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "backend_error" });
      expect((err as Error).message).toContain(address);
      expect((err as { hint?: string }).hint).toMatch(/bus socket/);
    }
  });

  it("times out on a socket that never answers", async () => {
    const path = join(dir, "silent.sock");
    const server = createServer((sock) => sockets.push(sock));
    servers.push(server);
    await new Promise<void>((r) => server.listen(path, r));
    const m = new DbusUnitManager({ busAddress: `unix:path=${path}`, connectTimeoutMs: 300 });
    await expect(m.getUnit("nginx.service")).rejects.toThrow(/no answer within 300 ms/);
    await m.close();
  });

  it("validates unit names before connecting", async () => {
    const m = new DbusUnitManager({ busAddress: `unix:path=${join(dir, "absent")}` });
    await expect(m.getUnit("nginx.servie")).rejects.toMatchObject({ code: "invalid_unit_name" });
    await expect(m.startUnit("a b.service")).rejects.toMatchObject({ code: "invalid_unit_name" });
  });
});
