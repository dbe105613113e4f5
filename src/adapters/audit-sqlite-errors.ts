import { HostgateError } from "../core/errors.ts";

/** A SQLite failure as `audit_unavailable`, saying why in words (disk full, read-only, I/O) and that the action is refused. */
export function unavailable(what: string, err: unknown): HostgateError {
  const code = (err as { code?: string }).code ?? "";
  const why =
    code === "SQLITE_FULL" ? "the disk (or the configured size cap) is full"
    : code.startsWith("SQLITE_READONLY") ? "the store is read-only"
    : code.startsWith("SQLITE_IOERR") ? "an I/O error occurred"
    : (err as Error).message;
  return new HostgateError("audit_unavailable", `${what}: ${why}; the action is refused because it cannot be audited`, {
    hint: "Free space or fix the audit store (see `hostgate doctor`), then retry.",
    details: { sqlite_code: code },
    cause: err,
  });
}
