import { redactLines, redactSecrets } from "../core/redact.ts";
import type { ExecHostResult } from "../ipc/hosts.ts";

/**
 * Redaction of exec_on_host output (issue 19, corpus T3-13): what a command printed is host-derived text like a
 * log file, so it is redacted the way `read_log_file` redacts the same bytes: split into lines, private key
 * blocks replaced line by line (also a block cut by the output cap), then every line with the single-line rules
 * (core/redact.ts `redactLines`). Linear in the output's length.
 */

/** Redacts one stream (stdout or stderr) line by line; `redactions` counts the secrets replaced (a key block: one per line). */
export function redactOutput(text: string): { text: string; redactions: number } {
  if (text === "") return { text, redactions: 0 };
  const r = redactLines(text.split("\n"));
  return { text: r.lines.join("\n"), redactions: r.redactions };
}

/**
 * Redacts one host's result before fan-out grouping (so identical outputs still group): stdout, stderr and
 * `error`. Returns the redacted copy and how many secrets were replaced in it.
 */
export function redactExecResult(r: ExecHostResult): { result: ExecHostResult; redactions: number } {
  const out = redactOutput(r.stdout);
  const err = redactOutput(r.stderr);
  const error = redactSecrets(r.error);
  return {
    result: { ...r, stdout: out.text, stderr: err.text, error: error.text },
    redactions: out.redactions + err.redactions + error.redactions,
  };
}

/** {@link redactExecResult} over every host's result, in order; `redactions` is the total. */
export function redactExecResults(results: readonly ExecHostResult[]): { results: ExecHostResult[]; redactions: number } {
  let redactions = 0;
  const out = results.map((r) => {
    const x = redactExecResult(r);
    redactions += x.redactions;
    return x.result;
  });
  return { results: out, redactions };
}
