import { createRequire } from "node:module";
import type { Socket } from "node:net";
import type { PeerCredentials } from "../core/caller.ts";

/**
 * SO_PEERCRED for accepted Unix-socket connections (Linux): the pid, uid and gid of the process that
 * connected, as the kernel recorded them at connect(2). Node has no API for it; koffi calls libc's
 * getsockopt(fd, SOL_SOCKET = 1, SO_PEERCRED = 17, &ucred, &len) with struct ucred { int32 pid; uint32 uid;
 * uint32 gid; } (socket(7)). libc is loaded on first use. Returns null when the platform or the socket
 * cannot say (not Linux, no fd, getsockopt failed): the caller's peer is then unknown, never guessed.
 */

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;

type GetSockOpt = (fd: number, level: number, name: number, value: { pid: number; uid: number; gid: number }, len: number[]) => number;
let getsockopt: GetSockOpt | null | undefined;

function load(): GetSockOpt | null {
  if (getsockopt !== undefined) return getsockopt;
  if (process.platform !== "linux") return (getsockopt = null);
  try {
    const koffi = createRequire(import.meta.url)("koffi") as typeof import("koffi");
    const lib = koffi.load("libc.so.6");
    koffi.struct("hostgate_ucred", { pid: "int32", uid: "uint32", gid: "uint32" });
    const fn: unknown = lib.func("int getsockopt(int, int, int, _Out_ hostgate_ucred *, _Inout_ uint32 *)");
    getsockopt = fn as GetSockOpt;
  } catch {
    getsockopt = null;
  }
  return getsockopt;
}

/** The kernel's peer credentials of an accepted Unix-socket connection, or null when unknown (see the module comment). */
export function readPeerCredentials(socket: Socket): PeerCredentials | null {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return null;
  const call = load();
  if (!call) return null;
  const out = { pid: 0, uid: 0, gid: 0 };
  const len = [12];
  if (call(fd, SOL_SOCKET, SO_PEERCRED, out, len) !== 0) return null;
  if (out.pid <= 0) return null;
  return { uid: out.uid, gid: out.gid, pid: out.pid };
}
