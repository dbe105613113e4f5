/**
 * A front started by an npm script (`npm start`) ends with that npm (issue 22). npm forwards only SIGINT and
 * SIGTERM to a script it runs (@npmcli/run-script signal-manager); on SIGHUP, or when npm itself is killed with
 * SIGKILL, it goes away and leaves its script running, re-parented. package.json's start script `exec`s node
 * (no `sh -c` in between to swallow a forwarded signal), so this process's parent is npm itself, and this
 * watch ends it when that parent is gone.
 *
 * Only under an npm script (npm sets `npm_lifecycle_event`): a `hostgate serve &` whose shell exits keeps running.
 */

/** How often the parent is checked, in milliseconds. */
export const PARENT_POLL_MS = 500;

/**
 * Calls `onGone` once when the parent process this one started under no longer exists (`kill(ppid, 0)` fails
 * with ESRCH), checked every {@link PARENT_POLL_MS} ms on an unref'd timer. Does nothing unless `env` says an
 * npm script runs this process. Returns a function that stops the watch.
 */
export function endWithNpmParent(env: NodeJS.ProcessEnv, onGone: () => void): () => void {
  if (!env.npm_lifecycle_event) return () => undefined;
  const parent = process.ppid;
  const timer = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch (err) {
      // EPERM: the pid exists under another user (it was reused): the npm that started this front is gone too.
      if ((err as NodeJS.ErrnoException).code !== "ESRCH" && (err as NodeJS.ErrnoException).code !== "EPERM") return;
      clearInterval(timer);
      onGone();
    }
  }, PARENT_POLL_MS);
  timer.unref();
  return () => { clearInterval(timer); };
}
