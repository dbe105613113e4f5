import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DaemonDeps } from "../app/deps.ts";
import { revertDue, type RevertOutcome } from "../app/revert.ts";

/** The daemon's revert timer (issue 24): restores steps whose confirm window ended. */
export interface RevertTimer {
  /** Arms the timer for a deadline (ms since the epoch by the daemon's clock); the earliest armed deadline wins. */
  schedule(deadline: number): void;
  /**
   * The start-up pass: every step still awaiting its confirm (or left mid-revert) by a daemon that stopped is
   * restored now, then the timer is armed for what remains. Resolves to what it restored ([] when the state
   * database does not exist yet: an embedded daemon that never planned has nothing to restore).
   */
  start(): Promise<RevertOutcome[]>;
  close(): void;
}

/** Longest single sleep, in ms: a far deadline is re-checked at least this often (a clock step cannot strand it). */
const MAX_SLEEP_MS = 60_000;

/**
 * The revert timer over the daemon's deps: a single Node timer set to the earliest confirm deadline (read back
 * from the store after every pass, so deadlines from before a restart count too). The deadline is on the daemon's
 * clock port; the sleep is the real time until then. `announce` gets one line per revert.
 */
export function revertTimer(deps: DaemonDeps, stateDir: string, announce: (line: string) => void): RevertTimer {
  let timer: NodeJS.Timeout | undefined;
  let armed: number | null = null;
  let closed = false;
  let running: Promise<unknown> = Promise.resolve();
  const report = (outcomes: RevertOutcome[]): void => {
    for (const o of outcomes) announce(o.state === "reverted" ? `transaction ${o.transaction_id} was not confirmed in time: prior state restored` : `transaction ${o.transaction_id}: restoring its prior state FAILED (${o.error?.message ?? "?"}); state unknown`);
  };
  const arm = (deadline: number): void => {
    if (closed || (armed !== null && armed <= deadline)) return;
    if (timer) clearTimeout(timer);
    armed = deadline;
    timer = setTimeout(fire, Math.min(Math.max(deadline - deps.clock.now(), 0), MAX_SLEEP_MS));
  };
  const rearm = (): void => {
    const next = deps.transactions().nextConfirmDeadline();
    if (next !== null) arm(next);
  };
  function fire(): void {
    armed = null;
    timer = undefined;
    running = running.then(async () => {
      if (closed) return;
      report(await revertDue(deps));
      rearm();
    }).catch((err: unknown) => { announce(`revert pass failed: ${(err as Error).message}`); });
  }
  return {
    schedule: arm,
    start: async () => {
      if (!existsSync(join(stateDir, "state.db"))) return [];
      const outcomes = await revertDue(deps, { restart: true });
      report(outcomes);
      rearm();
      return outcomes;
    },
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
