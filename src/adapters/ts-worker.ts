import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * The URL of a worker module beside `from` (an `import.meta.url`): `<stem>.ts` when running from sources,
 * `<stem>.js` in the build (scripts/build.mjs lists each worker as an entry point).
 */
export function workerUrl(from: string, stem: string): URL {
  return new URL(from.endsWith(".ts") ? `./${stem}.ts` : `./${stem}.js`, from);
}

/**
 * Starts a worker thread on a module. When running from sources (tests, tsx) the worker first registers the
 * tsx loader, resolved from this package, then imports the file; a compiled build imports it directly.
 */
export function startWorker(url: URL, opts: Omit<WorkerOptions, "eval"> = {}): Worker {
  if (!url.pathname.endsWith(".ts")) return new Worker(url, opts);
  const tsxDir = dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
  const api = pathToFileURL(join(tsxDir, "dist/esm/api/index.mjs")).href;
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { ...opts, eval: true });
}
