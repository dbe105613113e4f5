import type { Cmd } from "./command.ts";
import type { RiskLevel } from "./types.ts";

/**
 * A rule as data. `id` is the signal id it produces, `severity` its risk level, `reason` the sentence a
 * human reads. A command rule names the commands it looks at (`"*"` for every command, `"mkfs*"` for a
 * prefix) and has a predicate over the normalised command; a structural rule (no `test`) is emitted by
 * the analyser itself (pipes into shells, fork bombs, unparseable input…).
 * `examples.match` are command lines that must produce this signal and `examples.noMatch` lines that must
 * not; both are checked when the engine is created, and a failing example throws.
 */
export interface Rule {
  id: string;
  severity: RiskLevel;
  reason: string;
  commands?: readonly string[];
  test?: (cmd: Cmd) => boolean;
  examples: { match: readonly string[]; noMatch: readonly string[] };
}
