import { describe, expect, it } from "vitest";
import { performance } from "node:perf_hooks";
import { CapturedOutput } from "./exec-output.ts";
import type { ExecRequest } from "../ports/executor.ts";

const req = (timeout_ms: number): ExecRequest => ({ target: { host: "h", port: 22 }, command: "sleep 5", timeout_ms, max_output_bytes: 1024 });
const ended = { signal: null, error: null };

describe("CapturedOutput.outcome: a deadline reads the same whichever clock ended the command", () => {
  it("the daemon's timer fired: timed out, no exit code, even when the host's status 137 arrived too", () => {
    const o = new CapturedOutput(req(1000), performance.now() - 1200).outcome({ ...ended, exit_code: 137, timed_out: true });
    expect(o).toMatchObject({ timed_out: true, exit_code: null });
  });

  it("the host's `timeout -s KILL` ended it first (status 137 at or after the deadline): reported as the timeout", () => {
    const o = new CapturedOutput(req(1000), performance.now() - 1005).outcome({ ...ended, exit_code: 137, timed_out: false });
    expect(o).toMatchObject({ timed_out: true, exit_code: null, signal: "SIGKILL" });
    expect(o.error).toContain("timed out after 1000 ms");
  });

  it("a command that exits 137 on its own before the deadline, or without one, keeps its status", () => {
    expect(new CapturedOutput(req(60_000), performance.now()).outcome({ ...ended, exit_code: 137, timed_out: false })).toMatchObject({ timed_out: false, exit_code: 137, signal: null, error: null });
    expect(new CapturedOutput(req(0), performance.now() - 5000).outcome({ ...ended, exit_code: 137, timed_out: false })).toMatchObject({ timed_out: false, exit_code: 137 });
  });

  it("any other status after the deadline is the command's own (it exited, nothing killed it)", () => {
    expect(new CapturedOutput(req(1000), performance.now() - 2000).outcome({ ...ended, exit_code: 1, timed_out: false })).toMatchObject({ timed_out: false, exit_code: 1 });
  });
});
