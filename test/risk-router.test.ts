import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RiskAssessment } from "../src/core/risk/index.ts";
import { testEngine } from "./support/risk-engine.ts";

/**
 * Issue 19, "The classifier routes": one fast-check property per kind the red team showed rated `low`. Each property
 * generates members of the kind (programs, option spellings, paths, wrappers) and asserts the engine never rates them
 * low (most must reach a human: at least high; destroying ones are denied). Everyday diagnostics stay allow/low.
 */
const engine = await testEngine();
const RUNS = 200;
const LEVEL = { low: 0, medium: 1, high: 2, critical: 3 } as const;
const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const show = (line: string, r: RiskAssessment): string => `${JSON.stringify(line)} → ${r.decision}/${r.risk_level} [${r.signals.map((s) => s.id).join(", ")}]`;

function notLow(line: string): RiskAssessment {
  const r = engine.assess(line);
  expect(r.risk_level, show(line, r)).not.toBe("low");
  return r;
}
function atLeastHigh(line: string): RiskAssessment {
  const r = engine.assess(line);
  expect(r.decision, show(line, r)).not.toBe("allow");
  expect(LEVEL[r.risk_level], show(line, r)).toBeGreaterThanOrEqual(LEVEL.high);
  return r;
}
function denied(line: string): void {
  const r = atLeastHigh(line);
  expect(r.decision, show(line, r)).toBe("deny");
}
function low(line: string): void {
  const r = engine.assess(line);
  expect(`${r.decision}/${r.risk_level}`, show(line, r)).toBe("allow/low");
}

const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** Wrappers and contexts that must not change the verdict. */
const WRAP = pick<(c: string) => string>([(c) => c, (c) => `sudo ${c}`, (c) => `env LANG=C ${c}`, (c) => `timeout 10 ${c}`, (c) => `nice ${c}`,
  (c) => `sh -c ${sq(c)}`, (c) => `echo $(${c})`, (c) => `true && ${c}`, (c) => `( ${c} )`]);
const PROTECTED = ["/etc/cron.d/job", "/root/.ssh/rc", "/root/.ssh/authorized_keys", "/etc/profile.d/x.sh", "/etc/sudoers.d/x", "/home/u/.bashrc", "/etc/ld.so.preload"];
const SECRETS = ["/etc/shadow", "/root/.ssh/id_ed25519", "/etc/ssh/ssh_host_ed25519_key", "/home/u/.ssh/id_rsa", "/etc/gshadow"];

describe("issue 19 kinds (fast-check)", () => {
  it("output-file options of readers write like a redirect (iconv -o, curl --alt-svc/--hsts/-c/-D/--trace, sar -o, updatedb -o, git fast-export marks)", () => {
    const templates = ["iconv -f utf8 -t ascii -o F x.txt", "iconv --output=F x", "curl --alt-svc F https://x.example", "curl --hsts F https://x.example",
      "curl --hst F https://x.example", "curl -c F https://x.example", "curl --cookie-jar=F https://x.example", "curl -D F https://x.example", "curl --dump-header F https://x.example",
      "curl --trace F https://x.example", "curl --trace-ascii F https://x.example", "curl --libcurl F https://x.example", "curl --etag-save F https://x.example", "sar -o F 1 1",
      "updatedb -o F", "updatedb --output=F", "git fast-export --export-marks=F HEAD", "git fast-export --export-marks F --all", "git fast-import --export-marks=F"];
    fc.assert(fc.property(pick(templates), pick(PROTECTED), WRAP, (t, f, w) => { denied(w(t.replace("F", f))); }), { numRuns: RUNS });
  });

  it("code-loading options are at least high (--engine, -config, -provider, pidstat -e, git --git-dir/--work-tree, watch -x, npx -c, npm exec --call, wget --use-askpass)", () => {
    const templates = ["curl --engine P https://x.example", "curl --eng P https://x.example", "openssl req -config P -new", "openssl x509 -provider P -in c.pem", "openssl s_client -engine P -connect a:443",
      "openssl req -provider-path P -new", "pidstat -e P", "git --git-dir=P status", "git --git-dir P log", "git --work-tree=P status", "git --work-tree P diff",
      "wget --use-askpass=P https://x.example/", "wget --use-askpass P https://x.example/", "npx -c P", "npx --call=P", "npm exec --call=P", "npm exec -c P", "npm x -c P"];
    fc.assert(fc.property(pick(templates), pick(["/tmp/x.so", "./evil", "/home/u/r/.git", "/tmp/e.cnf", "x"]), WRAP, (t, p, w) => { atLeastHigh(w(t.replace("P", p))); }), { numRuns: RUNS });
    // A command line in such a value is judged as the command it is.
    fc.assert(fc.property(pick(["watch -x sh -c C", "watch --exec sh -c C", "watch -n 1 -x sh -c C", "npx -c C", "npm exec --call=C", "npx --call C"]),
      pick(["'rm -rf /srv'", "'mkfs.ext4 /dev/sda1'", "'dd if=/dev/zero of=/dev/sda'"]), (t, c) => { denied(t.replace("C", c)); }), { numRuns: 100 });
    fc.assert(fc.property(pick(["dc -e '!C'", "echo '!C' | dc", "dc <<< '!C'", "printf '1 p\\n!C\\n' | dc", "echo '[!C]x' | dc"]), pick(["rm -rf /srv", "mkfs.ext4 /dev/sda1"]),
      (t, c) => { denied(t.replace("C", c)); }), { numRuns: 60 });
    for (const s of ["dc -e '!id'", "echo '!id' | dc", "dc script.dc", "curl -s https://x.example | dc"]) atLeastHigh(s);
  });

  it("assignments to PATH, LD_* and friends from read, printf -v, mapfile, export $(…), declare", () => {
    const forms = ["read V < /tmp/f", "read -r V < /tmp/f", "IFS= read -r V <<< \"$x\"", "cat /tmp/f | { read V; ls; }", "printf -v V %s /tmp/x", "printf -vV %s x",
      "mapfile -t V < f", "readarray V < f", "declare V=/tmp/x", "declare -x V=/tmp/x", "export V=/tmp/x", "typeset V=x", "local V=x"];
    fc.assert(fc.property(pick(forms), pick(["PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "GCONV_PATH", "PAGER", "GLIBC_TUNABLES", "PROMPT_COMMAND"]), (f, v) => {
      atLeastHigh(f.replace(/V/g, v));
    }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["export $(cat F)", "export $(grep -v '^#' F | xargs)", "declare \"$(cat F)\"", "export \"$kv\"", "declare $x"]), pick(["/tmp/env", ".env", "x"]), (t, f) => {
      atLeastHigh(t.replace("F", f));
    }), { numRuns: 60 });
  });

  it("bash's ${var@P} runs the command substitutions in the value", () => {
    fc.assert(fc.property(pick(["rm -rf /srv", "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda"]), pick(["p", "PS", "x1"]), pick(["echo \"${V@P}\"", "printf %s ${V@P}", "x=\"${V@P}\""]),
      (c, v, use) => { denied(`${v}='$(${c})'; ${use.replace("V", v)}`); }), { numRuns: 100 });
    fc.assert(fc.property(pick(["echo \"${x@P}\"", "echo ${PS1@P}", "printf %s \"${a[1]@P}\"", "cat \"${f@P}\""]), (l) => { atLeastHigh(l); }), { numRuns: 20 });
  });

  it("path aliases (/proc/*/root, /proc/*/cwd, ..) are resolved before matching", () => {
    const alias = pick<(p: string) => string>([(p) => `/proc/self/root${p}`, (p) => `/proc/1/root${p}`, (p) => `/proc/$$/root${p}`, (p) => `/proc/thread-self/root${p}`,
      (p) => `/proc/self/task/1/root${p}`, (p) => `/proc/self/cwd/../../../..${p}`, (p) => `/proc/1/cwd/..${p}`, (p) => `/tmp/..${p}`, (p) => `/var/log/../..${p}`,
      (p) => `/proc/self/root/proc/1/root${p}`, (p) => `//proc//self//root/${p}`]);
    fc.assert(fc.property(pick(["cat", "head -n 5", "base64", "xxd", "strings", "grep root", "tail"]), alias, pick(SECRETS), WRAP, (r, a, s, w) => { atLeastHigh(w(`${r} ${a(s)}`)); }),
      { numRuns: RUNS });
    fc.assert(fc.property(alias, pick(["/etc/cron.d/x", "/root/.ssh/authorized_keys"]), (a, f) => { denied(`echo x > ${a(f)}`); }), { numRuns: 60 });
    atLeastHigh("/proc/self/root/usr/bin/ls");
  });

  it("per-verb tables: parted, sgdisk, fdisk/sfdisk/gdisk and dpkg are read-only only with read verbs", () => {
    fc.assert(fc.property(pick(["", "-s ", "--script ", "-m ", "-s -a optimal ", "--align=none -s "]), pick(["rm 1", "mklabel gpt", "mkpart primary 1MiB 100%", "resizepart 1 50%", "name 1 x",
      "set 1 boot on", "toggle 1 esp", "rescue 0 100%", "print rm 1", "p rm 1", "unit s rm 1", "mkl gpt", "res 1 2", ""]), pick(["/dev/sda", "/dev/nvme0n1", "/dev/vdb"]), WRAP, (o, c, d, w) => {
      denied(w(`parted ${o}${d} ${c}`.trim()));
    }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["-d 1", "--delete=1", "-Z", "--zap-all", "-o", "--clear", "-n 1:0:0", "-t 1:8300", "-c 1:x", "-p -d 1", "-pd 1", "-x 1:2", "-g", "-R /dev/sdb", "--frob"]),
      pick(["/dev/sda", "/dev/nvme0n1"]), WRAP, (o, d, w) => { denied(w(`sgdisk ${o} ${d}`)); }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["--add-architecture i386", "--remove-architecture i386", "--set-selections", "--clear-selections", "--configure -a", "-i x.deb", "--install x.deb",
      "-r nginx", "-P nginx", "--purge nginx", "--unpack x.deb", "--update-avail f", "--merge-avail f", "--clear-avail", "-x x.deb /", "-Ri /tmp/d", "--triggers-only -a", "--forget-old-unavail", "--frob"]),
    pick(["", "--force-all ", "--root=/ ", "--admindir=/var/lib/dpkg "]), WRAP, (a, o, w) => { atLeastHigh(w(`dpkg ${o}${a}`)); }), { numRuns: RUNS });
    for (const ok of ["parted /dev/sda print", "parted -l", "parted -s /dev/sda unit s print free", "parted -m /dev/sda p", "sgdisk -p /dev/sda", "sgdisk --print /dev/nvme0n1", "sgdisk -i 1 /dev/sda",
      "fdisk -l", "fdisk -l /dev/sda", "sfdisk -d /dev/sda", "gdisk -l /dev/sda", "dpkg -l", "dpkg -L bash", "dpkg -S /bin/ls", "dpkg --print-architecture", "dpkg -s openssl"]) {
      expect(engine.assess(ok).decision, ok).toBe("allow");
    }
  });

  it("curl/wget: methods other than GET/HEAD, request bodies, Unix sockets and non-HTTP schemes are at least high", () => {
    const forms = ["curl -X M U", "curl -XM U", "curl --request M U", "curl --request=M U", "curl -s -X M -H 'Content-Type: application/json' U", "wget --method=M U", "wget --method M U"];
    fc.assert(fc.property(pick(forms), pick(["POST", "PUT", "DELETE", "PATCH", "post", "OPTIONS", "$M"]), pick(["http://127.0.0.1:2375/containers/create", "http://localhost:10250/run/x", "https://api.example/v1/x"]),
      WRAP, (f, m, u, w) => { atLeastHigh(w(f.replace("M", m).replace("U", u))); }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["curl -d a=b U", "curl --data-raw x U", "curl --json '{}' U", "curl -F a=b U", "curl --form-string a=b U", "curl -T f U", "wget --post-data=a=b U",
      "wget --body-data x --method=PUT U", "curl --data-urlencode a=b U"]), pick(["http://127.0.0.1:2375/x", "https://x.example/"]), (f, u) => { atLeastHigh(f.replace("U", u)); }), { numRuns: 100 });
    fc.assert(fc.property(pick(["curl --unix-socket S http://x/containers/json", "curl --unix-socket=S http://localhost/v1.41/info", "curl --abstract-unix-socket S http://x/"]),
      pick(["/var/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock", "x"]), (f, s) => { atLeastHigh(f.replace("S", s)); }), { numRuns: 60 });
    fc.assert(fc.property(pick(["curl", "curl -s", "curl -o out", "wget -q", "wget -O -"]), pick(["file:///etc/hosts", "gopher://127.0.0.1:6379/_FLUSHALL", "dict://127.0.0.1:11211/stat", "ftp://x.example/f",
      "telnet://127.0.0.1:25", "ldap://x/", "smtp://127.0.0.1", "ftps://x/y", "FILE:///etc/hosts", "tftp://x/f", "ftp.example.com/f"]), (c, u) => { atLeastHigh(`${c} ${u}`); }), { numRuns: 100 });
    for (const ok of ["curl -sI http://127.0.0.1:8080/health", "curl -X GET http://x.example", "curl -X HEAD -s http://x", "curl -G -d q=1 https://x.example/search", "curl -s https://example.com"]) {
      expect(engine.assess(ok).decision, ok).toBe("allow");
    }
  });

  it("recursive readers of /home, /root, /var/lib, /var/backups are high; of /etc not low", () => {
    fc.assert(fc.property(pick(["grep -r x", "grep -rn pass", "grep -R key", "grep -ril token", "grep --recursive x", "egrep -r x", "rg pass", "rg -i key", "ag secret", "diff -r /tmp/a"]),
      pick(["/home", "/home/alice", "/root", "/root/.config", "/var/lib", "/var/lib/mysql", "/var/backups", "/", "/var", "~", "/home/"]), WRAP, (r, t, w) => { atLeastHigh(w(`${r} ${t}`)); }),
    { numRuns: RUNS });
    fc.assert(fc.property(pick(["grep -r x", "grep -rn root", "rg pass", "grep -R listen"]), pick(["/etc", "/etc/", "/etc/nginx", "/etc/ssh"]), (r, t) => { notLow(`${r} ${t}`); }), { numRuns: 60 });
  });

  it("recursive listers and archivers of /home, /root, /var/lib, /var/backups, /etc are not low; one level or a summary stays low", () => {
    const TREES = ["/home", "/home/alice", "/root", "/root/.config", "/var/lib", "/var/lib/mysql", "/var/backups", "/", "/var", "/etc", "/etc/ssh", "/home/"];
    fc.assert(fc.property(pick(["ls -R", "ls -laR", "ls -Rl", "ls --recursive", "find", "find -L", "du", "du -a", "du -ah", "du -d 3", "du --max-depth=2", "tree", "tree -a"]),
      pick(TREES), pick(["", " -type f", " -name '*.key'"]), WRAP, (l, t, tail, w) => { notLow(w(`${l} ${t}${l.startsWith("find") ? tail : ""}`)); }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["tar cf -", "tar -czf /tmp/a.tgz", "tar --create -f -", "tar cvf /tmp/x.tar", "zip -r /tmp/a.zip"]),
      pick(TREES.filter((t) => !t.startsWith("/etc"))), WRAP, (a, t, w) => { atLeastHigh(w(`${a} ${t}`)); }), { numRuns: RUNS });
    for (const ok of ["ls -la /root", "ls /home", "du -sh /var/lib/docker", "du -sh /home/*", "du -h --max-depth=1 /var/lib", "find /home -maxdepth 1 -type d", "tree -L 1 /home",
      "find /var/log -name '*.gz' -mtime +30", "ls -R ./src", "find . -name '*.py'"]) {
      low(ok);
    }
  });

  it("rpm macro expressions are code: --eval, --define (any spelling) are at least high", () => {
    fc.assert(fc.property(pick(["rpm --eval X", "rpm -E X", "rpm --eval=X", "rpm --ev X", "rpm -qa --eval X", "rpm -D X -qa", "rpm --define=X -q bash", "rpm --define X -qi bash"]),
      pick(["%_libdir", "'%(id)'", "'%{lua: os.execute(\"id\")}'", "'%{lua:print(1)}'", "\"$M\""]), WRAP, (t, e, w) => { atLeastHigh(w(t.replace("X", e))); }), { numRuns: RUNS });
    for (const ok of ["rpm -qa", "rpm -qi bash", "rpm -qf /etc/hosts"]) low(ok);
  });

  it("operands from another command, a file or a variable are not low", () => {
    const readers = ["cat", "head", "tail", "less", "wc -l", "grep x", "sort", "stat", "md5sum", "file", "ls -la", "du -sh", "cut -d: -f1"];
    const sources = [(r: string) => `xargs ${r} < /tmp/list`, (r: string) => `cat /tmp/list | xargs ${r}`, (r: string) => `find / -name x | xargs ${r}`, (r: string) => `${r} $(cat /tmp/list)`,
      (r: string) => `${r} "$F"`, (r: string) => `${r} $HOME/x`, (r: string) => `read f < list; ${r} "$f"`, (r: string) => `${r} \`cat list\``, (r: string) => `for f in $(cat l); do ${r} "$f"; done`];
    fc.assert(fc.property(pick(readers), pick(sources), (r, s) => { notLow(s(r)); }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["awk '{getline l < $1; print l}' f", "awk -v f=\"$F\" 'BEGIN{getline x < f}'", "sed \"r $F\" x"]), (l) => { notLow(l); }), { numRuns: 20 });
  });

  it("options not on a read-only program's allow-list are not low", () => {
    fc.assert(fc.property(pick(["journalctl", "uptime", "lsblk", "findmnt", "dmesg", "pgrep", "stat", "readlink", "who", "blkid", "ip", "curl", "git log", "git status", "openssl x509", "top",
      "lscpu", "column", "jq", "uname", "id", "sed", "awk", "docker ps", "kubectl get pods", "dpkg-query", "base64", "zcat", "systemd-analyze", "busctl"]), pick(["--zz-frob", "--no-such=1", "-@", "--upload-pack=x"]),
    (p, o) => { notLow(`${p} ${o} x`); }), { numRuns: RUNS });
  });

  it("the red team's other low probes are no longer low", () => {
    for (const l of ["sed 'r /etc/shadow' /dev/null", "sed -n '1r /root/.ssh/id_rsa' x", "awk 'BEGIN{while((getline l < \"/etc/shadow\")>0) print l}'", "git diff --no-index /dev/null /etc/shadow",
      "grep -r . /root/.ssh", "grep -r PRIVATE /home", "curl -X POST http://127.0.0.1:2375/containers/create", "dpkg --add-architecture i386", "openssl req -config /tmp/x.cnf -new",
      "echo '!id' | dc", "cat /proc/self/root/etc/shadow", "iconv -o /root/.ssh/rc x", "curl --alt-svc /etc/cron.d/x https://x.example", "pidstat -e /tmp/x",
      "git --git-dir=/tmp/evil/.git status", "read PATH < /tmp/f", "printf -v LD_PRELOAD %s /tmp/x.so", "export $(cat /tmp/env)", "parted -s /dev/sda rm 1", "sgdisk -d 1 /dev/sda",
      "curl --unix-socket /var/run/docker.sock http://x/containers/json"]) atLeastHigh(l);
    notLow("xargs cat < /tmp/list");
  });
});

describe("issue 19 re-trial: cd into a secret tree, and assignments that redirect a client", () => {
  // (grep over a history file is judged by its pattern: docs/risk.md; so it is not among these readers.)
  const READERS = ["cat", "head -n 5", "tail", "less", "base64", "xxd", "strings", "od -c", "sed -n p", "awk 1", "cp -t /tmp", "tar cf - "];
  const CDS = pick<(dir: string) => string>([(d) => `cd ${d} && `, (d) => `cd ${d}; `, (d) => `pushd ${d} >/dev/null && `, (d) => `cd -P ${d} && `, (d) => `cd "${d}" && `]);

  it("a relative operand or glob after a literal cd is judged in that directory: /proc/PID's environ, home dotfiles, /etc/shadow", () => {
    // [directory, relative operand] pairs whose join is a secret file.
    const pairs: [string, string][] = [["/proc/1234", "env*"], ["/proc/1234", "environ"], ["/proc/1234", "./e?viron"], ["/proc/self", "en*"], ["/proc/1234", "*"], ["/proc/1234/task/1235", "env*"],
      ["/proc", "1234/env*"], ["/proc", "*/environ"], ["~", ".e*"], ["~", ".env"], ["~", ".bash_h*"], ["~", ".*history"], ["/home/bob", ".netr?"], ["/home/bob", ".git-cred*"],
      ["/root", ".vault-t*"], ["/srv/app", ".env*"], ["/etc", "sha*"], ["/etc", "gsh?dow"], ["/etc/ssh", "ssh_host_*_key"], ["/root/.ssh", "id_*[a-z0-9]"], ["~/.aws", "cred*"]];
    fc.assert(fc.property(pick(pairs), pick(READERS), CDS, WRAP, ([d, f], r, cd, w) => { atLeastHigh(w(`${cd(d)}${r} ${f}`)); }), { numRuns: RUNS });
    // The same files named directly, and a recursive reader of the process directory.
    fc.assert(fc.property(pick(pairs), pick(READERS), ([d, f], r) => { atLeastHigh(`${r} ${d}/${f}`); }), { numRuns: 100 });
    fc.assert(fc.property(pick(["grep -r . .", "grep -ra x .", "tar cf - .", "cp -r . /tmp/x"]), pick(["/proc/1234", "/proc/self", "/proc/1/task/1"]), (r, d) => { atLeastHigh(`cd ${d} && ${r}`); atLeastHigh(r.replace(/ \.( |$)/, ` ${d}$1`)); }), { numRuns: 40 });
  });

  it("a relative operand after cd to a directory built at run time is judged below its glob form (cd /proc/$PID && cat environ)", () => {
    fc.assert(fc.property(pick(["/proc/$PID", "/proc/$(pgrep sshd)", "/proc/${P}", "/proc/`pidof x`", "/home/$U"]), pick(["environ", "env*", ".bash_history", "mem"]), pick(READERS), (d, f, r) => {
      const line = `cd ${d} && ${r} ${f}`;
      const secret = d.startsWith("/proc") ? f !== ".bash_history" : f === ".bash_history";
      if (secret) atLeastHigh(line);
    }), { numRuns: RUNS });
  });

  it("near misses stay low: cd itself reads nothing, other /proc files, globs that cannot reach a secret, dotglob off", () => {
    for (const l of ["cd /proc/1234 && cat status", "cd /proc/1234 && cat stat*", "cd /proc/$PID && cat status", "cd ~/.ssh", "cd /proc/1234", "cd ~/.ssh && cat *.pub", "cd /srv/app && cat *",
      "cd /var/log/nginx && tail -n 50 *", "cat /etc/nginx/*", "cd /tmp && cat *.log", "cd \"${WORKSPACE}backend\" && ls", "cd /srv/$APP && cat config.yml", "ls /proc/1234/env*"]) low(l);
  });

  it("an assignment that points a client at another endpoint, socket or configuration is not low, however it is set", () => {
    const VARS = ["DOCKER_HOST=unix:///tmp/x.sock", "DOCKER_HOST=tcp://10.0.0.5:2375", "DOCKER_CONFIG=/tmp/d", "CONTAINER_HOST=unix:///run/podman/podman.sock", "CONTAINERS_CONF=/tmp/c.conf",
      "KUBECONFIG=/tmp/k", "SSH_AUTH_SOCK=/tmp/agent.sock", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/b", "CONTAINER_RUNTIME_ENDPOINT=unix:///x", "CONTAINERD_ADDRESS=/x", "XDG_RUNTIME_DIR=/run/user/0",
      "LIBVIRT_DEFAULT_URI=qemu:///system", "BUILDKIT_HOST=unix:///x"];
    const CLIENTS = ["docker ps", "docker images", "podman ps", "kubectl get pods", "ssh-add -l", "systemctl status nginx", "crictl ps", "ctr containers ls", "virsh list", "busctl list"];
    const HOW = pick<(v: string, c: string) => string>([(v, c) => `${v} ${c}`, (v, c) => `env ${v} ${c}`, (v, c) => `export ${v}; ${c}`, (v, c) => `${v}; ${c}`, (v, c) => `declare -x ${v}; ${c}`,
      (v, c) => `export ${v} && ${c}`, (v, c) => `${v.split("=")[0]!}=$(cat /tmp/f) ${c}`]);
    const CWRAP = pick<(c: string) => string>([(c) => c, (c) => `timeout 10 ${c}`, (c) => `nice ${c}`, (c) => `command ${c}`]);
    fc.assert(fc.property(pick(VARS), pick(CLIENTS), HOW, CWRAP, (v, c, how, w) => { notLow(how(v, w(c))); }), { numRuns: RUNS });
    fc.assert(fc.property(pick(VARS), pick(CLIENTS), pick([(x: string) => `sh -c ${sq(x)}`, (x: string) => `( ${x} )`, (x: string) => `echo $(${x})`, (x: string) => `true && ${x}`]), (v, c, w) => { notLow(w(`${v} ${c}`)); }), { numRuns: 100 });
    fc.assert(fc.property(pick(["DOCKER_HOST", "KUBECONFIG", "SSH_AUTH_SOCK", "CONTAINER_HOST"]), (n) => { notLow(`read -r ${n} < /tmp/f; docker ps`); notLow(`printf -v ${n} %s /tmp/x; kubectl get pods`); }), { numRuns: 20 });
    // The env forms of code-loading git options are high like the options (git --git-dir is).
    fc.assert(fc.property(pick(["GIT_DIR=/tmp/evil/.git", "GIT_WORK_TREE=/", "GIT_COMMON_DIR=/tmp/e"]), pick(["git status", "git log -1", "git diff"]), HOW, (v, c, how) => { atLeastHigh(how(v, c)); }), { numRuns: 60 });
    for (const l of ["docker ps", "LANG=C docker ps", "DOCKER_CONTEXT=prod docker ps", "kubectl get pods -A", "echo \"$DOCKER_HOST\"", "printenv KUBECONFIG", "FOO=1 podman ps"]) low(l);
  });
});

describe("everyday diagnostics stay allow/low", () => {
  for (const l of ["df -h", "free -m", "ss -ltnp", "ps aux", "journalctl -u nginx --since today", "systemctl status nginx", "du -sh /var/lib/docker", "grep -r error /var/log/nginx",
    "curl -sI http://127.0.0.1:8080/health", "journalctl -u sshd -n 50 --no-pager", "git log --oneline -20", "git diff $(git merge-base main HEAD)", "lsblk -o NAME,FSTYPE,SIZE,MOUNTPOINT",
    "ip -br link", "find /var/log -name '*.gz' -mtime +30", "openssl x509 -noout -subject -enddate -in /etc/ssl/certs/ssl-cert-snakeoil.pem", "dpkg -l", "uptime -p", "echo \"$HOME\" && pwd"]) {
    it(l, () => { low(l); });
  }
});
