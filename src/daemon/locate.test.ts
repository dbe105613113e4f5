import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../config/schema.ts";
import { locateDaemon, otherDaemonHint } from "./locate.ts";

const config = ConfigSchema.parse({});
const env = { XDG_RUNTIME_DIR: "/run/user/1000", XDG_STATE_HOME: "/home/u/.local/state" };
const live = (...paths: string[]) => (p: string) => Promise.resolve(paths.includes(p));

describe("locateDaemon: one rule for the fronts and approve", () => {
  it("a named socket wins, with admin.sock beside it", async () => {
    const l = await locateDaemon(config, live(), { ...env, HOSTGATE_SOCKET: "/srv/hg/agent.sock" });
    expect(l).toMatchObject({ kind: "configured", agent: "/srv/hg/agent.sock", admin: "/srv/hg/admin.sock" });
    expect((await locateDaemon(config, live(), { ...env, HOSTGATE_SOCKET: "tcp://10.0.0.5:7000" })).admin).toBeNull();
  });

  it("this user's running embedded daemon before the system daemon", async () => {
    const both = live("/run/user/1000/hostgate/agent.sock", "/run/hostgate/agent.sock");
    expect(await locateDaemon(config, both, env)).toMatchObject({ kind: "embedded", admin: "/run/user/1000/hostgate/admin.sock" });
  });

  it("the system daemon when it runs and no embedded one does", async () => {
    expect(await locateDaemon(config, live("/run/hostgate/agent.sock"), env)).toMatchObject({ kind: "system", agent: "/run/hostgate/agent.sock", admin: "/run/hostgate/admin.sock" });
  });

  it("nothing running: the embedded daemon's sockets, honouring config and HOSTGATE_ADMIN_SOCKET", async () => {
    const custom = ConfigSchema.parse({ daemon: { agent_socket: "/tmp/a.sock", admin_socket: "/tmp/b.sock" } });
    expect(await locateDaemon(custom, live(), env)).toMatchObject({ kind: "embedded", agent: "/tmp/a.sock", admin: "/tmp/b.sock" });
    expect((await locateDaemon(config, live(), { ...env, HOSTGATE_ADMIN_SOCKET: "/x/admin.sock" })).admin).toBe("/x/admin.sock");
  });

  it("HOSTGATE_DAEMON pins the choice: embedded even when only the system daemon runs, system even when it does not (issue 22)", async () => {
    const systemOnly = live("/run/hostgate/agent.sock");
    const pinned = await locateDaemon(config, systemOnly, { ...env, HOSTGATE_DAEMON: "embedded" });
    expect(pinned).toMatchObject({ kind: "embedded", agent: "/run/user/1000/hostgate/agent.sock" });
    expect(pinned.reason).toContain("HOSTGATE_DAEMON=embedded");
    expect(await locateDaemon(config, live("/run/user/1000/hostgate/agent.sock"), { ...env, HOSTGATE_DAEMON: "system" })).toMatchObject({ kind: "system", agent: "/run/hostgate/agent.sock" });
    expect((await locateDaemon(config, systemOnly, { ...env, HOSTGATE_DAEMON: "system", HOSTGATE_SOCKET: "/srv/a.sock" })).kind).toBe("configured"); // a named socket still wins
  });

  it("a misspelt HOSTGATE_DAEMON is an error naming the allowed values", async () => {
    await expect(locateDaemon(config, live(), { ...env, HOSTGATE_DAEMON: "sytem" })).rejects.toThrow(/embedded .* or system/);
  });

  it("the hint names the socket asked and the other daemon", async () => {
    const l = await locateDaemon(config, live("/run/user/1000/hostgate/agent.sock"), env);
    const hint = otherDaemonHint(l.admin!, l);
    expect(hint).toContain("/run/user/1000/hostgate/admin.sock");
    expect(hint).toContain("system daemon: /run/hostgate/admin.sock");
    expect(hint).toContain("--socket");
  });
});
