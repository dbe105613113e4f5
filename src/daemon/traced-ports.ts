import type { Tracer } from "../core/trace.ts";
import type { Executor } from "../ports/executor.ts";

/**
 * An {@link Executor} whose every command is one span (issue 25): `exec ssh` (kind CLIENT, `server.address` and
 * `server.port` of the target) or `exec local` (kind INTERNAL), with `process.exit.code`, `hostgate.exec.timed_out`,
 * `hostgate.exec.truncated` and `hostgate.exec.duration_ms`. Never the command, its argv or its output (they may
 * hold secrets; the audit chain records the command redacted). A result with `error` (cancelled, connection lost)
 * is `error.type` `exec_error`; a throw (unreachable, host key) its code. With tracing off the executor itself is returned.
 */
export function tracedExecutor(executor: Executor, tracer: Tracer, backend: "ssh" | "local"): Executor {
  if (!tracer.enabled) return executor;
  return {
    exec: (request) => tracer.span(`exec ${backend}`, {
      kind: backend === "ssh" ? "client" : "internal",
      attributes: { "hostgate.exec.backend": backend, ...(backend === "ssh" ? { "server.address": request.target.host, "server.port": request.target.port } : {}), ...(request.jumps?.length ? { "hostgate.exec.jumps": request.jumps.length } : {}) },
    }, async (span) => {
      const out = await executor.exec(request);
      span.setAttributes({ "hostgate.exec.timed_out": out.timed_out, "hostgate.exec.truncated": out.truncated, "hostgate.exec.duration_ms": out.duration_ms, ...(out.exit_code === null ? {} : { "process.exit.code": out.exit_code }) });
      if (out.error !== null) span.fail("exec_error", "exec_error");
      return out;
    }),
  };
}
