import type { Cmd } from "../command.ts";
import { optionSignal, optionValues, programOf } from "../programs/index.ts";
import { execSettings } from "../programs/settings.ts";
import { parseOptions } from "../options.ts";
import type { Rule } from "../rule.ts";
import { WRAPPERS } from "../wrappers.ts";

/** Values that are a program or a command line: option values, and strace/ltrace `-o '|cmd'` outputs. */
export function programValues(cmd: Cmd): string[] {
  return [
    ...execSettings(cmd).map((a) => a.text || "(setting)"),
    ...optionValues(cmd, "program").map((a) => a.text),
    ...optionValues(cmd, "command").map((a) => a.text),
    ...optionValues(cmd, "writes").filter((a) => /^[|!]/.test(a.text)).map((a) => a.text.slice(1)),
    ...pagerCommands(cmd),
    ...systemdRun(cmd).props.filter((p) => /^Exec[A-Za-z]*=/.test(p)).map((p) => p.slice(p.indexOf("=") + 1)),
  ];
}

/** less/more `+CMD` start-up commands that reach a shell: `!cmd` runs it, `|…cmd` pipes to it (less(1) "Commands"). */
function pagerCommands(cmd: Cmd): string[] {
  if (cmd.name !== "less" && cmd.name !== "more" && cmd.name !== "most") return [];
  return cmd.args.filter((a) => /^(\+|--\+|-\+)/.test(a.text) && /[!|]/.test(a.text)).map((a) => a.text.replace(/^[-+]+[^!|]*[!|]/, ""));
}

/**
 * systemd-run's own settings (systemd-run(1)): `-p|--property=Exec…=` names more programs the unit runs as its user
 * (root by default), `-E|--setenv=` sets their environment, and timer options (`--on-calendar`, `--on-boot`…)
 * schedule the command instead of running it now.
 */
export function systemdRun(cmd: Cmd): { props: string[]; env: string[]; timer: boolean } {
  if (cmd.name !== "systemd-run") return { props: [], env: [], timer: false };
  const p = parseOptions(cmd.args, WRAPPERS["systemd-run"]!.options);
  const props = [...(p.flags.get("-p") ?? []), ...(p.flags.get("--property") ?? [])];
  const env = [...(p.flags.get("-E") ?? []), ...(p.flags.get("--setenv") ?? [])];
  const timer = cmd.args.some((a) => /^--on-(calendar|active|boot|startup|unit-active|unit-inactive|timezone-change|clock-change)(=|$)/.test(a.text) || a.text === "--path-property" || a.text.startsWith("--timer-property"));
  return { props, env, timer };
}

/**
 * What a program's options do, read with its option table (programs/table.ts): options the table does not know,
 * options whose value is a program or a command, values that smuggle options into another program, options that
 * load more options from a file, and options that change host state from tools that otherwise only read.
 */
export const OPTION_RULES: readonly Rule[] = [
  {
    id: "unknown_option", severity: "medium",
    reason: "an option this program's table does not know (or one only known at run time); what it does was not checked",
    commands: ["*"],
    test: (cmd) => (programOf(cmd)?.unknown.length ?? 0) > 0,
    examples: { match: ["sort --frobnicate x", "ls -la --no-such-option", "sort $OPTS big.txt", "df --frob /"], noMatch: ["sort -u x", "ls -la /etc", "ss -ltnp", "sort -rn --key=2"] },
  },
  {
    id: "option_runs_program", severity: "high",
    reason: "an option whose value is a program or a command line the tool runs (dynamic code)",
    commands: ["*"],
    test: (cmd) => programValues(cmd).length > 0,
    examples: {
      match: ["sort --compress-program=./x.sh -S1b big.txt", "sort --compress-prog=sh -S1b big.txt", "zip x.zip f -T -TT 'cmd'", "split -b1 --filter='sh' payload",
        "rsync -e 'sh -c id' a b:", "strace -o '|sh' true", "tcpdump -i eth0 -w x.pcap -z ./rotate.sh", "install --strip-program=./x a /usr/local/bin/a",
        "git archive --remote=x --exec='sh -c id' HEAD", "scp -S ./prog f host:",
        "scp -o ProxyCommand='sh -c id' host:/x ./", "scp -oProxyCommand=x host:/x .", "apt-get -o APT::Update::Pre-Invoke::=id update", "apt -o 'DPkg::Post-Invoke::=sh -c id' install nginx",
        "less '+!id' /etc/hosts", "less +'|id' x", "more '+!id' x", "systemd-run -p ExecStartPre=/tmp/x true", "systemd-run --property=ExecStopPost=/tmp/x true"],
      noMatch: ["sort -o out.txt in.txt", "zip -r site.zip site", "split -l 1000 big.txt part-", "rsync -av ./a ./b", "scp -o ConnectTimeout=5 host:/x .", "apt-get -o Dpkg::Use-Pty=0 install -y nginx", "less +F /var/log/syslog", "less +G x", "systemd-run -p MemoryMax=1G --scope make"],
    },
  },
  {
    id: "option_loads_code", severity: "high",
    reason: "an option that makes the program load code from a file (a crypto engine or provider, a config that names modules, a repository whose config names programs)",
    commands: ["*"],
    test: (cmd) => optionValues(cmd, "loads").length > 0,
    examples: {
      match: ["curl --engine /tmp/x.so https://x.example", "openssl req -config /tmp/x.cnf -new", "openssl x509 -provider /tmp/p -in c.pem", "openssl s_client -engine foo -connect a:443",
        "git --git-dir=/tmp/evil/.git status", "git --work-tree=/tmp/x status", "sudo git --git-dir /home/u/r/.git log"],
      noMatch: ["curl -s https://x.example", "openssl x509 -in c.pem -noout -dates", "git -C /srv/app status", "git log --oneline"],
    },
  },
  {
    id: "evaluates_code", severity: "high",
    reason: "an option whose value is code the program evaluates (rpm --eval/--define macros run shell `%(…)` and Lua `%{lua:…}`)",
    commands: ["*"],
    test: (cmd) => optionSignal(cmd, "evaluates_code"),
    examples: { match: ["rpm --eval '%(id)'", "rpm -E '%{lua: os.execute(\"id\")}'", "rpm --eval %_libdir", "rpm -D '_dbpath %(id)' -qa", "rpm --define='x y' -q bash", "rpm -qa --eval=%x"], noMatch: ["rpm -qa", "rpm -qi bash", "rpm -qf /etc/hosts"] },
  },
  {
    id: "option_injection", severity: "high",
    reason: "a host or target value that starts with '-' is read as an option by the program it is handed to (ssh -oProxyCommand…)",
    commands: ["*"],
    test: (cmd) => optionValues(cmd, "host").some((a) => a.text.startsWith("-")),
    examples: { match: ["systemctl -H '-oProxyCommand=touch /tmp/p' show-environment", "systemctl --host=-oProxyCommand=x status", "ssh -J -oProxyCommand=x h"], noMatch: ["systemctl -H admin@db.example.com status nginx"] },
  },
  {
    id: "options_from_file", severity: "high",
    reason: "reads further options or settings from a file or string the engine does not read (they may write files or run programs)",
    commands: ["*"],
    test: (cmd) => optionSignal(cmd, "options_from_file"),
    examples: { match: ["curl -K ./opts.txt", "wget -e output_document=/etc/cron.d/x https://x.example", "ssh -F ./cfg host", "scp -F cfg f host:"], noMatch: ["curl -s https://x.example", "ssh host uptime"] },
  },
  {
    id: "kills_connections", severity: "high",
    reason: "closes network connections or login sessions (ss -K drops every matching socket, loginctl terminate-*, pkill -t)",
    commands: ["*"],
    test: (cmd) => optionSignal(cmd, "kills_connections")
      || (cmd.name === "loginctl" && cmd.args.some((a) => /^(terminate|kill)-(session|user|seat)$/.test(a.text)))
      // pkill -t TTY / -s SID (procps) and skill -t TTY kill whole login sessions (killall's -s is a signal).
      || ((cmd.name === "pkill" || cmd.name === "skill") && cmd.args.some((a) => /^(-t|--terminal|-s|--session)(=|$)/.test(a.text) || /^-[ts]\S/.test(a.text))),
    examples: { match: ["loginctl terminate-user admin", "loginctl kill-session 3", "pkill -9 -t pts/0", "ss -K state established '( sport = :ssh )'", "ss --kill dport = 22", "ss -tK dst 10.0.0.1", "sudo ss -nK sport = :22", "ss --kil dport = 22"], noMatch: ["ss -ltnp", "ss -s", "ss -tan state established", "loginctl list-sessions", "pkill -f myjob"] },
  },
  {
    id: "host_state_change", severity: "medium",
    reason: "sets host state (clock, host name, another process's scheduling, a timer that runs later) with a tool that otherwise only reads or wraps",
    commands: ["date", "hostname", "ionice", "chrt", "taskset", "systemd-run"],
    test: (cmd) => {
      if (optionSignal(cmd, "host_state_change")) return true;
      // ionice/chrt/taskset -p PID change a running process instead of starting one; systemd-run timers persist.
      if (cmd.name === "ionice" || cmd.name === "chrt" || cmd.name === "taskset") return cmd.args.some((a) => /^(-[a-zA-Z]*p[a-zA-Z]*|--pid)$/.test(a.text));
      if (cmd.name === "systemd-run") return systemdRun(cmd).timer;
      const ops = programOf(cmd)?.operands ?? [];
      // date MMDDhhmm[[CC]YY][.ss] sets the clock; hostname NAME sets the host name.
      return cmd.name === "date" ? ops.some((a) => !a.text.startsWith("+")) : ops.length > 0;
    },
    examples: { match: ["date -s '2020-01-01 00:00'", "date --set=tomorrow", "date 010100002030", "hostname evil", "hostname -F /tmp/name", "ionice -c1 -p 1", "chrt -f -p 99 1", "taskset -p 1 1", "systemd-run --on-calendar=hourly id"],
      noMatch: ["date -u +%Y-%m-%dT%H:%M:%SZ", "date", "hostname -f", "hostname", "ionice -c3 make", "taskset -c 0 make", "systemd-run --scope make"] },
  },
  {
    id: "command_path_override", severity: "high",
    reason: "changes which file a command name runs (hash -p), so later bare names are not the system programs",
    commands: ["hash"],
    test: (cmd) => cmd.args.some((a) => /^-[a-zA-Z]*p/.test(a.text)),
    examples: { match: ["hash -p /tmp/x ls; ls"], noMatch: ["hash", "hash -r"] },
  },
];
