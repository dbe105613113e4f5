/**
 * The classic-BPF seccomp filter every confined command runs under (bubblewrap's `--seccomp FD`, the
 * hostgate-confine helper's `--seccomp HEX`; confine.ts). Always:
 * - no namespaces of its own: `unshare(2)` and `clone(2)` with any CLONE_NEW* flag fail with EPERM, `setns(2)`
 *   too, and `clone3(2)` fails with ENOSYS (its flags sit in memory a filter cannot read; libc then falls back
 *   to clone(2)). Without this a command made a user namespace of its own and held every capability in it
 *   without exec (CAP_NET_ADMIN over a fresh network namespace, CAP_SYS_ADMIN for mounts): the kernel surface
 *   most local privilege escalations of recent years went through (docs/security/confine-helper-review.md);
 * - no kernel keyrings (`add_key`, `request_key`, `keyctl`: a keyring of the uid is shared by other commands),
 *   no `userfaultfd(2)`, `bpf(2)`, `perf_event_open(2)` (EPERM), no `io_uring_setup(2)` (EACCES:
 *   IORING_OP_SOCKET would create a socket without calling socket(2)), and `personality(2)` only for the
 *   values Linux programs use (PER_LINUX, PER_LINUX32, UNAME26 and the query 0xffffffff, as Docker's default
 *   profile allows; not ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC…);
 * - a system call made through another ABI than the host's native one (i386 `int 0x80`, x32 on x86_64) fails
 *   with EPERM, so `socketcall(2)` or an unfiltered number cannot go around the filter.
 * Without network (`sockets` `local` or `netlink`): `socket(2)` is allowed only for AF_UNIX (D-Bus: `systemctl
 * status`) and AF_NETLINK (sock_diag: `ss -ltnp`), or for AF_NETLINK alone (`netlink`: a command that keeps the
 * host's network namespace to see its sockets, and so must not reach its abstract Unix sockets); every other
 * family (AF_INET, AF_INET6, AF_PACKET, AF_VSOCK…) fails with EACCES. `socketpair(2)` stays allowed (an
 * unnamed pair reaches no other process).
 *
 * The program is what bubblewrap's `--seccomp FD` loads (it reads a `struct sock_filter[]`, as
 * seccomp_export_bpf(3) writes it). Sources: linux/seccomp.h (struct seccomp_data, SECCOMP_RET_*),
 * linux/filter.h and linux/bpf_common.h (opcodes), linux/audit.h (AUDIT_ARCH_*), linux/sched.h (CLONE_NEW*),
 * linux/personality.h, the syscall tables arch/x86/entry/syscalls/syscall_64.tbl and
 * include/uapi/asm-generic/unistd.h (aarch64), socket.h (AF_*).
 */

/** Architectures the filter is built for, as `uname -m` names them. Another architecture has no filter (null). */
export type SeccompArch = "x86_64" | "aarch64";

/** Which sockets a confined command may create: `all` (network granted), `local` (AF_UNIX, AF_NETLINK), `netlink`. */
export type SocketRule = "all" | "local" | "netlink";

interface ArchInfo {
  /** AUDIT_ARCH_* value: EM_* | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE. */
  audit: number;
  /** System call numbers. */
  nr: Record<"socket" | "io_uring_setup" | "clone" | "clone3" | "unshare" | "setns" | "add_key" | "request_key" | "keyctl" | "userfaultfd" | "bpf" | "perf_event_open" | "personality", number>;
  /** x86_64 only: syscall numbers with this bit are the x32 ABI. */
  x32_bit?: number;
}

const ARCHES: Record<SeccompArch, ArchInfo> = {
  x86_64: {
    audit: 0xc000003e, x32_bit: 0x40000000,
    nr: { socket: 41, io_uring_setup: 425, clone: 56, clone3: 435, unshare: 272, setns: 308, add_key: 248, request_key: 249, keyctl: 250, userfaultfd: 323, bpf: 321, perf_event_open: 298, personality: 135 },
  },
  aarch64: {
    audit: 0xc00000b7,
    nr: { socket: 198, io_uring_setup: 425, clone: 220, clone3: 435, unshare: 97, setns: 268, add_key: 217, request_key: 218, keyctl: 219, userfaultfd: 282, bpf: 280, perf_event_open: 241, personality: 92 },
  },
};

const AF_UNIX = 1;
const AF_NETLINK = 16;
const EPERM = 1;
const EACCES = 13;
const ENOSYS = 38;
/** CLONE_NEWTIME | CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET. */
const CLONE_NEW_ANY = 0x00000080 | 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** personality(2) values allowed: PER_LINUX, PER_LINUX32, UNAME26, UNAME26 | PER_LINUX32, and the query. */
const PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

// Opcodes (linux/bpf_common.h): class | size | mode, jump ops, return.
const LD_W_ABS = 0x00 | 0x00 | 0x20;
const JEQ_K = 0x05 | 0x10 | 0x00;
const JGE_K = 0x05 | 0x30 | 0x00;
const JSET_K = 0x05 | 0x40 | 0x00;
const RET_K = 0x06 | 0x00;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

// Offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (args[0]'s low
// 32 bits on a little-endian host: every value checked here fits in them, and the kernel reads only the low
// 32 bits of clone's flags, unshare's and personality's int).
const OFF_NR = 0;
const OFF_ARCH = 4;
const OFF_ARG0 = 16;

type Insn =
  | { op: "ld"; k: number; label?: string }
  | { op: "jeq" | "jge" | "jset"; k: number; then: string | null; else: string | null; label?: string }
  | { op: "ret"; k: number; label?: string };

/** True when `m` (a `uname -m` answer) has a filter. */
export function hasSeccompFilter(m: string): m is SeccompArch {
  return Object.hasOwn(ARCHES, m);
}

/**
 * The filter for `arch` (see the header), as the bytes of a `struct sock_filter[]` in little-endian order (8
 * bytes an instruction: u16 code, u8 jt, u8 jf, u32 k). `sockets` (default `local`): which sockets may be made.
 */
export function sandboxFilter(arch: SeccompArch, opts: { sockets?: SocketRule } = {}): Uint8Array {
  const a = ARCHES[arch];
  const sockets = opts.sockets ?? "local";
  const to = (nr: number, label: string): Insn => ({ op: "jeq", k: nr, then: label, else: null });
  const prog: Insn[] = [
    { op: "ld", k: OFF_ARCH },
    { op: "jeq", k: a.audit, then: null, else: "eperm" },
    { op: "ld", k: OFF_NR },
    ...(a.x32_bit !== undefined ? [{ op: "jge", k: a.x32_bit, then: "eperm", else: null } as const] : []),
    to(a.nr.io_uring_setup, "eacces"),
    to(a.nr.clone3, "enosys"),
    ...[a.nr.setns, a.nr.add_key, a.nr.request_key, a.nr.keyctl, a.nr.userfaultfd, a.nr.bpf, a.nr.perf_event_open].map((nr) => to(nr, "eperm")),
    to(a.nr.unshare, "flags"),
    to(a.nr.clone, "flags"),
    to(a.nr.personality, "persona"),
    ...(sockets === "all" ? [] : [to(a.nr.socket, "family")]),
    { op: "ret", k: RET_ALLOW },
    // Argument checks (classic BPF jumps only forward: every block ends in the returns below).
    { op: "ld", k: OFF_ARG0, label: "flags" },
    { op: "jset", k: CLONE_NEW_ANY, then: "eperm", else: "allow" },
    { op: "ld", k: OFF_ARG0, label: "persona" },
    ...PERSONALITIES.map((p) => to(p, "allow")),
    { op: "ret", k: RET_ERRNO | EPERM },
    ...(sockets === "all" ? [] : [
      { op: "ld", k: OFF_ARG0, label: "family" } as const,
      ...(sockets === "local" ? [to(AF_UNIX, "allow")] : []),
      to(AF_NETLINK, "allow"),
    ]),
    { op: "ret", k: RET_ERRNO | EACCES, label: "eacces" },
    { op: "ret", k: RET_ERRNO | EPERM, label: "eperm" },
    { op: "ret", k: RET_ERRNO | ENOSYS, label: "enosys" },
    { op: "ret", k: RET_ALLOW, label: "allow" },
  ];
  return assemble(prog);
}

/** The filter without network: {@link sandboxFilter} with sockets `local`, or `netlink` when `unix` is false. */
export function noNetworkFilter(arch: SeccompArch, opts: { unix?: boolean } = {}): Uint8Array {
  return sandboxFilter(arch, { sockets: opts.unix === false ? "netlink" : "local" });
}

function assemble(prog: readonly Insn[]): Uint8Array {
  const at = new Map<string, number>();
  prog.forEach((i, n) => { if (i.label) at.set(i.label, n); });
  const out = new Uint8Array(prog.length * 8);
  const view = new DataView(out.buffer);
  prog.forEach((i, n) => {
    const jump = (label: string | null): number => {
      if (label === null) return 0;
      const off = at.get(label)! - n - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp: jump to ${label} out of range`);
      return off;
    };
    const code = i.op === "ld" ? LD_W_ABS : i.op === "jeq" ? JEQ_K : i.op === "jge" ? JGE_K : i.op === "jset" ? JSET_K : RET_K;
    const jumps = i.op === "jeq" || i.op === "jge" || i.op === "jset";
    view.setUint16(n * 8, code, true);
    view.setUint8(n * 8 + 2, jumps ? jump(i.then) : 0);
    view.setUint8(n * 8 + 3, jumps ? jump(i.else) : 0);
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
