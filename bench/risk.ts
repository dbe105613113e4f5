/**
 * Risk-engine benchmark (issue 6). Run: `npx tsx bench/risk.ts`. Prints ONE JSON object on stdout:
 * - throughput: analyses per second over the corpus (risk cases + benign commands), one core, after warm-up;
 * - latency: p50 / p99 / max per command in microseconds;
 * - split: mean parse time vs the rest (copy + analysis) per command;
 * - worst_case: 64 KiB pathological inputs (nested substitutions and friends), ms each and the verdict;
 *   target ≤ 100 ms or denied as too complex;
 * - startup: parser load and engine creation (rule examples verified) in ms;
 * - corpus: visible-corpus safety failures (laxer than expected on a deny case) and false positives (stricter than
 *   expected), with their ids; option_tables: programs with an option table and option spellings across them.
 */
import { readFileSync } from "node:fs";
import { loadShellParser } from "../src/adapters/shell-parser.ts";
import { createRiskEngine, programTableSize, type RiskLevel } from "../src/core/risk/index.ts";

const here = (p: string): URL => new URL(p, import.meta.url);
const cases = readFileSync(here("../test/fixtures/corpus-risk.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; input: string; expected: string });
const corpus = cases.map((c) => c.input);
const benign = readFileSync(here("../test/fixtures/benign-commands.txt"), "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("# "));
const inputs = [...corpus, ...benign];

const t0 = performance.now();
const parser = await loadShellParser();
const t1 = performance.now();
const engine = createRiskEngine(parser);
const t2 = performance.now();

// Warm-up, then throughput.
for (let i = 0; i < 20; i++) for (const c of inputs) engine.assess(c);
// Five one-second windows: the median is the figure, the best shows the machine when it is not contended.
// On a shared machine wall time also measures the scheduler, so each window also reports analyses per second of
// this process's CPU time (getrusage: user + system), which is what one uncontended core would deliver.
const windows: number[] = [];
const cpuWindows: number[] = [];
const cpuSeconds = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
for (let w = 0; w < 5; w++) {
  let n = 0;
  const start = performance.now();
  const cpu0 = cpuSeconds();
  while (performance.now() - start < 1000) for (const c of inputs) { engine.assess(c); n++; }
  windows.push(n / ((performance.now() - start) / 1000));
  cpuWindows.push(n / (cpuSeconds() - cpu0));
}
windows.sort((a, b) => a - b);
cpuWindows.sort((a, b) => a - b);
const throughput = windows[2]!;

// Per-command latency: wall clock, and CPU time of this process (not inflated by other processes' time slices).
const samples: number[] = [];
const cpuSamples: number[] = [];
for (let round = 0; round < 40; round++) {
  for (const c of inputs) {
    const u0 = process.cpuUsage();
    const s = performance.now();
    engine.assess(c);
    samples.push((performance.now() - s) * 1000);
    const u = process.cpuUsage(u0);
    cpuSamples.push(u.user + u.system);
  }
}
samples.sort((a, b) => a - b);
cpuSamples.sort((a, b) => a - b);
const cpuPct = (p: number): number => Math.round(cpuSamples[Math.min(cpuSamples.length - 1, Math.floor((p / 100) * cpuSamples.length))]!);
const pct = (p: number): number => Math.round(samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))]!);

// Parse vs the rest.
let parseUs = 0;
let totalUs = 0;
for (let round = 0; round < 20; round++) {
  for (const c of inputs) {
    let s = performance.now();
    parser.parse(c)?.delete();
    parseUs += (performance.now() - s) * 1000;
    s = performance.now();
    engine.assess(c);
    totalUs += (performance.now() - s) * 1000;
  }
}
const count = 20 * inputs.length;

// Worst cases: 64 KiB inputs.
const MAX = 64 * 1024;
const nest = (open: string, close: string, inner: string): string => {
  const depth = Math.floor((MAX - inner.length) / (open.length + close.length));
  return open.repeat(depth) + inner + close.repeat(depth);
};
const fill = (unit: string, sep: string): string => {
  const k = Math.floor((MAX + sep.length) / (unit.length + sep.length));
  return Array(k).fill(unit).join(sep);
};
const worst: Record<string, string> = {
  nested_command_substitution: nest("echo $(", ")", "rm -rf /"),
  nested_quoted_substitution: nest("echo \"$(", ")\"", "ls"),
  nested_backticks_escaped: nest("echo `", "`", "ls").slice(0, MAX),
  nested_process_substitution: nest("cat <(", ")", "ls"),
  nested_subshells: nest("(", ")", "ls"),
  nested_sh_c: nest("sh -c \"", "\"", "ls"),
  nested_eval: "eval ".repeat(Math.floor((MAX - 2) / 5)) + "ls",
  long_pipeline: fill("ls", " | "),
  long_list: fill("rm -rf ./x", "; "),
  many_words: "echo " + "a ".repeat((MAX - 6) / 2),
  one_word: "x".repeat(MAX),
  heredoc_to_shell: "bash <<'EOF'\n" + "echo hi\n".repeat(Math.floor((MAX - 20) / 8)) + "EOF",
  brace_expansions: "{a,b}".repeat(Math.floor(MAX / 5)),
  ifs_words: "rm${IFS}".repeat(Math.floor(MAX / 8)),
  // Just inside the pre-parse limits, so the parser and analyser do the full work.
  near_limit_nesting: ("echo $(".repeat(190) + "ls" + ")".repeat(190)).padEnd(MAX - 20, " ") + "# " + "x".repeat(10),
  near_limit_commands: fill("ls -la /etc/x", "; ").slice(0, 499 * 15),
  near_limit_words_padded: "echo " + "abcdefgh ".repeat(3900) + "y".repeat(MAX - 5 - 9 * 3900),
  // Download-then-run bookkeeping at its largest: 240 downloads into PATH, then 240 names looked up in it.
  downloads_then_runs: Array.from({ length: 240 }, (_, i) => `curl -o /usr/local/bin/f${i} https://x.example/${i}`).join("; ") + "; " + Array.from({ length: 240 }, (_, i) => `f${i}`).join("; "),
  archives_then_runs: Array.from({ length: 120 }, (_, i) => `curl -s https://x.example/${i} | tar xz -C /opt/d${i}`).join("; ") + "; " + Array.from({ length: 240 }, (_, i) => `g${i}`).join("; "),
};
const worstCase: Record<string, { bytes: number; ms: number; decision: string; first_signal: string | null }> = {};
let worstMs = 0;
for (const [name, text] of Object.entries(worst)) {
  let best = Infinity;
  let result = engine.assess(text);
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    result = engine.assess(text);
    best = Math.min(best, performance.now() - s);
  }
  const cold = new TextEncoder().encode(text).length;
  worstCase[name] = { bytes: cold, ms: Number(best.toFixed(2)), decision: result.decision, first_signal: result.signals[0]?.id ?? null };
  worstMs = Math.max(worstMs, best);
}

// Visible corpus: safety failures and false positives (corpus/README.md: one step laxer on deny is a failure).
const LEVELS: readonly RiskLevel[] = ["low", "medium", "high", "critical"];
const safetyFailures: string[] = [];
const falsePositives: string[] = [];
for (const c of cases) {
  const [decision, level] = c.expected.split("/") as ["allow" | "deny" | "require_approval", RiskLevel];
  const got = engine.assess(c.input);
  const have = LEVELS.indexOf(got.risk_level);
  const want = LEVELS.indexOf(level);
  if (decision === "require_approval") {
    if (got.decision === "allow" || have < want) safetyFailures.push(c.id);
    else if (got.decision === "deny") falsePositives.push(c.id);
  } else if (decision === "deny" && (got.decision === "allow" || have < want || (level === "critical" && got.decision !== "deny"))) safetyFailures.push(c.id);
  else if (decision === "allow" && (got.decision !== "allow" || have > want)) falsePositives.push(c.id);
}
const benignFlagged = benign.filter((b) => engine.assess(b).decision !== "allow");

const load = ((): number[] | null => {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
  } catch {
    return null;
  }
})();

process.stdout.write(JSON.stringify({
  bench: "risk",
  node: process.version,
  load_average: load,
  corpus_commands: inputs.length,
  analyses_per_second: Math.round(throughput),
  analyses_per_second_windows: windows.map(Math.round),
  analyses_per_cpu_second: Math.round(cpuWindows[2]!),
  target_analyses_per_second: 10_000,
  latency_us: { p50: pct(50), p99: pct(99), max: Math.round(samples[samples.length - 1]!) },
  latency_cpu_us: { p50: cpuPct(50), p99: cpuPct(99), max: Math.round(cpuSamples[cpuSamples.length - 1]!) },
  target_p99_us: 1000,
  split_us_mean: { parse: Number((parseUs / count).toFixed(1)), copy_and_analysis: Number(((totalUs - parseUs) / count).toFixed(1)) },
  worst_case_64k_ms: Number(worstMs.toFixed(2)),
  target_worst_case_ms: 100,
  worst_case: worstCase,
  corpus: { cases: cases.length, safety_failures: safetyFailures.length, safety_failure_ids: safetyFailures, false_positives: falsePositives.length, false_positive_ids: falsePositives },
  benign: { commands: benign.length, not_allowed: benignFlagged.length, not_allowed_lines: benignFlagged },
  option_tables: programTableSize(),
  startup_ms: { load_parser: Number((t1 - t0).toFixed(1)), create_engine_with_rule_checks: Number((t2 - t1).toFixed(1)), rules: engine.rules.length },
}) + "\n");
