import { HostgateError } from "../../errors.ts";

/**
 * The sshd options SetSshdOption may set, by their canonical spelling, each with the values it accepts. Only
 * options where sshd keeps the first value it reads (so one drop-in read early decides) and none that names a
 * program or a file sshd would run or trust. Source: sshd_config(5) of OpenSSH 9.x.
 */
const YES_NO = /^(yes|no)$/;
const NUMBER = /^[0-9]{1,6}$/;
const DURATION = /^[0-9]{1,6}[smhdw]?$/;
export const SSHD_ALLOWED: Readonly<Record<string, RegExp>> = {
  PermitRootLogin: /^(yes|no|prohibit-password|forced-commands-only)$/,
  PasswordAuthentication: YES_NO,
  KbdInteractiveAuthentication: YES_NO,
  PubkeyAuthentication: YES_NO,
  PermitEmptyPasswords: YES_NO,
  MaxAuthTries: NUMBER,
  MaxSessions: NUMBER,
  MaxStartups: /^[0-9]{1,5}(:[0-9]{1,3}:[0-9]{1,5})?$/,
  LoginGraceTime: DURATION,
  ClientAliveInterval: DURATION,
  ClientAliveCountMax: NUMBER,
  X11Forwarding: YES_NO,
  AllowTcpForwarding: /^(yes|no|all|local|remote)$/,
  AllowAgentForwarding: YES_NO,
  PermitTunnel: /^(yes|no|point-to-point|ethernet)$/,
  UseDNS: YES_NO,
  PrintMotd: YES_NO,
  LogLevel: /^(QUIET|FATAL|ERROR|INFO|VERBOSE|DEBUG|DEBUG1|DEBUG2|DEBUG3)$/,
};

/**
 * Options refused by name, with the reason the model is told: they run a program, apply conditionally or read
 * other files (sshd_config(5)).
 */
const SSHD_REFUSED: Readonly<Record<string, string>> = {
  match: "a Match block applies options conditionally; SetSshdOption only sets global options",
  include: "Include reads other files as configuration",
  authorizedkeyscommand: "it runs a program to find keys",
  authorizedkeyscommanduser: "it chooses who runs AuthorizedKeysCommand",
  authorizedprincipalscommand: "it runs a program to find principals",
  authorizedprincipalscommanduser: "it chooses who runs AuthorizedPrincipalsCommand",
  forcecommand: "it runs a program on every login",
  subsystem: "it runs a program (sftp-server and the like)",
  securitykeyprovider: "it loads a library into sshd",
  permituserenvironment: "it lets users set LD_PRELOAD and the like",
};

/**
 * The canonical name of an allowed option, matched without regard to case as sshd does, and its value checked
 * against the option's pattern. Throws `invalid_params` saying why and what is allowed.
 */
export function checkSshdOption(option: string, value: string): { option: string; value: string } {
  const lower = option.toLowerCase();
  const refused = SSHD_REFUSED[lower];
  if (refused !== undefined) throw new HostgateError("invalid_params", `SetSshdOption refuses ${option}: ${refused}.`, { hint: `Allowed options: ${Object.keys(SSHD_ALLOWED).join(", ")}.` });
  const name = Object.keys(SSHD_ALLOWED).find((k) => k.toLowerCase() === lower);
  if (name === undefined) throw new HostgateError("invalid_params", `SetSshdOption does not set ${option}: it is not on the allow-list.`, { hint: `Allowed options: ${Object.keys(SSHD_ALLOWED).join(", ")}. Anything else needs an approved WriteFile.` });
  const pattern = SSHD_ALLOWED[name]!;
  const v = value.trim();
  if (!pattern.test(v)) throw new HostgateError("invalid_params", `${name} does not take the value ${JSON.stringify(value)}.`, { hint: `${name} takes a value matching ${pattern.source} (sshd_config(5)).` });
  return { option: name, value: v };
}

/** The drop-in of one option: `/etc/ssh/sshd_config.d/01-hostgate-<option in lower case>.conf` (read early: the first value wins). */
export function sshdDropInPath(option: string): string {
  return `${SSHD_DROPIN_DIR}/01-hostgate-${option.toLowerCase()}.conf`;
}
export const SSHD_DROPIN_DIR = "/etc/ssh/sshd_config.d";
export const SSHD_CONFIG = "/etc/ssh/sshd_config";

/** The drop-in's content for `option value`. */
export function sshdDropInContent(option: string, value: string): string {
  return `# Set by hostgate (SetSshdOption). Remove this file to go back to the rest of the configuration.\n${option} ${value}\n`;
}

/** Whether sshd_config's text includes the drop-in directory (`Include /etc/ssh/sshd_config.d/*.conf`, Debian's and Fedora's default). */
export function includesDropIns(config: string): boolean {
  return /^\s*Include\s+(\S+\s+)*(\/etc\/ssh\/)?sshd_config\.d\/\*\.conf(\s|$)/im.test(config);
}

/** The value `sshd -T` prints for an option (lower-cased keyword, first match), or null when it prints none. */
export function effectiveValue(dump: string, option: string): string | null {
  const key = option.toLowerCase();
  for (const line of dump.split("\n")) {
    const sp = line.indexOf(" ");
    if (sp > 0 && line.slice(0, sp) === key) return line.slice(sp + 1).trim();
  }
  return null;
}
