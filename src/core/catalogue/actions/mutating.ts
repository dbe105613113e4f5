import type { Action } from "../action.ts";
import cleanPackageCache from "./clean-package-cache.ts";
import deleteLogFile from "./delete-log-file.ts";
import installPackage from "./install-package.ts";
import removePackage from "./remove-package.ts";
import signalProcess from "./signal-process.ts";
import truncateLogFile from "./truncate-log-file.ts";
import updatePackageIndex from "./update-package-index.ts";
import vacuumJournal from "./vacuum-journal.ts";
import writeFile from "./write-file.ts";
import allowFirewallPort from "./allow-firewall-port.ts";
import removeFirewallPort from "./remove-firewall-port.ts";
import setSysctl from "./set-sysctl.ts";
import setSshdOption from "./set-sshd-option.ts";
import setDnsServers from "./set-dns-servers.ts";
import setTimezone from "./set-timezone.ts";
import enableNtp from "./enable-ntp.ts";

/**
 * The package, file, process and disk-space (issue 22) mutating actions, for CATALOGUE. None is a direct tool: their
 * toolsets only group them for find_actions; each runs only through plan → approve → execute.
 */
export const packageFileProcessActions: readonly Action[] = [
  installPackage,
  removePackage,
  updatePackageIndex,
  signalProcess,
  writeFile,
  cleanPackageCache,
  vacuumJournal,
  deleteLogFile,
  truncateLogFile,
] as Action[];

/** The network and system mutating actions of issue 24 (firewall, sysctl, sshd, DNS, time), each reverting unless confirmed where it can cut the operator off. */
export const networkSystemActions: readonly Action[] = [allowFirewallPort, removeFirewallPort, setSysctl, setSshdOption, setDnsServers, setTimezone, enableNtp] as Action[];
