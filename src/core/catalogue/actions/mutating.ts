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

/**
 * The package, file, process and disk-space (issue 22) mutating actions, for CATALOGUE. None is a direct tool (`toolsets: []`);
 * each runs only through plan → approve → execute.
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
