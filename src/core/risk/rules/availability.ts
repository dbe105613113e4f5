import type { Cmd } from "../command.ts";
import { optionSignal, programOf } from "../programs/index.ts";
import type { Rule } from "../rule.ts";

const SSH_UNITS = /^(ssh|sshd|openssh|openssh-server|ssh\.socket|sshd\.socket|ssh\.service|sshd\.service|dropbear)(@.*)?(\.service|\.socket)?$/;
const NET_UNITS = /^(network|networking|NetworkManager|systemd-networkd|wpa_supplicant|tailscaled|wg-quick@.*)(\.service)?$/;
const FW_UNITS = /^(firewalld|ufw|nftables|iptables|ip6tables|netfilter-persistent)(\.service)?$/;
const STOP = new Set(["stop", "disable", "mask", "kill", "freeze"]);
const POWER = new Set(["poweroff", "reboot", "halt", "kexec", "rescue", "emergency", "isolate", "default", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate", "soft-reboot"]);
/** systemctl subcommands that only read (systemctl(1) "Unit Commands" that query). */
const SYSTEMCTL_READ = new Set(["", "status", "show", "cat", "list-units", "list-unit-files", "list-sockets", "list-timers", "list-jobs", "list-dependencies", "list-machines", "list-automounts", "list-paths", "is-active", "is-enabled", "is-failed", "is-system-running", "get-default", "help", "show-environment", "--version", "--help"]);

/** systemctl's operands read with its option table, so `-H host`, `-t type`, `-p prop` values are not the verb. */
const systemctlOperands = (cmd: Cmd): string[] => (programOf(cmd)?.operands ?? cmd.args.filter((a) => !a.text.startsWith("-"))).map((a) => a.text);
const units = (cmd: Cmd): string[] => systemctlOperands(cmd).slice(1);
const systemctlVerb = (cmd: Cmd): string => systemctlOperands(cmd)[0] ?? "";
/** service(8): `service [--skip-redirect…] UNIT VERB`; options are skipped so they are not taken for the unit. */
const serviceVerb = (cmd: Cmd): { unit: string; verb: string } => {
  const ops = cmd.args.map((a) => a.text).filter((t) => !t.startsWith("-"));
  return { unit: ops[0] ?? "", verb: ops[1] ?? "" };
};

const PKG_REMOVERS = new Set(["apt", "apt-get", "dnf", "yum", "zypper", "apk", "pacman", "dpkg", "rpm"]);
const REMOVE_VERB = /^(remove|purge|erase|autoremove|del|-r|-R|-e|-P|--remove|--purge|--erase|-Rs|-Rns|-Rdd)$/;
/** True when a package manager is asked to remove a package whose name matches `names`. */
function removesPackage(cmd: Cmd, names: RegExp): boolean {
  const t = cmd.args.map((a) => a.text);
  return t.some((x) => REMOVE_VERB.test(x)) && t.some((x) => names.test(x.replace(/[:=].*$/, "")));
}
/** Packages without which the host does not boot, log in or manage packages. */
const CORE_PACKAGES = /^(systemd|systemd-sysv|init|linux-image.*|kernel.*|kernel-core|glibc|libc6|libc-bin|bash|coreutils|util-linux|sudo|passwd|login|openssh-server|dpkg|apt|rpm|dnf|yum|python3|libpam.*|pam|grub.*|e2fsprogs|mount)$/;

/** Availability: shutting the host down, cutting remote access, disabling the firewall, fork bombs. */
export const AVAILABILITY_RULES: readonly Rule[] = [
  {
    id: "host_shutdown", severity: "critical",
    reason: "shuts down, reboots or isolates the host (availability of a remote machine)",
    commands: ["shutdown", "reboot", "halt", "poweroff", "init", "telinit", "systemctl", "loginctl"],
    test: (cmd) => {
      if (cmd.name === "systemctl") return POWER.has(systemctlVerb(cmd));
      // logind's own power verbs (loginctl(1) "System Commands").
      if (cmd.name === "loginctl") return cmd.args.some((a) => POWER.has(a.text));
      if (cmd.name === "init" || cmd.name === "telinit") return /^[0126sS]$/.test(cmd.args[0]?.text ?? "");
      return !cmd.args.some((a) => a.text === "-c" || a.text === "--help" || a.text === "--show");
    },
    examples: { match: ["shutdown -h now", "echo `shutdown -h now`", "systemctl reboot", "init 0", "loginctl poweroff", "loginctl -i reboot", "systemctl default", "systemctl hybrid-sleep"], noMatch: ["shutdown -c", "systemctl status", "loginctl list-sessions"] },
  },
  {
    id: "remote_access_cut", severity: "critical",
    reason: "stops SSH or networking, cutting off remote access to the host",
    commands: ["systemctl", "service", "pkill", "killall", "ifdown", "ip", "ifconfig", "nmcli", "networkctl", "kill", "apt", "apt-get", "dnf", "yum", "zypper", "apk", "pacman", "dpkg", "rpm"],
    test: (cmd) => {
      if (cmd.name === "systemctl") return STOP.has(systemctlVerb(cmd)) && units(cmd).some((u) => SSH_UNITS.test(u) || NET_UNITS.test(u));
      if (cmd.name === "service") { const s = serviceVerb(cmd); return STOP.has(s.verb) && (SSH_UNITS.test(s.unit) || NET_UNITS.test(s.unit)); }
      if (cmd.name === "pkill" || cmd.name === "killall") return cmd.args.some((a) => /^(sshd?|NetworkManager|systemd-networkd)$/.test(a.text));
      if (cmd.name === "ifdown") return true;
      if (cmd.name === "networkctl") return cmd.args.some((a) => a.text === "down" || a.text === "delete");
      if (cmd.name === "ip") {
        const t = cmd.args.map((a) => a.text);
        return (t.includes("down") && t.includes("link")) || t.includes("flush") || (t.some((x) => /^r(o(u(te?)?)?)?$/.test(x)) && t.some((x) => /^del(ete)?$/.test(x)) && t.includes("default"));
      }
      if (cmd.name === "kill") return cmd.args.some((a) => a.subs.some((s) => /\b(pgrep|pidof)\b[^)]*\bsshd?\b/.test(s.text)));
      if (PKG_REMOVERS.has(cmd.name)) return removesPackage(cmd, /^(openssh-server|openssh|ssh|sshd|network-manager|NetworkManager|netplan\.io|ifupdown|systemd-networkd)$/);
      if (cmd.name === "ifconfig") return cmd.args.some((a) => a.text === "down");
      return cmd.args.some((a) => a.text === "off") && cmd.args.some((a) => /^(networking|radio)$/.test(a.text)) || cmd.args.some((a) => a.text === "down");
    },
    examples: {
      match: ["systemctl stop sshd", "systemctl -H admin@db.example.com stop sshd", "systemctl -t service stop sshd", "systemctl -M web1 --property MainPID stop sshd", "service ssh stop", "ip link set eth0 down", "pkill sshd", "systemctl disable --now ssh.service", "ip route del default", "kill -9 $(pgrep sshd)", "apt-get remove -y openssh-server", "networkctl down eth0"],
      noMatch: ["systemctl status sshd", "systemctl reload sshd", "ip addr show", "ip route del 10.0.0.0/8", "kill 1234", "apt-get install openssh-server"],
    },
  },
  {
    id: "init_script_stop", severity: "critical",
    reason: "stops SSH or networking through its init script, cutting off remote access",
    commands: ["ssh", "sshd", "networking", "network", "network-manager", "NetworkManager"],
    test: (cmd) => /(^|\/)(init\.d|rc\.d)\//.test(cmd.argv0.text) && STOP.has(cmd.args[0]?.text ?? ""),
    examples: { match: ["/etc/init.d/ssh stop", "sudo /etc/init.d/networking stop"], noMatch: ["/etc/init.d/ssh status", "ssh host"] },
  },
  {
    id: "firewall_disable", severity: "critical",
    reason: "disables or flushes the firewall",
    commands: ["ufw", "iptables", "ip6tables", "nft", "systemctl", "service", "firewall-cmd", "setenforce"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      switch (cmd.name) {
        case "ufw": return t[0] === "disable" || t[0] === "reset";
        case "iptables": case "ip6tables": return t.some((x) => /^(-F|--flush|-X|--delete-chain)$/.test(x)) || (t.some((x) => x === "-P" || x === "--policy") && t.includes("ACCEPT"));
        case "nft": return (t[0] === "flush" && t[1] === "ruleset") || t[0] === "delete" && t[1] === "table";
        case "systemctl": return STOP.has(systemctlVerb(cmd)) && units(cmd).some((u) => FW_UNITS.test(u));
        case "service": { const s = serviceVerb(cmd); return STOP.has(s.verb) && FW_UNITS.test(s.unit); }
        case "firewall-cmd": return t.includes("--panic-on");
        default: return t[0] === "0" || t[0] === "Permissive";
      }
    },
    examples: { match: ["ufw disable", "iptables -F", "iptables -P INPUT ACCEPT", "nft flush ruleset", "systemctl stop firewalld"], noMatch: ["ufw status", "iptables -L -n"] },
  },
  {
    id: "firewall_change", severity: "high",
    reason: "changes firewall rules; a wrong rule can lock remote users out",
    commands: ["ufw", "iptables", "ip6tables", "nft", "firewall-cmd", "iptables-restore", "ip6tables-restore"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      switch (cmd.name) {
        case "ufw": return !(t.length === 0 || ["status", "show", "version", "--version", "help", "--help"].includes(t[0]!) || (t[0] === "app" && t[1] === "list"));
        case "iptables": case "ip6tables": return !t.every((x) => /^(-L|--list|-S|--list-rules|-n|-v|-nL|-vnL|-nvL|-L\w*|--line-numbers|-t|nat|filter|mangle|raw|INPUT|OUTPUT|FORWARD|-x|--numeric|--verbose)$/.test(x));
        case "nft": return !(t[0] === "list" || t[0] === "-a" || t[0] === "--version" || t.length === 0);
        case "firewall-cmd": return !t.every((x) => /^--(list-|get-|query-|state|info-|version|help|zone=)/.test(x));
        default: return true;
      }
    },
    examples: { match: ["ufw default deny incoming && ufw enable", "iptables -A INPUT -p tcp --dport 22 -j DROP", "firewall-cmd --add-port=80/tcp"], noMatch: ["ufw status verbose", "iptables -L -n -v", "nft list ruleset"] },
  },
  {
    id: "service_stop", severity: "high",
    reason: "stops, disables or masks a service",
    commands: ["systemctl", "service"],
    test: (cmd) => cmd.name === "systemctl" ? STOP.has(systemctlVerb(cmd)) : STOP.has(serviceVerb(cmd).verb),
    examples: { match: ["systemctl stop nginx", "systemctl mask cron", "service nginx stop"], noMatch: ["systemctl restart nginx", "systemctl status nginx"] },
  },
  {
    id: "service_change", severity: "medium",
    reason: "starts, restarts, reloads or enables a service",
    commands: ["systemctl", "service"],
    test: (cmd) => cmd.name === "systemctl" ? !SYSTEMCTL_READ.has(systemctlVerb(cmd)) && !STOP.has(systemctlVerb(cmd)) : !["status", ""].includes(serviceVerb(cmd).verb) && !STOP.has(serviceVerb(cmd).verb),
    examples: { match: ["systemctl reload sshd", "systemctl restart nginx", "service nginx reload"], noMatch: ["systemctl status sshd", "systemctl list-units --failed"] },
  },
  {
    id: "unit_from_path", severity: "high",
    reason: "links or enables a unit file from a path outside the system unit directories: whatever it names runs as root when it starts",
    commands: ["systemctl"],
    test: (cmd) => /^(link|enable|reenable|preset|start|restart)$/.test(systemctlVerb(cmd)) && units(cmd).some((u) => u.includes("/") && !/^\/(etc|usr\/lib|lib)\/systemd\/system\//.test(u)),
    examples: { match: ["systemctl link /tmp/x.service", "systemctl enable --now /home/u/evil.service"], noMatch: ["systemctl enable --now nginx", "systemctl enable /etc/systemd/system/x.service"] },
  },
  {
    id: "crontab_change", severity: "high",
    reason: "removes or replaces a crontab (scheduled jobs are lost or added)",
    commands: ["crontab"],
    test: (cmd) => cmd.args.some((a) => /^-[a-zA-Z]*r/.test(a.text)) || !cmd.args.some((a) => a.text === "-l" || a.text === "-T"),
    examples: { match: ["crontab -r", "crontab jobs.txt", "crontab -e"], noMatch: ["crontab -l", "crontab -u www -l"] },
  },
  {
    id: "remove_core_package", severity: "critical",
    reason: "removes a package the host needs to boot, log in or manage software",
    commands: [...PKG_REMOVERS],
    test: (cmd) => removesPackage(cmd, CORE_PACKAGES),
    examples: { match: ["dnf remove -y systemd", "apt-get purge -y 'linux-image-*'", "rpm -e --nodeps glibc"], noMatch: ["apt-get remove -y nginx", "apt list --installed"] },
  },
  {
    id: "network_change", severity: "high",
    reason: "changes addresses, routes or links; a mistake cuts the host off",
    commands: ["ip", "ifconfig", "route", "nmcli", "netplan", "ifup", "brctl", "tc", "networkctl"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      if (cmd.name === "networkctl") return t.some((x) => /^(up|down|delete|renew|forcerenew|reconfigure|reload|edit)$/.test(x));
      if (cmd.name === "ip") return ipChanges(t);
      if (cmd.name === "ifconfig" || cmd.name === "route") return t.length > (cmd.name === "route" ? 1 : 1) && !t.every((x) => /^(-a|-n|-v|-s|-e)$/.test(x));
      if (cmd.name === "nmcli") return t.some((x) => /^(modify|mod|delete|del|down|up|add|off|connect|disconnect|reload)$/.test(x));
      if (cmd.name === "tc") return t.some((x) => /^(add|del|delete|change|replace)$/.test(x));
      return !t.every((x) => /^(get|info|--help|show)$/.test(x));
    },
    examples: {
      match: ["ip route del 10.0.0.0/8", "ip addr add 10.0.0.2/24 dev eth0", "netplan apply", "networkctl reconfigure eth0", "ip l s eth0 down", "ip li set dev eth0 down", "ip a f dev eth0", "ip r d default",
        "ip -4 ro repl default via 10.0.0.1", "ip -b /tmp/cmds", "ip -batch /tmp/cmds", "ip -force -batch - < cmds", "ip n fl all", "ip -n blue link del veth0"],
      noMatch: ["ip addr show", "ip -br link", "nmcli device status", "networkctl status", "networkctl list", "ip a", "ip -br a", "ip a s", "ip r", "ip ro get 1.1.1.1", "ip -s link", "ip -j -p addr show dev eth0", "ip neigh", "ip monitor"],
    },
  },
  {
    id: "kill_all", severity: "critical",
    reason: "kills every process or init",
    commands: ["kill", "pkill", "killall"],
    test: (cmd) => (cmd.name === "kill" && cmd.args.some((a) => a.text === "1" || a.text === "-1")) || (cmd.name !== "kill" && cmd.args.some((a) => /^(init|systemd)$/.test(a.text)))
      // pkill/killall -u root (or uid 0): every root process, sshd and init's helpers included.
      || (cmd.name !== "kill" && cmd.args.some((a, i) => (/^(-u|--user|-U|--uid|--euid)$/.test(a.text) && /^(root|0)(,|$)/.test(cmd.args[i + 1]?.text ?? "")) || /^(-u|-U)(root|0)$|^--(user|uid|euid)=(root|0)(,|$)/.test(a.text)))
      // A pattern that matches every process name (pkill's is always a regex, killall's with -r): `pkill -f .`.
      || (cmd.name !== "kill" && (cmd.name === "pkill" || cmd.args.some((a) => /^(-[a-zA-Z]*r[a-zA-Z]*|--regexp)$/.test(a.text))) && cmd.args.some((a) => !a.text.startsWith("-") && matchesEverything(a.text))),
    examples: { match: ["kill -9 -1", "kill -9 1", "pkill -9 -u root", "killall -u root", "pkill --euid=0", "pkill -9 -f .", "killall -r .", "pkill '.*'", "killall -9 -r '^'"], noMatch: ["kill -9 12345", "pkill -f myjob", "pkill -u www-data php", "killall ."] },
  },
  {
    id: "kernel_change", severity: "high",
    reason: "loads or unloads kernel modules, changes kernel parameters, mounts filesystems or swap",
    commands: ["insmod", "rmmod", "modprobe", "sysctl", "mount", "umount", "swapoff", "swapon", "kexec", "losetup"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      switch (cmd.name) {
        case "sysctl": return optionSignal(cmd, "kernel_change") || (programOf(cmd)?.operands ?? []).some((a) => a.text.includes("="))
          || t.some((x) => x === "-w" || x === "--write" || x === "-p" || x === "--load" || x === "--system" || /^[a-z0-9_.]+=/.test(x));
        case "mount": return t.length > 0 && !t.every((x) => /^(-l|--show-labels|-t|\w+)$/.test(x) && !x.startsWith("/"));
        case "swapon": return !t.every((x) => /^(--show|-s|--summary|--bytes|--noheadings)$/.test(x));
        case "losetup": return !t.every((x) => /^(-a|--all|-l|--list|-J|--json)$/.test(x));
        case "modprobe": return !t.some((x) => x === "-n" || x === "--dry-run" || x === "-c" || x === "--showconfig");
        default: return true;
      }
    },
    examples: { match: ["sysctl -w net.ipv4.ip_forward=1", "sysctl kernel.sysrq=1", "sysctl -p /tmp/evil.conf", "sysctl -qw kernel.core_pattern='|/tmp/x'", "sysctl --sys", "mount /dev/sdb1 /mnt", "rmmod e1000"], noMatch: ["sysctl -a", "sysctl -n kernel.hostname", "mount", "swapon --show"] },
  },
  {
    id: "account_change", severity: "high",
    reason: "creates, changes or removes user accounts, passwords or sudo rights",
    commands: ["useradd", "adduser", "userdel", "deluser", "usermod", "passwd", "chpasswd", "groupadd", "groupdel", "groupmod", "gpasswd", "visudo", "chsh", "chfn", "vipw", "vigr", "newusers", "chage"],
    test: (cmd) => !(cmd.name === "chage" && cmd.args.some((a) => a.text === "-l")) && !(cmd.name === "passwd" && cmd.args.some((a) => a.text === "-S" || a.text === "--status")),
    examples: { match: ["useradd -m eve", "usermod -aG sudo eve", "passwd root"], noMatch: ["chage -l root", "passwd -S root"] },
  },
];

/** ip(8) options that take a value (`-n NETNS`, `-f FAMILY`, `-rc SIZE`, `-l COUNT`). */
const IP_VALUE_OPTS = /^-(n|netns|f|family|rc|rcvbuf|l|loops)$/;
/** Verbs ip matches by prefix (iproute2's matches()): any prefix of these changes state. */
const IP_CHANGE_VERBS = ["add", "change", "chg", "replace", "delete", "set", "flush", "append", "prepend", "restore", "test", "update", "attach", "detach"];
const IP_READ_VERBS = ["show", "list", "lst", "get", "help", "monitor", "showdump", "save"];

/**
 * True when `ip` changes state: a commands file (`-b`/`-batch` FILE: what it holds is unknown), or a verb that is a
 * prefix of a changing verb and not of a reading one, except `ip link s|se` which is `set` (iplink checks set first).
 */
function ipChanges(t: string[]): boolean {
  const ops: string[] = [];
  for (let i = 0; i < t.length; i++) {
    const x = t[i]!;
    if (/^--?(b|ba|bat|batc|batch)$/.test(x)) return true;
    if (IP_VALUE_OPTS.test(x)) { i++; continue; }
    if (x.startsWith("-")) continue;
    ops.push(x);
  }
  const [object = "", verb = ""] = ops;
  if (verb === "") return false;
  const prefixOf = (list: string[]): boolean => list.some((w) => w.startsWith(verb));
  if ("link".startsWith(object) && /^se?$/.test(verb)) return true;
  return prefixOf(IP_CHANGE_VERBS) && !prefixOf(IP_READ_VERBS) || ops.slice(1).some((x) => /^(add|del|delete|set|change|replace|flush|append|prepend|restore)$/.test(x));
}

/** True when `pattern`, read as an extended regex, matches any process name (sampled: init, sshd, a 1-letter name). */
function matchesEverything(pattern: string): boolean {
  try {
    const re = new RegExp(pattern);
    return ["systemd", "sshd", "x", "bash"].every((n) => re.test(n));
  } catch {
    return false;
  }
}
