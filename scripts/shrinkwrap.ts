// `npm pack` hooks (package.json prepack/postpack; issue 25 re-trial 6): `write` makes npm-shrinkwrap.json from
// package-lock.json's production packages (scripts/shrinkwrap-files.ts) for the tarball, `remove` deletes it after
// packing, so the checkout keeps installing from package-lock.json (npm prefers a shrinkwrap when both are there).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { productionShrinkwrap, type Lockfile } from "./shrinkwrap-files.ts";

const root = join(import.meta.dirname, "..");
const target = join(root, "npm-shrinkwrap.json");
const [verb] = process.argv.slice(2);
if (verb === "write") {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as Lockfile;
  writeFileSync(target, `${JSON.stringify(productionShrinkwrap(lock), null, 2)}\n`);
} else if (verb === "remove") {
  rmSync(target, { force: true });
} else {
  process.stderr.write("usage: tsx scripts/shrinkwrap.ts write|remove (npm pack runs both)\n");
  process.exit(2);
}
