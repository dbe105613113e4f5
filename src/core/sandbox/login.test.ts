import { describe, expect, it } from "vitest";
import { chooseSandbox, parseProbe } from "./confine.ts";
import { hiddenHomes, hideableHome, loginRefusal } from "./login.ts";

const base = "hostgate-probe:uid=4252\nhostgate-probe:arch=x86_64\nhostgate-probe:has=bwrap:/usr/bin/bwrap\n";

describe("the login's homes and groups (issue 19, non-root logins)", () => {
  it("parses the login's gids without the primary one, named by id -Gn's order; unnamed or mismatched lists keep numbers", () => {
    const f = parseProbe(`${base}hostgate-probe:gid=4252\nhostgate-probe:groups=4252 4300 4\nhostgate-probe:group_names=hgdeploy hgsock adm\n`);
    expect(f.login_groups).toEqual([{ gid: 4300, name: "hgsock" }, { gid: 4, name: "adm" }]);
    const g = parseProbe(`${base}hostgate-probe:gid=4252\nhostgate-probe:groups=4252 4300\nhostgate-probe:group_names=hgdeploy\n`);
    expect(g.login_groups).toEqual([{ gid: 4300, name: "4300" }]);
  });

  it("homes: system directories are never hidden; nested and already-hidden ones are dropped", () => {
    for (const bad of ["/", "/srv", "/var/lib", "/usr/local/x", "/etc/foo", "relative", "/a/../b"]) expect(hideableHome(bad), bad).toBe(false);
    for (const ok of ["/srv/svc", "/var/lib/postgresql", "/opt/app/home"]) expect(hideableHome(ok), ok).toBe(true);
    const f = parseProbe(`${base}hostgate-probe:home=/srv/svc\nhostgate-probe:passwd_home=/srv/svc/\nhostgate-probe:user_home=/srv/svc/sub\nhostgate-probe:user_home=/var/www\nhostgate-probe:user_home=/home/alice\nhostgate-probe:user_home=/usr/games\n`);
    expect(hiddenHomes(f, ["/home", "/root"])).toEqual(["/srv/svc", "/var/www"]);
  });

  it("a non-root login in a group other than the log readers' has no sandbox unless accepted; through sudo it has", () => {
    const f = parseProbe(`${base}hostgate-probe:gid=4252\nhostgate-probe:groups=4252 4300 4\nhostgate-probe:group_names=hgdeploy docker adm\n`);
    expect(chooseSandbox(f).mechanism).toBeNull();
    expect(chooseSandbox(f).summary).toMatch(/supplementary group docker \(gid 4300\)/);
    expect(chooseSandbox(f, {}, { accept_login_groups: ["docker"] }).mechanism).toBe("bwrap");
    expect(loginRefusal({ ...f, via_sudo: { login_uid: 4252, login_homes: [] } }, ["adm"], [])).toBeNull();
  });

  it("a non-root login whose home is a system directory has no sandbox (its files would stay readable)", () => {
    const f = parseProbe(`${base}hostgate-probe:home=/\n`);
    expect(chooseSandbox(f).mechanism).toBeNull();
    expect(chooseSandbox(f).summary).toMatch(/home \/ is a system directory/);
  });
});
