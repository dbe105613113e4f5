import { spawn } from "node:child_process";
import { HostgateError } from "../core/errors.ts";
import type { ExecOutcome, ExecRequest, Executor } from "../ports/executor.ts";
import { CapturedOutput } from "./exec-output.ts";

/**
 * Runs commands on the daemon's own host (`local`), the way the SSH executor runs them on a remote one: the
 * request's `command` is the exact line a POSIX `sh -c` receives (already confined by core/sandbox when the
 * gate allowed it unapproved), stdin is /dev/null, each stream is capped at `max_output_bytes` (`truncated`),
 * and a timeout or an abort sends SIGKILL to the command's whole process group (it is started as a group
 * leader) plus `kill_command` when the request has one. `target` and `jumps` are ignored.
 * Rejects with HostgateError `cancelled` when aborted before starting and `backend_error` when `sh` cannot be
 * spawned; every other outcome (non-zero exit, signal, timeout, cancel) is a result.
 */
/** How long output is still read after the command exited, in milliseconds. */
const DRAIN_MS = 250;

export class LocalExecutor implements Executor {
  exec(req: ExecRequest): Promise<ExecOutcome> {
    if (req.signal?.aborted) return Promise.reject(new HostgateError("cancelled", "cancelled before the command started"));
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const child = spawn("/bin/sh", ["-c", req.command], { stdio: ["ignore", "pipe", "pipe"], detached: true, env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", LANG: "C.UTF-8" } });
      const captured = new CapturedOutput(req, started);
      let timedOut = false;
      let error: string | null = null;
      let timer: NodeJS.Timeout | undefined;
      const kill = (why: string): void => {
        error ??= why;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
        if (req.kill_command) spawn("/bin/sh", ["-c", req.kill_command], { stdio: "ignore" }).on("error", () => undefined);
      };
      const onAbort = (): void => { kill("cancelled by the client"); };
      child.stdout.on("data", (d: Buffer) => { captured.add("stdout", d); });
      child.stderr.on("data", (d: Buffer) => { captured.add("stderr", d); });
      child.on("error", (e) => {
        if (timer) clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
        reject(new HostgateError("backend_error", `could not start /bin/sh: ${e.message}`));
      });
      let finished = false;
      const finish = (code: number | null, sig: NodeJS.Signals | null): void => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
        child.stdout.destroy();
        child.stderr.destroy();
        resolve(captured.outcome({ exit_code: code, signal: sig, timed_out: timedOut, error }));
      };
      child.on("close", finish);
      // A child that left the group (setsid) and kept stdout open must not hold the answer: once the command
      // itself has exited, what arrives within DRAIN_MS is kept and the streams are closed.
      child.on("exit", (code, sig) => { setTimeout(() => { finish(code, sig); }, DRAIN_MS).unref(); });
      req.signal?.addEventListener("abort", onAbort, { once: true });
      if (req.timeout_ms > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          kill(`timed out after ${req.timeout_ms} ms; the process group was sent KILL`);
        }, req.timeout_ms);
      }
    });
  }
}
