import { innerCmd, type Cmd } from "./command.ts";
import { parseOptions, type OptionSpec } from "./options.ts";

/**
 * Commands that run another command given as their remaining words. For each: its option grammar
 * (so an option's value is never mistaken for the inner command), how many operands come before the
 * inner command, what runs when no command is given, and whether it runs anything at all with some flag.
 * Sources: the sudo, env, coreutils (nice, timeout, nohup, stdbuf, chroot), util-linux (setsid, ionice,
 * taskset, chrt, flock, nsenter, unshare), findutils (xargs), bash (command, builtin, exec) manuals.
 */
export interface WrapperSpec {
  options: OptionSpec;
  /** Operands consumed before the inner command (timeout's duration, chroot's new root…). */
  skip?: number;
  /** When no inner command is given: `shell` = an interactive shell runs, `none` = nothing runs. */
  bare?: "shell" | "none";
  /** Flags that mean no command runs (`command -v`). */
  noExec?: readonly string[];
  /** Flags that start an interactive shell (`sudo -i`, `sudo -s`) when no command follows. */
  shellFlags?: readonly string[];
  /** Inner command defaults to this when absent (xargs runs echo). */
  defaultCommand?: string;
}

const P = true;

/** Wrapper table, keyed by normalised command name. */
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  sudo: {
    options: { posix: P, shortArgs: "ugpCDrtTUh", longArgs: ["user", "group", "prompt", "close-from", "chdir", "role", "type", "command-timeout", "other-user", "host"], longFlags: ["login", "shell", "preserve-env", "non-interactive", "background", "stdin", "set-home", "edit", "reset-timestamp", "remove-timestamp", "validate", "list"] },
    bare: "none",
    shellFlags: ["-i", "-s", "--login", "--shell"],
    noExec: ["-l", "--list", "-v", "--validate", "-k", "-K"],
  },
  doas: { options: { posix: P, shortArgs: "uC" }, bare: "none", shellFlags: ["-s"] },
  pkexec: { options: { posix: P, longArgs: ["user"] }, bare: "shell" },
  env: { options: { posix: P, shortArgs: "uCS", longArgs: ["unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal"], longFlags: ["ignore-environment", "null", "debug"] }, bare: "none" },
  nice: { options: { posix: P, shortArgs: "n", longArgs: ["adjustment"] }, bare: "none" },
  timeout: { options: { posix: P, shortArgs: "sk", longArgs: ["signal", "kill-after"], longFlags: ["preserve-status", "foreground", "verbose"] }, skip: 1, bare: "none" },
  nohup: { options: { posix: P }, bare: "none" },
  setsid: { options: { posix: P, longFlags: ["ctty", "fork", "wait"] }, bare: "none" },
  stdbuf: { options: { posix: P, shortArgs: "ioe", longArgs: ["input", "output", "error"] }, bare: "none" },
  ionice: { options: { posix: P, shortArgs: "cnpPu", longArgs: ["class", "classdata", "pid", "pgid", "uid"] }, bare: "none" },
  chroot: { options: { posix: P, longArgs: ["userspec", "groups"], longFlags: ["skip-chdir"] }, skip: 1, bare: "shell" },
  command: { options: { posix: P }, bare: "none", noExec: ["-v", "-V"] },
  builtin: { options: { posix: P }, bare: "none" },
  exec: { options: { posix: P, shortArgs: "a" }, bare: "none" },
  time: { options: { posix: P, shortArgs: "fo", longArgs: ["format", "output"] }, bare: "none" },
  taskset: { options: { posix: P }, skip: 1, bare: "none", noExec: ["-p", "--pid"] },
  chrt: { options: { posix: P, shortArgs: "T", longArgs: ["sched-runtime", "sched-period", "sched-deadline"] }, skip: 1, bare: "none", noExec: ["-p", "--pid", "-m", "--max"] },
  flock: { options: { posix: P, shortArgs: "wEc", longArgs: ["timeout", "wait", "conflict-exit-code", "command"] }, skip: 1, bare: "none" },
  xargs: { options: { posix: P, shortArgs: "IEnLPsdaR", longArgs: ["replace", "eof", "max-args", "max-lines", "max-procs", "max-chars", "delimiter", "arg-file", "process-slot-var"] }, bare: "none", defaultCommand: "echo" },
  busybox: { options: { posix: P }, bare: "none" },
  strace: { options: { posix: P, shortArgs: "eoOpsSuEbIPaX" }, bare: "none" },
  ltrace: { options: { posix: P, shortArgs: "eoOpsSuEnaAlx" }, bare: "none" },
  nsenter: { options: { posix: P, shortArgs: "tSGwr", longArgs: ["target", "setuid", "setgid", "wd", "root"] }, bare: "shell" },
  unshare: { options: { posix: P, longArgs: ["setuid", "setgid", "wd", "root", "propagation", "map-user", "map-group"] }, bare: "shell" },
  "systemd-run": { options: { posix: P, shortArgs: "pEMHu", longArgs: ["property", "setenv", "unit", "uid", "gid", "working-directory", "description", "slice", "on-calendar", "on-active", "machine", "host", "nice"] }, bare: "none" },
  runuser: { options: { posix: P, shortArgs: "ugGcsw", longArgs: ["user", "group", "supp-group", "command", "shell", "whitelist-environment"] }, bare: "shell" },
  eatmydata: { options: { posix: P }, bare: "none" },
  unbuffer: { options: { posix: P }, bare: "none" },
  proxychains: { options: { posix: P, shortArgs: "f" }, bare: "none" },
  proxychains4: { options: { posix: P, shortArgs: "f" }, bare: "none" },
  torsocks: { options: { posix: P }, bare: "none" },
  nocache: { options: { posix: P }, bare: "none" },
  watch: { options: { posix: P, shortArgs: "nq", longArgs: ["interval", "differences"], longFlags: ["beep", "color", "no-color", "chgexit", "errexit", "exec", "no-title", "no-linewrap", "no-rerun", "precise"] }, bare: "none" },
};

/**
 * The command a stack of wrappers runs (`sudo nice -n 5 cat f` → `cat f`), for looking at a pipeline's upstream:
 * the wrapper's options, its fixed operands and `NAME=VALUE` words are dropped. Returns `cmd` itself when it is not a
 * wrapper or runs nothing (xargs' input is unknown, so xargs is not peeled).
 */
export function peelWrappers(cmd: Cmd): Cmd {
  let c = cmd;
  for (let n = 0; n < 16; n++) {
    // Own keys only: a command named `toString` or `__proto__` is not a wrapper.
    const spec = Object.hasOwn(WRAPPERS, c.name) ? WRAPPERS[c.name] : undefined;
    if (!spec || c.name === "xargs") return c;
    const p = parseOptions(c.args, spec.options);
    if (spec.noExec?.some((f) => p.flags.has(f))) return c;
    let rest = p.stop >= 0 ? c.args.slice(p.stop) : [];
    rest = rest.slice(spec.skip ?? 0);
    while (rest[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0].text)) rest = rest.slice(1);
    if (rest.length === 0) return c;
    c = innerCmd(c, rest);
  }
  return c;
}
