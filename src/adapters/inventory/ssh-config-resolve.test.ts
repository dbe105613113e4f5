/** The ssh_config resolver against real `ssh -G` on fixtures with Include (glob), wildcard, `?`, negation and Match. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listSshAliases, resolveSshHost, type SshConfigFile } from "./ssh-config-resolve.ts";

const haveSsh = existsSync("/usr/bin/ssh");
if (!haveSsh && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error("ssh client required (apt-get install openssh-client)");
if (!haveSsh) process.stderr.write("SKIPPING ssh -G comparison: no /usr/bin/ssh\n");

let dir: string;
let files: SshConfigFile[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "hg-sshcfg-"));
  mkdirSync(join(dir, "conf.d"));
  writeFileSync(join(dir, "conf.d", "10-db.conf"), "Host db*\n  User dbadmin\n  IdentityFile ~/.ssh/db_key\n");
  writeFileSync(join(dir, "conf.d", "20-web.conf"), "Host web-?? !web-99\n  HostName %h.internal\n  Port 2022\n");
  writeFileSync(join(dir, "conf.d", "ignored.txt"), "Host db*\n  User wrong\n");
  writeFileSync(join(dir, "inner.conf"), "Port 2201\nHost never-listed-inner\n  User inner\n");
  writeFileSync(join(dir, "config"), [
    `Include ${dir}/conf.d/*.conf`,
    "Host lab1 lab2",
    "  HostName %h.example.com",
    "  Port 2200",
    `  Include ${dir}/inner.conf`,
    "Host bastion",
    "  HostName 10.0.0.1",
    "  User jump",
    "Host * !bastion !10.*",
    "  ProxyJump bastion",
    "Match host *.example.com",
    "  IdentityFile ~/.ssh/example_key",
    "Match originalhost lab2 user fallback",
    "  Port 2299",
    "Host *",
    "  User fallback",
    "  IdentityFile /keys/%r@%h",
    "",
  ].join("\n"));
  files = [{ path: join(dir, "config"), kind: "user" }];
});

function sshG(host: string): { hostname: string; user: string; port: number; identity_files: string[]; proxy_jump: string[] } {
  const out = execFileSync("ssh", ["-F", join(dir, "config"), "-G", "--", host], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const lines = out.split("\n").map((l) => l.split(" "));
  const get = (k: string): string[] => lines.filter((l) => l[0] === k).map((l) => l.slice(1).join(" "));
  const pj = get("proxyjump")[0];
  return { hostname: get("hostname")[0]!, user: get("user")[0]!, port: Number(get("port")[0]), identity_files: get("identityfile"), proxy_jump: pj ? pj.split(",") : [] };
}

describe.skipIf(!haveSsh)("ssh_config resolution matches `ssh -G`", () => {
  for (const host of ["lab1", "lab2", "Lab1", "db7", "dbx.example.com", "bastion", "web-01", "web-99", "web-1", "10.1.2.3", "other"]) {
    it(`resolves ${host} as ssh -G does`, () => {
      const mine = resolveSshHost(host, files);
      const theirs = sshG(host);
      // ssh -G prints its built-in identity files when none is configured; every fixture host configures one
      expect({ hostname: mine.hostname, user: mine.user, port: mine.port, identity_files: mine.identity_files, proxy_jump: mine.proxy_jump }).toEqual(theirs);
    });
  }
});

describe("ssh_config inventory listing and safety", () => {
  it("lists concrete aliases only (no wildcard or negated patterns), across Includes, once each", () => {
    const names = listSshAliases(files).map((a) => a.alias).sort();
    expect(names).toEqual(["bastion", "lab1", "lab2", "never-listed-inner"].sort());
  });
  it("never runs Match exec, and says so", () => {
    const marker = join(dir, "match-exec-ran");
    const cfg = join(dir, "exec.conf");
    writeFileSync(cfg, `Match exec "touch ${marker}"\n  User pwned\nHost *\n  User safe\n`);
    const r = resolveSshHost("x", [{ path: cfg, kind: "user" }]);
    expect(existsSync(marker)).toBe(false);
    expect(r.user).toBe("safe");
    expect(r.warnings.join(" ")).toMatch(/Match exec is not evaluated/);
  });
  it("missing files are skipped like ssh does", () => {
    expect(resolveSshHost("h", [{ path: join(dir, "nope"), kind: "user" }])).toMatchObject({ hostname: "h", port: 22, proxy_jump: [] });
  });
});
