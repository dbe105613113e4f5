import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import runLogrotate, { logPathsOf } from "../../src/core/catalogue/actions/run-logrotate.ts";
import { whichSync } from "../peers/proc.ts";
import { errorCode } from "../helpers/real-context.ts";
import { peerMissing } from "../helpers/peers.ts";
import { scratchPrereqs, startScratchMounts, type ScratchMounts } from "../peers/scratch-mounts.ts";

// Real logrotate on this machine inside a private mount namespace whose /etc, /var/log and /var/lib/logrotate are
// overlays (test/peers/scratch-mounts.ts): the config and logs are planted there; the machine's own are untouched.
const skip = peerMissing("RunLogrotate in a scratch mount namespace", scratchPrereqs() ?? (whichSync("logrotate") === null ? "no logrotate (apt-get install logrotate)" : null));

const CONFIG = "/var/log/hgtest-app.log {\n  rotate 2\n  missingok\n  nocompress\n}\n# /var/log/not-a-log.log in a comment\n\"/var/log/hgtest other.log\" {\n  rotate 1\n  missingok\n}\n";

describe("logPathsOf", () => {
  it("takes the paths before each block, quoted ones included, and skips comments and directives", () => {
    expect(logPathsOf(CONFIG)).toEqual(["/var/log/hgtest-app.log", "/var/log/hgtest other.log"]);
    expect(logPathsOf("/var/log/a.log /var/log/b/*.log\n{\n daily\n postrotate\n  /usr/bin/kill -HUP 1\n endscript\n}\n")).toEqual(["/var/log/a.log", "/var/log/b/*.log"]);
  });
});

describe.skipIf(skip)("RunLogrotate with real logrotate in a scratch namespace", () => {
  let s: ScratchMounts;
  beforeAll(async () => {
    s = await startScratchMounts({ overlays: ["/etc", "/var/log", ...(existsSync("/var/lib/logrotate") ? ["/var/lib/logrotate"] : [])] });
    writeFileSync(s.outside("/etc/logrotate.d/hgtest"), CONFIG);
    writeFileSync(s.outside("/var/log/hgtest-app.log"), "line 1\nline 2\n");
  }, 30_000);
  afterAll(async () => { await s?.stop(); });

  it("previews logrotate -f with each log's size, rotates on apply, and the next preview shows the log emptied", async () => {
    const first = await runLogrotate.preview({ config: "hgtest" }, s.ctx);
    expect(first.summary).toBe("Force logrotate for /etc/logrotate.d/hgtest: 2 log paths");
    expect(first.text).toContain("will run: logrotate -f /etc/logrotate.d/hgtest");
    expect(first.text).toContain("  /var/log/hgtest-app.log (14 bytes)");
    expect(JSON.stringify(await runLogrotate.preview({ config: "hgtest" }, s.ctx))).toBe(JSON.stringify(first));
    const out = await runLogrotate.apply({ config: "hgtest" }, s.ctx, first);
    expect(out).toMatchObject({ changed: true, ran: [{ argv: ["logrotate", "-f", "/etc/logrotate.d/hgtest"], exit_code: 0 }] });
    expect(readFileSync(s.outside("/var/log/hgtest-app.log.1"), "utf8")).toBe("line 1\nline 2\n");
    expect(existsSync("/var/log/hgtest-app.log.1")).toBe(false); // this machine's /var/log is untouched
    const second = await runLogrotate.preview({ config: "hgtest" }, s.ctx);
    expect(second.text).not.toContain("(14 bytes)");
    expect(second.text).toMatch(/\/var\/log\/hgtest-app\.log(\n| \(0 bytes\))/);
  });

  it("refuses a path, a missing config, a symbolic link, and a config that names no log", async () => {
    for (const config of ["../passwd", "/etc/passwd", "-f", ""]) expect(runLogrotate.params.safeParse({ config }).success, config).toBe(false);
    expect(await errorCode(() => runLogrotate.preview({ config: "hg-missing" }, s.ctx))).toBe("not_found");
    symlinkSync("/etc/logrotate.d/hgtest", s.outside("/etc/logrotate.d/hglink"));
    await expect(runLogrotate.preview({ config: "hglink" }, s.ctx)).rejects.toThrow(/is a symbolic link/);
    writeFileSync(s.outside("/etc/logrotate.d/hgempty"), "# nothing\nweekly\n");
    await expect(runLogrotate.preview({ config: "hgempty" }, s.ctx)).rejects.toThrow(/names no log file/);
  });
});
