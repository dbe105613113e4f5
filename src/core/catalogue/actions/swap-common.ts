import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { mountOf, parseMountinfo } from "../../host/mountinfo.ts";
import { chainOf, rootOnlyDirRefusal } from "../../host/root-only-dir.ts";
import { isWithinRoot } from "../../paths.ts";
import { HOSTGATE_ROOTS } from "./write-path-rules.ts";

/**
 * What AddSwapFile and RemoveSwapFile share: the path rule, the file system a swap file may live on, /proc/swaps,
 * and /etc/fstab's swap line for the file (fstab(5): `PATH none swap sw 0 0`).
 */

/** A normalised absolute path outside the kernel's and the system's own trees. */
export const swapPath = z.string().max(1024).regex(/^\/[A-Za-z0-9._+\-/]+$/, "an absolute path such as /swapfile or /var/swap/swap1 (letters, digits, . _ + - /)")
  .refine((p) => !p.split("/").slice(1).some((c) => c === "" || c === "." || c === ".."), "a normalised path: no '.', '..', '//' or trailing '/'")
  .refine((p) => !/^\/(proc|sys|dev|run|boot|etc|usr|bin|sbin|lib|lib64)(\/|$)/.test(p), "not under /proc, /sys, /dev, /run, /boot, /etc, /usr, /bin, /sbin or /lib");

/** File systems a swap file may be on without special preparation (swapon(8) "Files with holes", btrfs needs nocow). */
export const SWAP_FS = ["ext2", "ext3", "ext4", "xfs"];

export const FSTAB = "/etc/fstab";

/** The file system type of the mount holding `dir` (core/host/mountinfo.ts mountOf: the visible mount, never one mounted over). */
export async function fsTypeOf(ctx: ActionContext, dir: string): Promise<{ fs_type: string; mount_point: string }> {
  const m = mountOf(parseMountinfo(await ctx.host.readText("/proc/self/mountinfo")), dir);
  if (m === null) throw new HostgateError("unavailable", `No mount holds ${dir} in /proc/self/mountinfo.`);
  return { fs_type: m.fs_type, mount_point: m.mount_point };
}

/** Why a swap file cannot live on this file system, or null. */
export function fsRefusal(fsType: string): string | null {
  if (SWAP_FS.includes(fsType)) return null;
  if (fsType === "btrfs") return "btrfs holds a swap file only when it is created nocow on a single device (btrfs filesystem mkswapfile); hostgate does not prepare that";
  if (fsType === "tmpfs" || fsType === "ramfs") return `${fsType} lives in memory: swap there frees nothing`;
  return `swap files are created on ${SWAP_FS.join(", ")} only`;
}

/** Active swap areas from /proc/swaps (proc(5)): path, type, size and use in KiB. */
export async function activeSwaps(ctx: ActionContext): Promise<{ path: string; type: string; size_kib: number; used_kib: number }[]> {
  const text = await ctx.host.readText("/proc/swaps");
  return text.split("\n").slice(1).filter(Boolean).map((l) => {
    const [path = "", type = "", size = "0", used = "0"] = l.trim().split(/\s+/);
    return { path: path.replace(/\\040/g, " "), type, size_kib: Number(size), used_kib: Number(used) };
  });
}

/** /etc/fstab now, its SHA-256, and the indexes of lines that name `path` as swap. */
export async function readFstab(ctx: ActionContext, path: string): Promise<{ text: string; sha256: string; lines: number[] }> {
  let text = "";
  try {
    text = await ctx.host.readText(FSTAB, { maxBytes: 256 * 1024 });
  } catch (err) {
    if (!(err instanceof HostgateError && err.code === "not_found")) throw err;
  }
  const lines: number[] = [];
  text.split("\n").forEach((l, i) => {
    const f = l.trim().split(/\s+/);
    if (!l.trim().startsWith("#") && f[0] === path && f[2] === "swap") lines.push(i);
  });
  return { text, sha256: ctx.hash.sha256Hex(text), lines };
}

/** The fstab line AddSwapFile writes. */
export const fstabLine = (path: string): string => `${path} none swap sw 0 0`;

/** A unified diff of /etc/fstab (3 lines of context). */
export function fstabDiff(before: string, after: string): string {
  return createTwoFilesPatch(`a${FSTAB}`, `b${FSTAB}`, before, after, undefined, undefined, { context: 3 }).replace(/^=+\n/, "");
}

/**
 * Refuses a swap file whose directory chain someone other than root could change (core/host/root-only-dir.ts: every
 * directory from `/` to `dir` lstat'd top down, each a real directory owned by root, not writable by group or
 * other; sticky /tmp refused), and one inside hostgate's own state, runtime or configuration directories. Run at
 * plan and again at execute (apply plans again). `use`: "add" (AddSwapFile: root creates the file, then mkswap and
 * swapon take its path; the mutator re-checks the chain on held descriptors when it creates the file) or "remove"
 * (RemoveSwapFile: swapoff takes a path, so someone who can change a name on it could put another swap file there
 * between the check and swapoff). Over SSH the probe's lstat is SFTP's (uid and mode). Throws `invalid_params`
 * naming the directory and what to do.
 */
export async function refuseUnsafeSwapDir(ctx: ActionContext, path: string, dir: string, use: "add" | "remove" = "add"): Promise<void> {
  const own = [...HOSTGATE_ROOTS, ...ctx.protected_paths].find((r) => isWithinRoot(path, r));
  if (own !== undefined) {
    throw use === "add"
      ? new HostgateError("invalid_params", `${path} is inside ${own}, hostgate's own state or configuration; a swap file is never put there.`, { hint: "Pick a path such as /swapfile or /var/lib/swap/swap1." })
      : new HostgateError("invalid_params", `${path} is inside ${own}, hostgate's own state or configuration; RemoveSwapFile never turns off or deletes a file there. Nothing was changed.`, { hint: "Turn it off and delete it yourself (swapoff, rm) if it really is a swap file." });
  }
  for (const d of chainOf(dir)) {
    const why = rootOnlyDirRefusal(d, await ctx.host.stat(d));
    if (why === null) continue;
    if (use === "add") {
      throw new HostgateError("invalid_params", `${path} cannot hold a swap file: ${why}. Root creates the file and then hands its path to mkswap and swapon, so every directory above it must be one only root can change.`, {
        hint: "Pick a directory owned by root and writable by root alone, e.g. /swapfile or /var/lib/swap/ (not /tmp, /var/tmp or a home).",
        details: { directory: d },
      });
    }
    throw new HostgateError("invalid_params", `${path} is not removed: ${why}. swapoff takes a path, so every directory above the swap file must be one only root can change; otherwise another swap file could take its name between the check and swapoff. Nothing was changed.`, {
      hint: `Make ${d} owned by root and writable by root alone (e.g. chown root ${d} && chmod go-w ${d}) and plan again, or turn the file off and delete it yourself (swapoff, rm).`,
      details: { directory: d },
    });
  }
}
