import { lstatSync, readdirSync, realpathSync, type Dirent } from "node:fs";
import { dirname, join, sep } from "node:path";
import { untrustedWriter, type EntryFacts } from "../core/service/tree-trust.ts";

/** One entry a non-root user could change, and how. */
export interface TreeFinding {
  path: string;
  why: string;
}

/** What {@link checkInstallTree} found: up to `limit` findings and how many there were in all; `entries` walked. */
export interface TreeReport {
  findings: TreeFinding[];
  total: number;
  entries: number;
}

function facts(path: string): EntryFacts {
  const s = lstatSync(path);
  return { path, uid: s.uid, gid: s.gid, mode: s.mode & 0o7777, dir: s.isDirectory() };
}

/**
 * Walks what a root service would run and lists every entry a non-root user could change
 * (core/service/tree-trust.ts): the real path of `node` and each directory above it, the real package root and
 * each directory above it, and every entry under the package root (`.git` skipped: nothing runs from it). A
 * symbolic link is judged by its target, and a target outside the package by the directories above it and,
 * for a directory, everything under it. At most
 * `limit` findings are kept (default 10); `total` counts all. Errors: an unreadable path is itself a finding.
 */
export function checkInstallTree(node: string, packageRoot: string, limit = 10): TreeReport {
  const report: TreeReport = { findings: [], total: 0, entries: 0 };
  const seen = new Set<string>();
  const walked = new Set<string>();
  const add = (path: string, why: string): void => {
    report.total++;
    if (report.findings.length < limit) report.findings.push({ path, why });
  };
  const judge = (path: string): EntryFacts | null => {
    report.entries++;
    try {
      const f = facts(path);
      const why = untrustedWriter(f);
      if (why) add(path, why);
      return f;
    } catch (err) {
      add(path, `cannot be checked (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return null;
    }
  };
  /** `path` (already real) and every directory above it, each once. */
  const upward = (path: string): void => {
    for (let p = path; ; p = dirname(p)) {
      if (!seen.has(p)) {
        seen.add(p);
        judge(p);
      }
      if (dirname(p) === p) return;
    }
  };
  upward(realpathSync(node));
  const root = realpathSync(packageRoot);
  upward(root);
  const walk = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      add(dir, `cannot be listed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return;
    }
    for (const entry of entries) {
      if (dir === root && entry.name === ".git") continue;
      const path = join(dir, entry.name);
      if (!entry.isSymbolicLink()) {
        if (judge(path)?.dir) walk(path);
        continue;
      }
      // A link's own mode means nothing (always 0777 on Linux): what runs is its target. Inside the package
      // the walk meets the target anyway; outside, judge it and the directories above it.
      let target: string;
      try {
        target = realpathSync(path);
      } catch {
        continue; // a dangling link runs nothing
      }
      if (target === root || target.startsWith(root + sep) || walked.has(target)) continue;
      upward(target);
      walked.add(target);
      if (lstatSync(target).isDirectory()) walk(target);
    }
  };
  walk(root);
  return report;
}
