/**
 * Opening a one-time console link in the user's browser without putting its secret on any command line
 * (issue 23, newcomer trial: a model polling `list_processes` read `xdg-open http://…/enroll#<secret>` from
 * the opener's argv and used the link first). The link goes into a redirect page instead — a file of mode
 * 0600 in a fresh directory of mode 0700 under `$XDG_RUNTIME_DIR` (else the temp directory) holding a meta
 * refresh and a plain link, as Jupyter does for its token — and the opener's argv carries only that file's
 * `file://` URL. The page is left in place (the browser may read it after the opener has exited); the link
 * it holds works once and expires after 5 minutes, and the next `hostgate console` removes this user's pages
 * older than {@link STALE_PAGE_MS}.
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Whether a browser can be opened for the user: a graphical session (DISPLAY or WAYLAND_DISPLAY). Never a
 * reason to fail: without one the link is printed only.
 */
export function canOpenBrowser(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** `text` safe inside a double-quoted HTML attribute or element content. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The redirect page for `url`: a meta refresh and a plain link (for browsers that ignore the refresh). */
export function redirectPage(url: string): string {
  const u = escapeHtml(url);
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${u}">`
    + `<title>hostgate console</title></head>\n<body><p>Opening the hostgate approval console… If nothing happens, <a href="${u}">open it here</a>.</p></body></html>\n`;
}

/** The directory a redirect page goes in: `$XDG_RUNTIME_DIR` when it is an existing directory, else the temp directory. */
function pageParent(env: NodeJS.ProcessEnv): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && runtime.startsWith("/")) {
    try {
      if (statSync(runtime).isDirectory()) return runtime;
    } catch {
      // not there: the temp directory
    }
  }
  return tmpdir();
}

/** Age after which a redirect page is removed by the next run, milliseconds (10 minutes: twice a link's life). */
export const STALE_PAGE_MS = 10 * 60_000;
const PAGE_DIR_PREFIX = "hostgate-console-";
const PAGE_FILE = "open.html";

/**
 * Removes this user's redirect pages older than {@link STALE_PAGE_MS} under `parent`: only directories named
 * `hostgate-console-*` that are real directories (lstat: never a link) owned by this uid, and in them only the
 * `open.html` this module writes; a directory holding anything else stays. Best effort: never throws.
 */
export function pruneRedirectPages(parent: string, now = Date.now()): void {
  let names: string[];
  try { names = readdirSync(parent); } catch { return; }
  for (const name of names) {
    if (!name.startsWith(PAGE_DIR_PREFIX)) continue;
    const dir = join(parent, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || st.uid !== process.getuid?.() || now - st.mtimeMs < STALE_PAGE_MS) continue;
      const inside = readdirSync(dir);
      if (inside.some((n) => n !== PAGE_FILE)) continue;
      if (inside.length === 1 && lstatSync(join(dir, PAGE_FILE)).isFile()) unlinkSync(join(dir, PAGE_FILE));
      rmdirSync(dir);
    } catch {
      // raced with another run, or not ours to remove: leave it
    }
  }
}

/**
 * Writes the redirect page for `url` into a fresh 0700 directory (mkdtemp) as a 0600 file created exclusively;
 * returns its path. Throws the file system's error when it cannot be written.
 */
export function writeRedirectPage(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const parent = pageParent(env);
  pruneRedirectPages(parent);
  const dir = mkdtempSync(join(parent, PAGE_DIR_PREFIX));
  const file = join(dir, PAGE_FILE);
  writeFileSync(file, redirectPage(url), { mode: 0o600, flag: "wx" });
  return file;
}

/** Runs `xdg-open <arg>` detached; resolves false (never throws) when it cannot be started. */
function xdgOpen(arg: string): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      const child = spawn("xdg-open", [arg], { detached: true, stdio: "ignore" });
      child.once("error", () => { resolve(false); });
      child.once("spawn", () => { child.unref(); resolve(true); });
    } catch {
      resolve(false);
    }
  });
}

/**
 * Opens the secret-bearing `url` in the browser through a redirect page (see the module comment): the opener's
 * argv is `xdg-open file:///…/open.html`, never the link. Resolves false (never throws) when the page cannot be
 * written or xdg-open cannot be started; the caller has printed the link for the user to open.
 */
export async function openLinkInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  let file: string;
  try {
    file = writeRedirectPage(url, env);
  } catch {
    return false;
  }
  return xdgOpen(pathToFileURL(file).href);
}
