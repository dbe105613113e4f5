import type { RiskLevel } from "../action.ts";
import { highestRisk } from "../../risk-level.ts";
import { isWithinRoot } from "../../paths.ts";

/**
 * Paths WriteFile may write (with approval) that make the host run code as root or grant access: the one table
 * (issue 24 trial, finding 3: WriteFile reached what the per-action refusals of SetSysctl, AddAuthorizedKey and
 * CreateTimer guard, with no warning). Each entry names its source. A match raises the step's risk_level to the
 * entry's and adds its named warning to the preview; nothing here refuses (write-path-rules.ts does that).
 */
export interface SensitiveWrite {
  /** Stable id, shown in the warning: `WriteFile/<id>`. */
  id: string;
  risk: RiskLevel;
  /** Whether the (absolute, normalised) path is one of these. */
  matches(path: string): boolean;
  /** What writing there does, completing "<path> …". */
  effect: string;
  /** Where the behaviour is documented. */
  source: string;
}

/** Directly in `dir` (not deeper), or `dir` itself when `self`. */
const inDir = (dir: string, self = false) => (p: string): boolean => (self && p === dir) || (p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes("/"));
/** Anywhere under one of `roots`. */
const under = (...roots: string[]) => (p: string): boolean => roots.some((r) => isWithinRoot(p, r) && p !== r);
const oneOf = (...paths: string[]) => (p: string): boolean => paths.includes(p);
const any = (...fs: ((p: string) => boolean)[]) => (p: string): boolean => fs.some((f) => f(p));

/** THE table. Order: the first match per id is reported; several ids may match one path. */
export const SENSITIVE_WRITES: readonly SensitiveWrite[] = [
  {
    id: "cron", risk: "critical", source: "crontab(5), cron(8), anacron(8)",
    matches: any(oneOf("/etc/crontab", "/etc/anacrontab"), inDir("/etc/cron.d"), inDir("/etc/cron.hourly"), inDir("/etc/cron.daily"), inDir("/etc/cron.weekly"), inDir("/etc/cron.monthly"), under("/var/spool/cron")),
    effect: "is read by cron: its commands run on a schedule, as root or as the user it names",
  },
  {
    id: "systemd-unit", risk: "critical", source: "systemd.unit(5), systemd.service(5)",
    matches: (p) => ["/etc/systemd/system", "/etc/systemd/user", "/run/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system", "/usr/local/lib/systemd/system"].some((r) => isWithinRoot(p, r) && p !== r) || /^\/(root|home\/[^/]+)\/\.config\/systemd\/user\//.test(p),
    effect: "is a systemd unit or drop-in: its ExecStart= and similar lines run programs, as root for system units",
  },
  {
    id: "sshd-config", risk: "critical", source: "sshd_config(5): AuthorizedKeysCommand, ForceCommand, PermitRootLogin, Match",
    matches: any(oneOf("/etc/ssh/sshd_config"), under("/etc/ssh/sshd_config.d")),
    effect: "configures sshd: it decides who may log in, and AuthorizedKeysCommand / ForceCommand run programs as root",
  },
  {
    id: "authorized-keys", risk: "critical", source: "sshd(8) AUTHORIZED_KEYS FILE FORMAT",
    matches: (p) => /\/\.ssh\/authorized_keys2?$/.test(p) || isWithinRoot(p, "/etc/ssh/authorized_keys") || /^\/etc\/ssh\/[^/]*authorized_keys/.test(p),
    effect: "is an authorized_keys file: every key in it may log in over SSH as that account",
  },
  {
    id: "dynamic-linker", risk: "critical", source: "ld.so(8), ldconfig(8)",
    matches: any(oneOf("/etc/ld.so.conf"), inDir("/etc/ld.so.conf.d")),
    effect: "sets where every program, root's included, loads its libraries from",
  },
  {
    id: "login-shell", risk: "high", source: "bash(1) INVOCATION, environment(5)",
    matches: any(oneOf("/etc/profile", "/etc/bash.bashrc", "/etc/environment", "/etc/zsh/zshrc", "/etc/zsh/zprofile", "/etc/zshenv", "/etc/zprofile"), inDir("/etc/profile.d"),
      (p) => /^\/root\/\.(bashrc|profile|bash_profile|bash_login|zshrc|zprofile)$/.test(p)),
    effect: "runs in login shells (root's included): a command in it runs as whoever logs in",
  },
  {
    id: "sysctl", risk: "high", source: "sysctl.d(5), systemd-sysctl(8)",
    matches: any(oneOf("/etc/sysctl.conf"), inDir("/etc/sysctl.d"), inDir("/run/sysctl.d"), inDir("/usr/lib/sysctl.d"), inDir("/lib/sysctl.d")),
    effect: "sets kernel parameters at every boot (systemd-sysctl)",
  },
  {
    id: "modprobe", risk: "critical", source: "modprobe.d(5) install/remove, modules-load.d(5)",
    matches: any(inDir("/etc/modprobe.d"), inDir("/lib/modprobe.d"), inDir("/usr/lib/modprobe.d"), inDir("/etc/modules-load.d"), oneOf("/etc/modules")),
    effect: "configures module loading: an `install` line runs a command as root whenever the module loads",
  },
  {
    id: "udev", risk: "critical", source: "udev(7) RUN",
    matches: any(inDir("/etc/udev/rules.d"), inDir("/lib/udev/rules.d"), inDir("/usr/lib/udev/rules.d"), inDir("/run/udev/rules.d")),
    effect: "is a udev rule: RUN+= runs programs as root on device events",
  },
  {
    id: "pam", risk: "critical", source: "pam.d(5)",
    matches: any(under("/etc/pam.d"), oneOf("/etc/pam.conf"), under("/etc/security")),
    effect: "configures PAM: it decides who may log in or use sudo, and pam_exec runs programs as root",
  },
  {
    id: "init-scripts", risk: "critical", source: "rc.local(8) (systemd-rc-local-generator), init(8)",
    matches: any(oneOf("/etc/rc.local"), under("/etc/init.d"), under("/etc/rc0.d", "/etc/rc1.d", "/etc/rc2.d", "/etc/rc3.d", "/etc/rc4.d", "/etc/rc5.d", "/etc/rc6.d", "/etc/rcS.d")),
    effect: "is run as root at boot or on service changes",
  },
  {
    id: "polkit", risk: "critical", source: "polkit(8) AUTHORIZATION RULES",
    matches: any(inDir("/etc/polkit-1/rules.d"), inDir("/usr/share/polkit-1/rules.d"), under("/etc/polkit-1/localauthority")),
    effect: "is a polkit rule: it can let any user do what root may over D-Bus",
  },
  // The issue 24 re-trial's list: each of these runs code as root too.
  {
    id: "package-hooks", risk: "critical", source: "apt.conf(5) DPkg::Pre-Invoke / Post-Invoke, dpkg(1) --pre-invoke (dpkg.cfg.d)",
    matches: any(oneOf("/etc/apt/apt.conf"), inDir("/etc/apt/apt.conf.d"), oneOf("/etc/dpkg/dpkg.cfg"), inDir("/etc/dpkg/dpkg.cfg.d")),
    effect: "configures the package manager: its hook options run commands as root at every install or upgrade",
  },
  {
    id: "logrotate", risk: "critical", source: "logrotate(8) prerotate/postrotate/firstaction/lastaction",
    matches: any(oneOf("/etc/logrotate.conf"), inDir("/etc/logrotate.d")),
    effect: "is a logrotate configuration: its scripts run as root at every rotation",
  },
  {
    id: "login-hooks", risk: "critical", source: "update-motd(5), pam_motd(8), sshd(8) SSHRC",
    matches: any(inDir("/etc/update-motd.d"), oneOf("/etc/ssh/sshrc")),
    effect: "is run at every login (by pam_motd as root, or by sshd as the user logging in, root's logins included)",
  },
  {
    id: "sudo-plugins", risk: "critical", source: "sudo.conf(5) Plugin, Path askpass/noexec",
    matches: oneOf("/etc/sudo.conf"),
    effect: "names the plugins sudo loads as root",
  },
  {
    id: "command-path", risk: "critical", source: "hier(7); the default PATH (login.defs(5) ENV_SUPATH) puts /usr/local first",
    matches: any(inDir("/usr/local/sbin"), inDir("/usr/local/bin"), inDir("/usr/sbin"), inDir("/usr/bin"), inDir("/sbin"), inDir("/bin")),
    effect: "is on root's PATH: a program there runs whenever root (or a root script) runs a command of that name",
  },
  {
    id: "system-hooks", risk: "critical", source: "kernel-img.conf(5) hook directories, interfaces(5) if-up.d, NetworkManager-dispatcher(8)",
    matches: any(under("/etc/kernel"), under("/etc/network/if-up.d", "/etc/network/if-down.d", "/etc/network/if-pre-up.d", "/etc/network/if-post-down.d"), under("/etc/NetworkManager/dispatcher.d")),
    effect: "is a hook run as root on kernel installs or network changes",
  },
  {
    id: "name-service", risk: "critical", source: "nsswitch.conf(5)",
    matches: oneOf("/etc/nsswitch.conf"),
    effect: "chooses the modules every process, root's included, loads to look up users, groups and hosts",
  },
  {
    id: "systemd-manager", risk: "critical", source: "systemd-system.conf(5), systemd-user.conf(5)",
    matches: any(oneOf("/etc/systemd/system.conf", "/etc/systemd/user.conf"), inDir("/etc/systemd/system.conf.d"), inDir("/etc/systemd/user.conf.d")),
    effect: "configures the service manager itself (default environment and limits of every unit)",
  },
];

/**
 * Sysctl keys whose value makes the kernel run a program as root or exposes root's memory: SetSysctl refuses them,
 * and WriteFile raises a sysctl file setting them to critical. Source: Documentation/admin-guide/sysctl/kernel.rst
 * (core_pattern `|`, modprobe, hotplug, poweroff_cmd) and fs.rst (suid_dumpable).
 */
export const CODE_RUNNING_SYSCTLS: ReadonlySet<string> = new Set(["kernel.core_pattern", "kernel.modprobe", "kernel.hotplug", "kernel.poweroff_cmd", "fs.suid_dumpable"]);

/** The keys a sysctl.d file's text sets (sysctl.d(5): `key = value`, `-key = value`, `/` as `.`; comments `#`/`;`). */
export function sysctlKeysOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    out.push(line.slice(0, eq).trim().replace(/^-/, "").replace(/\//g, "."));
  }
  return out;
}

/** What {@link writeRisk} answers: the risk the step carries at least, and one warning per matched entry. */
export interface WriteRisk {
  risk: RiskLevel | null;
  warnings: string[];
}

/**
 * The risk and warnings of writing `content` to `path` (absolute, normalised): every entry of SENSITIVE_WRITES that
 * matches, and, for a sysctl file, critical when it sets a CODE_RUNNING_SYSCTLS key. `risk` null: nothing matched.
 */
export function writeRisk(path: string, content: string): WriteRisk {
  let risk: RiskLevel | null = null;
  const raise = (r: RiskLevel): void => { risk = risk === null ? r : highestRisk([risk, r]); };
  const warnings: string[] = [];
  for (const e of SENSITIVE_WRITES) {
    if (!e.matches(path)) continue;
    raise(e.risk);
    const root = e.id === "authorized-keys" && (path.startsWith("/root/") || path.startsWith("/etc/ssh/")) ? " (here: root's, or every account's)" : "";
    warnings.push(`WriteFile/${e.id}: ${path} ${e.effect}${root}. Risk ${e.risk}. Source: ${e.source}.`);
    if (e.id === "sysctl") {
      const bad = sysctlKeysOf(content).filter((k) => CODE_RUNNING_SYSCTLS.has(k));
      if (bad.length > 0) {
        raise("critical");
        warnings.push(`WriteFile/sysctl-runs-code: it sets ${[...new Set(bad)].join(", ")}, which can make the kernel run a program as root (SetSysctl refuses these). Risk critical. Source: Documentation/admin-guide/sysctl/kernel.rst.`);
      }
    }
  }
  return { risk, warnings };
}
