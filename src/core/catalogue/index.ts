import type { Action, DistroFamily } from "./action.ts";
import getDiskUsage from "./actions/get-disk-usage.ts";
import getLargestDirectories from "./actions/get-largest-directories.ts";
import getLoad from "./actions/get-load.ts";
import getMemoryUsage from "./actions/get-memory-usage.ts";
import getNetworkInterfaces from "./actions/get-network-interfaces.ts";
import getPackageInfo from "./actions/get-package-info.ts";
import getProcess from "./actions/get-process.ts";
import getSystemInfo from "./actions/get-system-info.ts";
import listListeningPorts from "./actions/list-listening-ports.ts";
import listProcesses from "./actions/list-processes.ts";
import readJournal from "./actions/read-journal.ts";
import readLogFile from "./actions/read-log-file.ts";
import searchPackages from "./actions/search-packages.ts";
import findLargeFiles from "./actions/find-large-files.ts";
import getBootTiming from "./actions/get-boot-timing.ts";
import readKernelLog from "./actions/read-kernel-log.ts";
import getInodeUsage from "./actions/get-inode-usage.ts";
import getRebootRequired from "./actions/get-reboot-required.ts";
import getSysctl from "./actions/get-sysctl.ts";
import listBlockDevices from "./actions/list-block-devices.ts";
import listKernelModules from "./actions/list-kernel-modules.ts";
import listMounts from "./actions/list-mounts.ts";
import listSwap from "./actions/list-swap.ts";
import listAuthorizedKeys from "./actions/list-authorized-keys.ts";
import listCronJobs from "./actions/list-cron-jobs.ts";
import listGroups from "./actions/list-groups.ts";
import listLoginSessions from "./actions/list-login-sessions.ts";
import listRecentLogins from "./actions/list-recent-logins.ts";
import listSudoRules from "./actions/list-sudo-rules.ts";
import listTimers from "./actions/list-timers.ts";
import { CreateTimer } from "./actions/create-timer.ts";
import { RemoveTimer } from "./actions/remove-timer.ts";
import listUsers from "./actions/list-users.ts";
import { networkSystemActions, packageFileProcessActions } from "./actions/mutating.ts";
import listRoutes from "./actions/list-routes.ts";
import getDnsConfig from "./actions/get-dns-config.ts";
import getFirewallRuleset from "./actions/get-firewall-ruleset.ts";
import checkTcpConnect from "./actions/check-tcp-connect.ts";
import listInstalledPackages from "./actions/list-installed-packages.ts";
import listUpgradablePackages from "./actions/list-upgradable-packages.ts";
import listPackageFiles from "./actions/list-package-files.ts";
import readUnitLogsSinceStart from "./actions/read-unit-logs-since-start.ts";
import getJournalDiskUsage from "./actions/get-journal-disk-usage.ts";
import getTimeSyncStatus from "./actions/get-time-sync-status.ts";
import listCertificates from "./actions/list-certificates.ts";
import { hostAdminActions } from "./actions/host-admin.ts";
import { systemdActions } from "./actions/systemd.ts";
import { RunCommand } from "./actions/run-command.ts";

/**
 * The catalogue: every action hostgate knows, as data. Each entry declares `access` explicitly; the
 * drift test in catalogue.test.ts pins the read-only and mutating sets so a new action cannot change the
 * exposed surface without review.
 */
export const CATALOGUE: readonly Action[] = [
  getSystemInfo,
  getDiskUsage,
  getLargestDirectories,
  getMemoryUsage,
  getLoad,
  listProcesses,
  getProcess,
  listListeningPorts,
  getNetworkInterfaces,
  readJournal,
  readLogFile,
  searchPackages,
  getPackageInfo,
  listRoutes,
  getDnsConfig,
  getFirewallRuleset,
  checkTcpConnect,
  listInstalledPackages,
  listUpgradablePackages,
  listPackageFiles,
  readUnitLogsSinceStart,
  getJournalDiskUsage,
  getTimeSyncStatus,
  listCertificates,
  ...systemdActions,
  // accounts (issue 24)
  listUsers,
  listGroups,
  listLoginSessions,
  listRecentLogins,
  listSudoRules,
  listAuthorizedKeys,
  // scheduling (issue 24)
  listTimers,
  listCronJobs,
  CreateTimer,
  RemoveTimer,
  // storage (issue 24)
  listBlockDevices,
  listMounts,
  getInodeUsage,
  listSwap,
  findLargeFiles,
  // kernel and boot (issue 24)
  getSysctl,
  listKernelModules,
  getRebootRequired,
  getBootTiming,
  readKernelLog,
  ...packageFileProcessActions,
  ...networkSystemActions,
  ...hostAdminActions,
  RunCommand,
] as Action[];

/** The actions offered on a host of the given family. */
export function actionsFor(family: DistroFamily, catalogue: readonly Action[] = CATALOGUE): Action[] {
  return catalogue.filter((a) => a.families === "all" || a.families.includes(family));
}

/** Looks up an action by its PascalCase name within a family's set; undefined when not offered. */
export function findAction(name: string, family: DistroFamily, catalogue: readonly Action[] = CATALOGUE): Action | undefined {
  return actionsFor(family, catalogue).find((a) => a.name === name);
}
