import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../src/ipc/protocol.ts";
import { groupsOfStatus } from "../../src/core/approval.ts";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";

/**
 * Red team, route "a supplementary group opens the admin socket" (issue 12, second pass). `hostgate daemon` as
 * root with `daemon.admin_group: adm` (admin socket 0660, group adm); the model runs as nobody whose primary
 * group is nogroup but who is also in adm. doctor must not call that separated, and the daemon still refuses
 * the model's approval (no terminal, and the same uid planned it).
 */
const NOBODY = 65534;
const ADM = 4;
let daemon: DaemonProcess;
let dir: string;

type Reply = { ok: boolean; value?: Record<string, unknown>; error?: { code: string; message: string } } | { connect_error: string };

/** One request as nobody with primary group nogroup and the supplementary `groups` (setpriv), without a terminal. */
function ipcAsNobody(socket: string, method: string, params: unknown, groups: number[]): Promise<Reply> {
  const script = `
    const net = require("net");
    const [sock, line] = process.argv.slice(1);
    const s = net.createConnection(sock);
    let buf = "";
    s.on("data", (c) => { buf += c; const nl = buf.indexOf("\\n"); if (nl >= 0) { process.stdout.write(buf.slice(0, nl)); s.destroy(); } });
    s.on("error", (e) => { process.stdout.write(JSON.stringify({ connect_error: e.code })); });
    s.write(line + "\\n");`;
  const line = JSON.stringify({ v: PROTOCOL_VERSION, id: 1, method, params });
  const groupArgs = groups.length === 0 ? ["--clear-groups"] : [`--groups=${groups.join(",")}`];
  const child = spawn("setsid", ["-w", "setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, ...groupArgs, process.execPath, "-e", script, socket, line], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
  return new Promise((resolve) => child.on("exit", () => {
    const wire = JSON.parse(out || '{"connect_error":"no answer"}') as Reply & { result?: Reply };
    resolve((wire as { result?: Reply }).result ?? wire);
  }));
}

const separation = (r: Reply): { status: string; detail: string } =>
  ((r as unknown as { value: { checks: { name: string; status: string; detail: string }[] } }).value.checks).find((c) => c.name === "approval separation")!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hg-rtrust-groups-"));
  chmodSync(dir, 0o755);
  daemon = await startDaemon("backend:\n  type: mock\ndaemon:\n  agent_group: nogroup\n  admin_group: adm\n", { dir });
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("route: the front's supplementary group may open the admin socket", () => {
  it("doctor says none for nobody+adm (and separated for nobody without adm)", async () => {
    const inAdm = separation(await ipcAsNobody(daemon.agentSocket, "doctor", {}, [ADM]));
    expect(inAdm.status).toBe("warn");
    expect(inAdm.detail).toContain(`the front is in group ${ADM} (a supplementary group)`);
    const plain = separation(await ipcAsNobody(daemon.agentSocket, "doctor", {}, []));
    expect(plain.status, plain.detail).toBe("ok");
  });

  it("what doctor warns about is real: nobody+adm reaches admin.sock; its approval is still refused by the daemon", async () => {
    const planned = await ipcAsNobody(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: join(daemon.dir, "never"), content: "x" } }] }, [ADM]);
    const step = ((planned as unknown as { value: { steps: { transaction_id: string }[] } }).value.steps)[0]!;
    const r = await ipcAsNobody(daemon.adminSocket, "approve", { transaction_id: step.transaction_id }, [ADM]);
    expect(r).toMatchObject({ ok: false, error: { code: "approval_refused" } });
  });
});

describe("groupsOfStatus", () => {
  it("reads the Groups: line, empty or not; null without one", () => {
    expect(groupsOfStatus("Name:\tx\nGroups:\t4 24 27 \nNSpid:\t1\n")).toEqual([4, 24, 27]);
    expect(groupsOfStatus("Name:\tx\nGroups:\t\nNSpid:\t1\n")).toEqual([]);
    expect(groupsOfStatus("Name:\tx\n")).toBeNull();
  });
});
