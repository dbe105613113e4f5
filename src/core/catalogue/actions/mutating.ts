import type { Action } from "../action.ts";
import installPackage from "./install-package.ts";
import removePackage from "./remove-package.ts";
import signalProcess from "./signal-process.ts";
import updatePackageIndex from "./update-package-index.ts";
import writeFile from "./write-file.ts";

/**
 * The package, file and process mutating actions, for CATALOGUE. None is a direct tool (`toolsets: []`);
 * each runs only through plan → approve → execute.
 */
export const packageFileProcessActions: readonly Action[] = [
  installPackage,
  removePackage,
  updatePackageIndex,
  signalProcess,
  writeFile,
] as Action[];
