/**
 * Parsers of systemctl's text and JSON output, for hosts reached over SSH that have systemd but no
 * `systemd-stdio-bridge` (adapters/systemd-systemctl-ssh.ts). Pure: input is what the remote command printed.
 * Formats are systemd 246+'s: `systemctl list-units -o json`, `systemctl show -p … --timestamp=us+utc`
 * (`Key=Value` lines), and the `Created symlink A → B.` / `Removed "A".` lines of enable/disable.
 */
import type { ExecCommand, UnitListEntry } from "./payload.ts";
import { usecToIso } from "./payload.ts";

/** `systemctl list-units -o json` rows → entries; throws Error when the text is not that JSON (e.g. an old systemctl). */
export function parseListUnitsJson(text: string): UnitListEntry[] {
  const rows = JSON.parse(text) as unknown;
  if (!Array.isArray(rows)) throw new Error("systemctl list-units -o json did not print an array");
  const field = (v: unknown): string => (typeof v === "string" ? v : "");
  return rows.map((r: Record<string, unknown>) => ({
    unit: field(r.unit), description: field(r.description), load_state: field(r.load), active_state: field(r.active), sub_state: field(r.sub),
  }));
}

/** `Key=Value` lines of `systemctl show` → a map (the first `=` splits; a later line for the same key wins). */
export function parseShow(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) out.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return out;
}

/** A `--timestamp=us+utc` value (`Tue 2026-12-01 18:00:00.123456 UTC`) → ISO 8601 as usecToIso gives it; null for empty / n/a. */
export function showTimestampToIso(v: string | undefined): string | null {
  const m = /(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))? UTC/.exec(v ?? "");
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const us = BigInt(ms) * 1000n + BigInt((m[7] ?? "0").padEnd(6, "0"));
  return usecToIso(us);
}

/** A numeric `show` value; `[not set]`, `infinity` and empty are null. */
export function showNumber(v: string | undefined): number | null {
  if (v === undefined || !/^\d+$/.test(v)) return null;
  return Number(v);
}

const CLD: Record<string, number> = { exited: 1, killed: 2, dumped: 3, trapped: 4, stopped: 5, continued: 6 };

/**
 * An `ExecStart=` value of `systemctl show` (`{ path=… ; argv[]=… ; ignore_errors=no ; … ; pid=N ; code=exited ;
 * status=0/SUCCESS }`, one brace group per command) → ExecCommand rows. `argv[]` is printed space-joined, so an
 * argument holding a space comes back split: the text form cannot say otherwise (the D-Bus form can).
 */
export function parseExecCommands(v: string | undefined): ExecCommand[] {
  const out: ExecCommand[] = [];
  for (const m of (v ?? "").matchAll(/\{([^{}]*)\}/g)) {
    const fields = new Map<string, string>();
    for (const part of m[1]!.split(" ; ")) {
      const eq = part.indexOf("=");
      if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const argv = (fields.get("argv[]") ?? "").split(" ").filter((a) => a !== "");
    out.push({
      path: fields.get("path") ?? "", argv, ignore_errors: fields.get("ignore_errors") === "yes",
      pid: showNumber(fields.get("pid")) ?? 0, code: CLD[fields.get("code") ?? ""] ?? 0, status: showNumber((fields.get("status") ?? "").split("/")[0]) ?? 0,
    });
  }
  return out;
}

/** The unit-file changes `systemctl enable/disable` reports, as D-Bus's EnableUnitFiles/DisableUnitFiles list them. */
export function parseUnitFileChanges(text: string): { type: string; file: string; destination: string }[] {
  const out: { type: string; file: string; destination: string }[] = [];
  for (const line of text.split("\n")) {
    // systemd prints → in a UTF-8 locale and -> otherwise.
    const created = /^Created symlink "?(.+?)"? (?:→|->) "?(.+?)"?\.$/.exec(line.trim());
    if (created) out.push({ type: "symlink", file: created[1]!, destination: created[2]! });
    const removed = /^Removed "?(.+?)"?\.$/.exec(line.trim());
    if (removed) out.push({ type: "unlink", file: removed[1]!, destination: "" });
  }
  return out;
}
