import type { Action } from "../action.ts";
import addAuthorizedKey from "./add-authorized-key.ts";
import addGroupMember from "./add-group-member.ts";
import createUser from "./create-user.ts";
import lockUser from "./lock-user.ts";
import removeAuthorizedKey from "./remove-authorized-key.ts";
import removeGroupMember from "./remove-group-member.ts";
import unlockUser from "./unlock-user.ts";
import holdPackage from "./hold-package.ts";
import unholdPackage from "./unhold-package.ts";
import upgradePackages from "./upgrade-packages.ts";
import runLogrotate from "./run-logrotate.ts";
import addSwapFile from "./add-swap-file.ts";
import removeSwapFile from "./remove-swap-file.ts";

/**
 * Issue 24's account, scheduling, storage, log and package mutating actions (branch m24e), for CATALOGUE. Like every
 * mutating action they are in no toolset (never direct tools): they run only through plan → approve → execute.
 */
export const hostAdminActions: readonly Action[] = [
  createUser,
  lockUser,
  unlockUser,
  addGroupMember,
  removeGroupMember,
  addAuthorizedKey,
  removeAuthorizedKey,
  upgradePackages,
  holdPackage,
  unholdPackage,
  runLogrotate,
  addSwapFile,
  removeSwapFile,
] as Action[];
