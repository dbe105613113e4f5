import type { Action } from "../core/catalogue/action.ts";
import { listJournalFiles } from "../core/catalogue/actions/journal-files.ts";
import { needsOf } from "../core/catalogue/needs.ts";
import type { HostProbe } from "../ports/host-probe.ts";

/**
 * Which actions cannot run on the daemon's own host (`local`), and why (issue 22: tools whose backend is unavailable
 * say so; issue 24: find_actions marks such reads and changes `available: false`). By action name → a short reason (a few words: it goes into every such tool's
 * description, test/e2e/context-cost.test.ts), e.g. `{ ListUnits: "no systemd", ReadJournal: "no journal files" }`;
 * a call says the full reason. Two backends are known:
 * - systemd: every action (read-only or mutating) that needs it (core/catalogue/needs.ts) when `systemd` is false (the config's backend
 *   is none: daemon/select-backend.ts systemdUnavailableReason);
 * - the journal: ReadJournal without journalctl, or with no journal file under /var/log/journal or
 *   /run/log/journal (journalctl then answers "No journal files were found.").
 * Read once when the daemon (or a deferred front, daemon/describe-build.ts) describes itself: a journal that
 * appears later shows at the next start; the action itself still answers `unavailable` with the reason.
 * Never throws: a check that fails reads as available.
 */
export async function localUnavailable(catalogue: readonly Action[], host: HostProbe, systemd: boolean): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const a of catalogue) {
    if (!systemd && needsOf(a).includes("systemd")) out[a.name] = "no systemd";
  }
  if (catalogue.some((a) => a.name === "ReadJournal")) {
    const why = await journalMissing(host).catch(() => null);
    if (why !== null) out.ReadJournal = why;
  }
  return out;
}

async function journalMissing(host: HostProbe): Promise<string | null> {
  if ((await host.which("journalctl")) === null) return "no journalctl";
  return (await listJournalFiles({ host })).length === 0 ? "no journal files" : null;
}
