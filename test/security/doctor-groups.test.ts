import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupsOfStatus } from "../../src/core/approval.ts";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { ipcFromProcess, NOBODY, type Reply } from "../helpers/ipc-from-process.ts";

/**
 * Red team, route "a supplementary group opens the admin socket" (issue 12, second pass). `hostgate daemon` as
 * root with `daemon.admin_group: adm` (admin socket 0660, group adm); the model runs as nobody whose primary
 * group is nogroup but who is also in adm. doctor must not call that separated, and the daemon still refuses
 * the model's approval (no terminal, and the same uid planned it).
 */
const ADM = 4;
let daemon: DaemonProcess;
let dir: string;


/** One request as nobody with primary group nogroup and the supplementary `groups` (setpriv), without a terminal. */
function ipcAsNobody(socket: string, method: string, params: unknown, groups: number[]): Promise<Reply> {
  const groupArgs = groups.length === 0 ? ["--clear-groups"] : [`--groups=${groups.join(",")}`];
  return ipcFromProcess(socket, method, params, { prefix: ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, ...groupArgs] });
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
