import { describe, expect, it } from "vitest";
import { actionNameOf, toolNameOf } from "./action.ts";
import { CATALOGUE } from "./index.ts";
import { ACTION_TOOLSETS } from "../toolsets.ts";

/**
 * The drift test (reference: daemon-approval, "a drift test compares the explicit read-only and mutating
 * classifications with the live catalogue"). Adding an action, or changing one's access, fails here until
 * the sets below are updated on purpose, in review.
 */
const READ_ONLY = [
  "CheckTcpConnect", "FindLargeFiles", "GetBootTiming", "GetDiskUsage", "GetDnsConfig", "GetFirewallRuleset",
  "GetInodeUsage", "GetJournalDiskUsage", "GetLargestDirectories", "GetLoad", "GetMemoryUsage",
  "GetNetworkInterfaces", "GetPackageInfo", "GetProcess", "GetRebootRequired", "GetServiceStatus", "GetSysctl",
  "GetSystemInfo", "GetTimeSyncStatus", "ListAuthorizedKeys", "ListBlockDevices", "ListCertificates", "ListCronJobs",
  "ListFailedUnits", "ListGroups", "ListInstalledPackages", "ListKernelModules", "ListListeningPorts",
  "ListLoginSessions", "ListMounts", "ListPackageFiles", "ListProcesses", "ListRecentLogins", "ListRoutes",
  "ListSudoRules", "ListSwap", "ListTimers", "ListUnitTypes", "ListUnits", "ListUpgradablePackages", "ListUsers",
  "ReadJournal", "ReadKernelLog", "ReadLogFile", "ReadUnit", "ReadUnitDefinition", "ReadUnitLogsSinceStart", "SearchPackages",
];
const MUTATING = [
  "AllowFirewallPort", "CleanPackageCache", "DaemonReload", "DeleteLogFile", "DisableService", "EnableNtp", "EnableService",
  "InstallPackage", "MaskUnit", "ReloadService", "RemoveFirewallPort", "RemovePackage", "RestartService",
  "RunCommand", "SetDnsServers", "SetSshdOption", "SetSysctl", "SetTimezone", "SetUnitResourceLimits", "SignalProcess", "StartService", "StopService",
  "TruncateLogFile", "UnmaskUnit", "UpdatePackageIndex", "VacuumJournal", "WriteFile",
  // issue 24 (m24e): accounts
  "AddAuthorizedKey", "AddGroupMember", "CreateUser", "LockUser", "RemoveAuthorizedKey", "RemoveGroupMember", "UnlockUser",
  // packages
  "HoldPackage", "UnholdPackage", "UpgradePackages",
  // logs
  "RunLogrotate",
  // storage
  "AddSwapFile", "RemoveSwapFile",
  // scheduling (k24)
  "CreateTimer", "RemoveTimer",
].sort();

describe("catalogue params are strict", () => {
  // A typo'd filter must be an error naming the key, never silently ignored (unfiltered data): issue 14.
  it.each(CATALOGUE.map((a) => [a.name, a] as const))("%s refuses an unknown argument, naming it", (_name, action) => {
    const r = action.params.safeParse({ no_such_argument_x: 1 });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("no_such_argument_x");
  });
});

describe("catalogue classification", () => {
  it("every action declares access explicitly, and the sets match the reviewed lists", () => {
    for (const a of CATALOGUE) expect(["read_only", "mutating"], a.name).toContain(a.access);
    expect(CATALOGUE.filter((a) => a.access === "read_only").map((a) => a.name).sort()).toEqual(READ_ONLY);
    expect(CATALOGUE.filter((a) => a.access === "mutating").map((a) => a.name).sort()).toEqual(MUTATING);
  });

  it("names are unique, PascalCase, and their tool names snake_case", () => {
    const names = CATALOGUE.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) {
      expect(n).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(toolNameOf(n)).toMatch(/^[a-z][a-z0-9_]+$/);
    }
  });

  it("every tool name leads back to its action (read_on_hosts names the tool it fans out: actionNameOf)", () => {
    for (const n of CATALOGUE.map((a) => a.name)) expect(actionNameOf(toolNameOf(n))).toBe(n);
    expect(actionNameOf("get_cpu_thing")).toBe("GetCpuThing");
  });

  it("a low-risk mutating action (the package index update) is still mutating", () => {
    const update = CATALOGUE.find((a) => a.name === "UpdatePackageIndex")!;
    expect(update.risk_level).toBe("low");
    expect(update.access).toBe("mutating");
  });

  it("mutating actions have a preview and an apply, and belong to an action toolset (find_actions finds them there; never direct tools)", () => {
    for (const a of CATALOGUE.filter((x) => x.access === "mutating")) {
      expect(a.toolsets.length, a.name).toBeGreaterThan(0);
      for (const g of a.toolsets) expect(ACTION_TOOLSETS, `${a.name}: ${g}`).toContain(g);
      expect(typeof (a as { preview?: unknown }).preview, a.name).toBe("function");
      expect(typeof (a as { apply?: unknown }).apply, a.name).toBe("function");
    }
  });
});
