/**
 * The npm-shrinkwrap.json hostgate ships in its npm package (issue 25 re-trial 6), made from package-lock.json at
 * pack time. npm documents npm-shrinkwrap.json as the lockfile a package may publish, recommended for "daemons and
 * command-line tools intended as global installs" (docs.npmjs.com, configuring-npm/npm-shrinkwrap-json): without
 * it `npm i -g hostgate` resolves every transitive version afresh. Pure: the lockfile comes in as data.
 */

/** One entry of a lockfile's `packages` map (lockfileVersion 2 or 3); only the fields read here are typed. */
export interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  devDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** A package-lock.json / npm-shrinkwrap.json (lockfileVersion ≥ 2: the `packages` map). */
export interface Lockfile {
  name: string;
  version: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
  [field: string]: unknown;
}

/**
 * The production part of `lock`: every package entry npm marks `dev` (needed only by devDependencies) is left
 * out, `devOptional` (a dev dependency that is also an optional dependency of a production one) becomes
 * `optional`, and the root entry loses its devDependencies. Versions, `resolved` and `integrity` are kept as the
 * lockfile has them. Throws when `lock` has no `packages` map (lockfileVersion 1: regenerate it with npm ≥ 7).
 */
export function productionShrinkwrap(lock: Lockfile): Lockfile {
  if (typeof lock.packages !== "object" || lock.packages === null || lock.lockfileVersion < 2) {
    throw new Error(`package-lock.json has lockfileVersion ${String(lock.lockfileVersion)} without a "packages" map: run npm install with npm 7 or later to rewrite it.`);
  }
  const packages: Record<string, LockEntry> = {};
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (entry.dev) continue;
    if (path === "") {
      const root = { ...entry };
      delete root.devDependencies;
      packages[path] = root;
    } else if (entry.devOptional) {
      const rest: LockEntry = { ...entry, optional: true };
      delete rest.devOptional;
      packages[path] = rest;
    } else packages[path] = entry;
  }
  return { ...lock, packages };
}
