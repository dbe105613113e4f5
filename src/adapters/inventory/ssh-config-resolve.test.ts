/** The ssh_config resolver against real `ssh -G` on fixtures with Include (glob), wildcard, `?`, negation and Match. */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listSshAliases, listSshConfig, resolveSshHost, type SshConfigFile } from "./ssh-config-resolve.ts";

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

describe("what hostgate will not do silently with an ssh config (issue 21)", () => {
  const write = (name: string, text: string): SshConfigFile[] => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return [{ path: f, kind: "user" }];
  };

  it("T3-07: ProxyCommand is an error for that host (never a direct dial); ProxyJump first wins as in ssh; ProxyCommand none is none", () => {
    const f = write("proxy.conf", [
      "Host behind-bastion", "  HostName 127.0.0.1", "  ProxyCommand ssh -W %h:%p bastion.example.com",
      "Host jump-first", "  ProxyJump bastion", "  ProxyCommand ssh -W %h:%p other",
      "Host cmd-first", "  ProxyCommand ssh -W %h:%p other", "Host cmd-first", "  ProxyJump bastion",
      "Host no-proxy", "  ProxyCommand none", "Host plain", "  HostName 127.0.0.2", "",
    ].join("\n"));
    expect(resolveSshHost("behind-bastion", f).errors).toEqual([expect.stringContaining("ProxyCommand is not supported, use ProxyJump")]);
    expect(resolveSshHost("jump-first", f)).toMatchObject({ proxy_jump: ["bastion"], errors: [] });
    expect(resolveSshHost("cmd-first", f)).toMatchObject({ proxy_jump: [], errors: [expect.stringContaining("ProxyCommand is not supported")] });
    expect(resolveSshHost("no-proxy", f).errors).toEqual([]);
    expect(resolveSshHost("plain", f).errors).toEqual([]);
    if (haveSsh) {
      // ssh itself would use the ProxyCommand for these two and the ProxyJump for jump-first
      const g = (h: string): string => execFileSync("ssh", ["-F", f[0]!.path, "-G", "--", h], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      expect(g("behind-bastion")).toMatch(/^proxycommand ssh -W/m);
      expect(g("cmd-first")).toMatch(/^proxycommand ssh -W/m);
      expect(g("jump-first")).toMatch(/^proxyjump bastion/m);
    }
  });

  it("T3-08: host-key options in the config are reported as not honoured (they never relax checking)", () => {
    const f = write("lax.conf", "Host lax\n  HostName localhost\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n");
    const r = resolveSshHost("lax", f);
    expect(r.errors).toEqual([]);
    expect(r.warnings.join("\n")).toMatch(/StrictHostKeyChecking is not honoured/);
    expect(r.warnings.join("\n")).toMatch(/UserKnownHostsFile is not honoured/);
  });

  it("# hostgate: tags= comments tag the hosts of their block (accumulating); a malformed one is an error for those hosts only", () => {
    const f = write("tags.conf", [
      "Host web1 web2", "  # hostgate: tags=prod,web", "  HostName 10.0.0.1",
      "Host web2", "  #hostgate: tags = pci",
      "Host typo", "  # hostgate: tag=prod",
      "Host badtag", "  # hostgate: tags=prod,$(id)",
      "Host plain", "  # an ordinary comment", "  User x", "",
    ].join("\n"));
    expect(resolveSshHost("web1", f)).toMatchObject({ tags: ["prod", "web"], errors: [] });
    expect(resolveSshHost("web2", f)).toMatchObject({ tags: ["prod", "web", "pci"], errors: [] });
    expect(resolveSshHost("typo", f).errors).toEqual([expect.stringContaining("is not \"# hostgate: tags=a,b\"")]);
    expect(resolveSshHost("badtag", f).errors).toEqual([expect.stringContaining("tags are letters, digits")]);
    expect(resolveSshHost("plain", f)).toMatchObject({ tags: [], errors: [] });
  });

  it("an unparsable Include fails only the hosts whose resolution reaches it, with the file named; listing goes on", () => {
    writeFileSync(join(dir, "broken.inc"), 'Host inner-broken\n  User "unterminated\n');
    writeFileSync(join(dir, "fine.inc"), "Host inner-fine\n  User fine\n");
    const f = write("inc.conf", [
      `Include ${dir}/fine.inc`,
      "Host web*", `  Include ${dir}/broken.inc`,
      "Host web1 db1", "  HostName 10.0.0.9", "",
    ].join("\n"));
    expect(resolveSshHost("web1", f).errors).toEqual([expect.stringMatching(/Include .*broken\.inc .*cannot be used: Unexpected line break/)]);
    expect(resolveSshHost("db1", f)).toMatchObject({ hostname: "10.0.0.9", errors: [] });
    expect(resolveSshHost("inner-fine", f)).toMatchObject({ user: "fine", errors: [] });
    const listed = listSshConfig(f);
    expect(listed.aliases.map((a) => a.alias).sort()).toEqual(["db1", "inner-fine", "web1"]);
    expect(listed.problems).toEqual([expect.stringContaining("broken.inc")]);
  });

  it("a top-level file that does not parse is an error for every host (each one reaches it), and listing it throws", () => {
    const f = write("toplevel-broken.conf", 'Host a\n  User "x\n');
    expect(resolveSshHost("a", f).errors).toEqual([expect.stringContaining("toplevel-broken.conf cannot be used")]);
    expect(() => listSshConfig(f)).toThrow(/Unexpected line break/);
  });
});
