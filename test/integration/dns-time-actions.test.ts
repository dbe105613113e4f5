/**
 * Issue 24, SetDnsServers, SetTimezone and EnableNtp on the real machine without disturbing it: a real
 * `hostgate daemon` (dist build) in a network namespace of the test and a private mount namespace whose /etc is
 * an overlay (the host's /etc below, a directory of the test above, holding a planted /etc/resolv.conf). This
 * machine has no PID-1 systemd, so the file paths run here: resolv.conf's nameserver lines, /etc/localtime +
 * /etc/timezone; the timedated path runs in the nspawn test (time-actions-nspawn.test.ts). Each: preview then
 * apply, a second preview has nothing to do; DNS reverts by the daemon's own timer; the refusals say what to do.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeEtcBox, inBox, openEtcBox, type EtcBox } from "../helpers/etc-overlay.ts";
import { runHostgate } from "../helpers/hostgate.ts";
import { applyStep, previewOf, stateOf, waitFor } from "../helpers/plan-steps.ts";

const config = (window: number): string => `backend:\n  type: mock\napproval:\n  same_user: allow\n  confirm_window_s: ${window}\n`;
const RESOLV = "# planted by the test\nsearch example.test\nnameserver 192.0.2.1\nnameserver 192.0.2.2\noptions edns0\n";
const plantResolv = (upper: string): void => { writeFileSync(join(upper, "resolv.conf"), RESOLV); };
const resolv = (b: EtcBox): string => inBox(b, ["cat", "/etc/resolv.conf"]);

describe("SetDnsServers with a 2 s window that nobody confirms", () => {
  let b: EtcBox | undefined;
  beforeAll(async () => { b = await openEtcBox("dnsa", config(2), { setup: plantResolv }); });
  afterAll(async () => { await closeEtcBox(b); });

  it("a plain /etc/resolv.conf: apply replaces the nameserver lines, the daemon's timer puts the file back byte for byte", async () => {
    const box = b!;
    const { step, result } = await applyStep(box.d, "SetDnsServers", { servers: ["198.51.100.53"] });
    expect(step.preview.summary).toBe("Set the DNS servers to 198.51.100.53 (now 192.0.2.1, 192.0.2.2) in /etc/resolv.conf");
    expect(step.preview.confirm).toEqual({ window_s: 2 });
    expect(result.output).toEqual({ mode: "file", servers: ["198.51.100.53"], previous: ["192.0.2.1", "192.0.2.2"] });
    expect(resolv(box)).toBe("# planted by the test\nsearch example.test\nnameserver 198.51.100.53\noptions edns0\n");
    await waitFor(async () => (await stateOf(box.d, step.transaction_id)) === "reverted");
    expect(resolv(box)).toBe(RESOLV);
  });
});

describe("with a 120 s window: apply, confirm, second preview, refusals", () => {
  let b: EtcBox | undefined;
  beforeAll(async () => { b = await openEtcBox("dnsb", config(120), { setup: plantResolv }); });
  afterAll(async () => { await closeEtcBox(b); });

  it("SetDnsServers (IPv4 + IPv6): hostgate confirm keeps it; a second preview has nothing to do; the host's resolv.conf is untouched", async () => {
    const box = b!;
    const hostResolv = readFileSync("/etc/resolv.conf", "utf8");
    const { step } = await applyStep(box.d, "SetDnsServers", { servers: ["198.51.100.53", "2001:db8::53"] });
    expect(resolv(box)).toBe("# planted by the test\nsearch example.test\nnameserver 198.51.100.53\nnameserver 2001:db8::53\noptions edns0\n");
    expect((await runHostgate(["confirm", step.transaction_id, "--socket", box.d.adminSocket], { env: box.d.env })).code).toBe(0);
    expect(await stateOf(box.d, step.transaction_id)).toBe("succeeded");
    expect((await previewOf(box.d, "SetDnsServers", { servers: ["198.51.100.53", "2001:db8::53"] })).summary).toBe("Nothing to do: the DNS servers are already 198.51.100.53, 2001:db8::53 (/etc/resolv.conf)");
    expect(readFileSync("/etc/resolv.conf", "utf8")).toBe(hostResolv);
  });

  it("SetDnsServers refusals: four servers for a plain file, not an address, a resolvconf link, resolved's link without resolved running, another link", async () => {
    const box = b!;
    expect((await previewOf(box.d, "SetDnsServers", { servers: ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4"] })).error).toMatchObject({ code: "invalid_params", message: "/etc/resolv.conf is a plain file and the C library reads only its first 3 nameserver lines; 4 were given.", hint: "Give at most 3 servers." });
    expect((await previewOf(box.d, "SetDnsServers", { servers: ["dns.example"] })).error?.code).toBe("invalid_params");
    inBox(box, ["ln", "-sfn", "/run/resolvconf/resolv.conf", "/etc/resolv.conf"]);
    const rc = (await previewOf(box.d, "SetDnsServers", { servers: ["192.0.2.9"] })).error;
    expect(rc).toMatchObject({ code: "invalid_params", message: "/etc/resolv.conf is a link to /run/resolvconf/resolv.conf, managed by resolvconf: a change there would be overwritten." });
    expect(rc?.hint).toMatch(/resolvconf reads/);
    inBox(box, ["ln", "-sfn", "../run/systemd/resolve/stub-resolv.conf", "/etc/resolv.conf"]);
    expect((await previewOf(box.d, "SetDnsServers", { servers: ["192.0.2.9"] })).error).toMatchObject({ code: "invalid_params", message: "/etc/resolv.conf is a link to ../run/systemd/resolve/stub-resolv.conf, managed by systemd-resolved, which is not running here." });
    inBox(box, ["ln", "-sfn", "/tmp/elsewhere", "/etc/resolv.conf"]);
    expect((await previewOf(box.d, "SetDnsServers", { servers: ["192.0.2.9"] })).error?.message).toBe("/etc/resolv.conf is a link to /tmp/elsewhere; SetDnsServers never writes through a link.");
  });

  it("SetTimezone America/Argentina/Buenos_Aires: /etc/localtime becomes a link to the zone file, /etc/timezone follows; a second preview has nothing to do; no confirm window", async () => {
    const box = b!;
    const before = inBox(box, ["readlink", "/etc/localtime"]).trim();
    const { step, result } = await applyStep(box.d, "SetTimezone", { zone: "America/Argentina/Buenos_Aires" });
    expect(step.preview.summary).toBe(`Set the time zone to America/Argentina/Buenos_Aires (now ${before.replace(/^.*zoneinfo\//, "")})`);
    expect(step.preview.confirm).toBeUndefined();
    expect(result.output).toMatchObject({ zone: "America/Argentina/Buenos_Aires", mode: "files" });
    expect(inBox(box, ["readlink", "/etc/localtime"]).trim()).toBe("/usr/share/zoneinfo/America/Argentina/Buenos_Aires");
    expect(inBox(box, ["cat", "/etc/timezone"])).toBe("America/Argentina/Buenos_Aires\n");
    expect(inBox(box, ["sh", "-c", "date +%Z"]).trim(), "the C library reads the new zone").toBe("-03");
    expect(inBox(box, ["ls", "-a", "/etc"]).split("\n")).not.toContain(".hostgate-localtime");
    expect((await previewOf(box.d, "SetTimezone", { zone: "America/Argentina/Buenos_Aires" })).summary).toBe("Nothing to do: the time zone is already America/Argentina/Buenos_Aires");
    expect(readFileSync("/etc/timezone", "utf8"), "the host's own").not.toContain("Buenos_Aires");
  });

  it("SetTimezone refusals: `..` in the name, a zone that does not exist, a directory of zones, a file that is not a zone", async () => {
    const d = b!.d;
    expect((await previewOf(d, "SetTimezone", { zone: "../../etc/passwd" })).error?.code).toBe("invalid_params");
    expect((await previewOf(d, "SetTimezone", { zone: "Mars/Olympus" })).error).toMatchObject({ code: "invalid_params", message: "Mars/Olympus is not a time zone of this host: there is no /usr/share/zoneinfo/Mars/Olympus.", hint: "Use a name under /usr/share/zoneinfo such as Europe/Berlin or UTC (timedatectl list-timezones)." });
    expect((await previewOf(d, "SetTimezone", { zone: "Europe" })).error?.message).toBe("Europe is not a time zone of this host: /usr/share/zoneinfo/Europe is not a zone file.");
    expect((await previewOf(d, "SetTimezone", { zone: "leapseconds" })).error?.message).toBe("leapseconds is not a time zone of this host: /usr/share/zoneinfo/leapseconds is not a TZif file.");
  });

  it("EnableNtp where no NTP service is installed (the configured mock manager has none): refused, saying what to install", async () => {
    const e = (await previewOf(b!.d, "EnableNtp", {})).error;
    expect(e).toMatchObject({ code: "invalid_params", hint: "Install one first: InstallPackage chrony (or systemd-timesyncd)." });
    expect(e?.message).toMatch(/^No NTP service is installed on this host \(looked for chrony.service, .*systemd-timesyncd.service\)\.$/);
  });
});
