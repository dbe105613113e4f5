import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import signalProcess from "../../src/core/catalogue/actions/signal-process.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

describe("SignalProcess against a real child process", () => {
  let child: ChildProcess;
  let ctx: ActionContext;
  beforeEach(async () => {
    child = spawn("sleep", ["30"], { stdio: "ignore" });
    await once(child, "spawn");
    ctx = await realContext();
  });
  afterEach(() => { child.kill("SIGKILL"); });

  it("previews the target (name, user, argv[0], start time) deterministically", async () => {
    const pid = child.pid!;
    const a = await signalProcess.preview({ pid, signal: "TERM" }, ctx);
    const b = await signalProcess.preview({ pid, signal: "TERM" }, ctx);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.current).toMatchObject({ pid, name: "sleep", argv0: "sleep", uid: process.getuid!() });
    const cur = a.current as { start_ticks: number; started_at: string };
    expect(cur.start_ticks).toBeGreaterThan(0);
    expect(Math.abs(Date.parse(cur.started_at) - Date.now())).toBeLessThan(60_000);
    expect(a.intended).toEqual({ signal: "SIGTERM" });
    expect(a.text).toContain(`Send SIGTERM to pid ${pid} (sleep)`);
  });

  it("applies TERM: the child dies of SIGTERM", async () => {
    const pid = child.pid!;
    const preview = await signalProcess.preview({ pid, signal: "TERM" }, ctx);
    const exited = once(child, "exit");
    expect(await signalProcess.apply({ pid, signal: "TERM" }, ctx, preview)).toEqual({ pid, signal: "SIGTERM", name: "sleep" });
    const [code, signal] = (await exited) as [number | null, string | null];
    expect(code).toBeNull();
    expect(signal).toBe("SIGTERM");
  });

  it("refuses when the pid now belongs to a process with another start time, without signalling it", async () => {
    const pid = child.pid!;
    const preview = await signalProcess.preview({ pid, signal: "KILL" }, ctx);
    const reused = { ...preview, current: { ...(preview.current as object), start_ticks: (preview.current as { start_ticks: number }).start_ticks - 1 } };
    expect(await errorCode(() => signalProcess.apply({ pid, signal: "KILL" }, ctx, reused))).toBe("precondition_failed");
    expect(child.exitCode).toBeNull();
    expect(() => process.kill(pid, 0)).not.toThrow(); // still alive
  });

  it("a dead pid: preview and apply are not_found", async () => {
    const pid = child.pid!;
    const preview = await signalProcess.preview({ pid, signal: "TERM" }, ctx);
    child.kill("SIGKILL");
    await once(child, "exit"); // reaped by Node, so /proc/<pid> is gone
    expect(await errorCode(() => signalProcess.preview({ pid, signal: "TERM" }, ctx))).toBe("not_found");
    expect(await errorCode(() => signalProcess.apply({ pid, signal: "TERM" }, ctx, preview))).toBe("not_found");
  });

  it("refuses pid 1 and the daemon's own pid with invalid_params", async () => {
    expect(await errorCode(() => signalProcess.preview({ pid: 1, signal: "HUP" }, ctx))).toBe("invalid_params");
    const self = await realContext({ self_pid: child.pid! });
    expect(await errorCode(() => signalProcess.preview({ pid: child.pid!, signal: "HUP" }, self))).toBe("invalid_params");
    expect(child.exitCode).toBeNull();
  });

  it("accepts only the listed signals", () => {
    expect(signalProcess.params.safeParse({ pid: 10, signal: "SEGV" }).success).toBe(false);
    expect(signalProcess.params.safeParse({ pid: 0, signal: "TERM" }).success).toBe(false);
    expect(signalProcess.params.safeParse({ pid: 10, signal: "STOP" }).success).toBe(true);
  });
});
