/**
 * A classic-BPF seccomp filter that takes the network away from a confined command (bubblewrap also gives it
 * a network namespace of its own: confine.ts): `socket(2)` is allowed only for AF_UNIX (D-Bus: `systemctl
 * status`) and AF_NETLINK (sock_diag: `ss -ltnp`), or for AF_NETLINK alone (`unix: false`: a command that keeps
 * the host's network namespace to see its sockets, and so must not reach its abstract Unix sockets); every other family (AF_INET, AF_INET6, AF_PACKET, AF_VSOCK…) fails with
 * EACCES. `io_uring_setup(2)` fails too (IORING_OP_SOCKET would create a socket without calling socket(2)).
 * A system call made through another ABI than the host's native one (i386 `int 0x80` or x32 on x86_64) fails
 * with EPERM, so `socketcall(2)` cannot go around the filter.
 *
 * The program is what bubblewrap's `--seccomp FD` loads (it reads a `struct sock_filter[]`, as
 * seccomp_export_bpf(3) writes it). Sources: linux/seccomp.h (struct seccomp_data, SECCOMP_RET_*),
 * linux/filter.h and linux/bpf_common.h (opcodes), linux/audit.h (AUDIT_ARCH_*), the syscall tables
 * arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h (aarch64), socket.h (AF_*).
 */

/** Architectures the filter is built for, as `uname -m` names them. Another architecture has no filter (null). */
export type SeccompArch = "x86_64" | "aarch64";

interface ArchInfo {
  /** AUDIT_ARCH_* value: EM_* | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. */
  audit: number;
  socket: number;
  io_uring_setup: number;
  /** x86_64 only: syscall numbers with this bit are the x32 ABI. */
  x32_bit?: number;
}

const ARCHES: Record<SeccompArch, ArchInfo> = {
  x86_64: { audit: 0xc000003e, socket: 41, io_uring_setup: 425, x32_bit: 0x40000000 },
  aarch64: { audit: 0xc00000b7, socket: 198, io_uring_setup: 425 },
};

const AF_UNIX = 1;
const AF_NETLINK = 16;
const EPERM = 1;
const EACCES = 13;

// Opcodes (linux/bpf_common.h): class | size | mode, jump ops, return.
const LD_W_ABS = 0x00 | 0x00 | 0x20;
const JEQ_K = 0x05 | 0x10 | 0x00;
const JGE_K = 0x05 | 0x30 | 0x00;
const RET_K = 0x06 | 0x00;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

// Offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (args[0]'s low
// 32 bits on a little-endian host).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;

type Insn =
  | { op: "ld"; k: number }
  | { op: "jeq" | "jge"; k: number; then: string | null; else: string | null }
  | { op: "ret"; k: number; label?: string };

/** True when `m` (a `uname -m` answer) has a filter. */
export function hasSeccompFilter(m: string): m is SeccompArch {
  return Object.hasOwn(ARCHES, m);
}

/**
 * The filter for `arch`, as the bytes of a `struct sock_filter[]` in little-endian order (8 bytes an
 * instruction: u16 code, u8 jt, u8 jf, u32 k). `unix` (default true): whether `socket(AF_UNIX, …)` is allowed.
 * `socketpair(2)` stays allowed either way (an unnamed pair reaches no other process).
 */
export function noNetworkFilter(arch: SeccompArch, opts: { unix?: boolean } = {}): Uint8Array {
  const a = ARCHES[arch];
  const prog: Insn[] = [
    { op: "ld", k: OFF_ARCH },
    { op: "jeq", k: a.audit, then: null, else: "foreign_abi" },
    { op: "ld", k: OFF_NR },
    ...(a.x32_bit !== undefined ? [{ op: "jge", k: a.x32_bit, then: "foreign_abi", else: null } as const] : []),
    { op: "jeq", k: a.io_uring_setup, then: "refuse", else: null },
    { op: "jeq", k: a.socket, then: null, else: "allow" },
    { op: "ld", k: OFF_ARG0 },
    ...(opts.unix === false ? [] : [{ op: "jeq", k: AF_UNIX, then: "allow", else: null } as const]),
    { op: "jeq", k: AF_NETLINK, then: "allow", else: null },
    { op: "ret", k: RET_ERRNO | EACCES, label: "refuse" },
    { op: "ret", k: RET_ALLOW, label: "allow" },
    { op: "ret", k: RET_ERRNO | EPERM, label: "foreign_abi" },
  ];
  const at = new Map<string, number>();
  prog.forEach((i, n) => { if (i.op === "ret" && i.label) at.set(i.label, n); });
  const out = new Uint8Array(prog.length * 8);
  const view = new DataView(out.buffer);
  prog.forEach((i, n) => {
    const jump = (label: string | null): number => {
      if (label === null) return 0;
      const off = at.get(label)! - n - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${label} out of range`);
      return off;
    };
    const code = i.op === "ld" ? LD_W_ABS : i.op === "jeq" ? JEQ_K : i.op === "jge" ? JGE_K : RET_K;
    view.setUint16(n * 8, code, true);
    view.setUint8(n * 8 + 2, i.op === "jeq" || i.op === "jge" ? jump(i.then) : 0);
    view.setUint8(n * 8 + 3, i.op === "jeq" || i.op === "jge" ? jump(i.else) : 0);
    view.setUint32(n * 8 + 4, i.k >>> 0, true);
  });
  return out;
}

/** `bytes` as a POSIX `printf` format string of three-digit octal escapes (`\ooo`, NUL as `\000`), safe inside single quotes. */
export function printfOctal(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += `\\${b.toString(8).padStart(3, "0")}`;
  return s;
}
