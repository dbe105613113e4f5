// Compiles the hostgate-confine helper (native/confine-helper.c) into dist/ for the daemon's own host
// (src/adapters/confine-helper.ts). Optional: without a C compiler the daemon uses bubblewrap, and this says so.
import { buildConfineHelper, builtConfineHelperPath } from "../src/adapters/confine-helper.ts";

const out = builtConfineHelperPath();
try {
  if (out === null) throw new Error("no package root");
  buildConfineHelper(out);
} catch (e) {
  process.stderr.write(`note: ${(e as Error).message}\n`);
}
