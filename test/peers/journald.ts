// Real journal files written by a real systemd-journald (no PID-1 systemd needed): journald runs once in a
// private mount namespace whose /run is a tmpfs and whose /var/log/journal is the test's directory,
// takes messages through its own socket, rotates on SIGUSR2 (so the earlier files become archived ones) and
// exits. Nothing of the host's /run or /var/log is touched (its /run is a tmpfs too).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { whichSync } from "./proc.ts";

const JOURNALD = "/lib/systemd/systemd-journald";

/** Why real journal files cannot be made here, or null. */
export function journaldPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root (private mount namespace)";
  if (!existsSync(JOURNALD)) return `no ${JOURNALD} (apt-get install systemd)`;
  if (whichSync("unshare") === null || whichSync("systemd-cat") === null) return "no unshare or systemd-cat";
  return null;
}

/**
 * Fills `journalDir` (created if needed; it stands for /var/log/journal) with `rounds` journal files: each round
 * logs `lines` lines and rotates, so `rounds` archived files and one active file remain. Returns the
 * `<machine-id>` directory journald wrote into.
 */
export function writeJournalFiles(journalDir: string, rounds = 3, lines = 300): string {
  mkdirSync(journalDir, { recursive: true });
  const script = [
    "set -e",
    // All of /run: journald also opens /run/log/journal, which must not appear on the host.
    "mount -t tmpfs tmpfs /run",
    'mount --bind "$0" /var/log/journal',
    // journald writes to /var (not /run/log) only once a flush was requested: mark it done.
    "mkdir -p /run/systemd/journal && touch /run/systemd/journal/flushed",
    `${JOURNALD} </dev/null >/dev/null 2>&1 & J=$!`,
    "for i in $(seq 1 50); do [ -S /run/systemd/journal/stdout ] && break; sleep 0.1; done",
    `for r in $(seq 1 ${rounds}); do seq 1 ${lines} | sed "s/^/hostgate journal test round $r line /" | systemd-cat -t hgtest; sleep 0.3; kill -USR2 $J; sleep 0.3; done`,
    "kill $J; wait $J || true",
  ].join("\n");
  const r = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, journalDir], { encoding: "utf8", timeout: 30_000 });
  if (r.status !== 0) throw new Error(`journald peer failed (${r.status ?? r.signal}): ${r.stderr}`);
  const dirs = readdirSync(journalDir);
  if (dirs.length !== 1) throw new Error(`journald wrote ${dirs.length} directories in ${journalDir}`);
  return join(journalDir, dirs[0]!);
}
