import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../core/catalogue/index.ts";
import { HostgateError } from "../core/errors.ts";
import { needsOf } from "../core/catalogue/needs.ts";
import type { HostProbe } from "../ports/host-probe.ts";
import { localUnavailable } from "./local-availability.ts";

/**
 * The journal half needs hosts with and without journalctl and journal files; /var/log/journal of the machine
 * running the tests cannot be made to hold or lack them (not hermetic), so a probe answers `which`, `readDir` and
 * `stat` as such a host would. test/e2e/unavailable-tools.test.ts checks this machine's real answer end to end.
 */
function probe(opts: { journalctl: boolean; files: Record<string, string[]> }): HostProbe {
  const notFound = (p: string): Error => new HostgateError("not_found", `${p}: no such directory`);
  return {
    which: (name: string) => Promise.resolve(name === "journalctl" && opts.journalctl ? "/usr/bin/journalctl" : null),
    readDir: (p: string) => {
      if (p in opts.files) return Promise.resolve(opts.files[p]!);
      const sub = Object.keys(opts.files).filter((k) => k.startsWith(`${p}/`)).map((k) => k.slice(p.length + 1).split("/")[0]!);
      if (sub.length > 0) return Promise.resolve([...new Set(sub)]);
      return Promise.reject(notFound(p));
    },
    stat: (p: string) => Promise.resolve({ size: 8, mtime_ms: 0, is_file: p.endsWith(".journal"), is_directory: !p.endsWith(".journal"), is_symlink: false }),
  } as unknown as HostProbe;
}

describe("localUnavailable (issue 22: tools whose backend is unavailable say so)", () => {
  const journal = { journalctl: true, files: { "/var/log/journal/0123": ["system.journal"] } };
  const systemdActions = CATALOGUE.filter((a) => needsOf(a).includes("systemd")).map((a) => a.name).sort();

  it("without systemd: every action that needs it, reads and changes (find_actions marks both), and nothing else", async () => {
    expect(systemdActions.length).toBeGreaterThan(4);
    const r = await localUnavailable(CATALOGUE, probe(journal), false);
    expect(Object.keys(r).sort()).toEqual(systemdActions);
    expect(new Set(Object.values(r))).toEqual(new Set(["no systemd"]));
    expect(r).toHaveProperty("ListUnits");
    expect(r).toHaveProperty("MaskUnit");
    expect(r).toHaveProperty("CreateTimer");
    expect(r).not.toHaveProperty("WriteFile");
    expect(await localUnavailable(CATALOGUE, probe(journal), true)).toEqual({});
  });

  it("ReadJournal: no journalctl, or journalctl with no journal file (empty directories), is unavailable; one file is enough", async () => {
    expect(await localUnavailable(CATALOGUE, probe({ journalctl: false, files: journal.files }), true)).toEqual({ ReadJournal: "no journalctl" });
    expect(await localUnavailable(CATALOGUE, probe({ journalctl: true, files: { "/var/log/journal": [] } }), true)).toEqual({ ReadJournal: "no journal files" });
    expect(await localUnavailable(CATALOGUE, probe({ journalctl: true, files: { "/run/log/journal/0123": ["notes.txt"] } }), true)).toEqual({ ReadJournal: "no journal files" });
    expect(await localUnavailable(CATALOGUE, probe({ journalctl: true, files: { "/run/log/journal/0123": ["system.journal"] } }), true)).toEqual({});
  });
});
