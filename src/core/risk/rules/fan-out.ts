import type { Cmd } from "../command.ts";
import { fileWrites } from "../effects.ts";
import { parseOptions } from "../options.ts";
import { isHarmlessSink, isSystemPath, normalisePath } from "../paths.ts";
import type { Rule } from "../rule.ts";
import { WRAPPERS } from "../wrappers.ts";

/** Programs that destroy or change the files (or processes) they are given. */
const DESTRUCTIVE = new Set(["rm", "unlink", "shred", "truncate", "wipefs", "dd", "chmod", "chown", "chgrp", "chattr", "setfacl", "mv", "rmdir", "srm", "wipe", "kill", "ln", "cp", "install"]);

/** Programs that rewrite the files they are given in place (sed -i, perl -pi…; their writes are not in fileWrites). */
const EVERY_FILE_WRITERS = new Set(["sed", "perl", "tee", "truncate", "shred", "touch", "setfattr", "patch", "dos2unix", "sponge"]);

/** A file operand known only at run time in full (`"$f"`, `$(…)`), or operands that arrive from a pipe (xargs). */
const unknownTargets = (cmd: Cmd): boolean =>
  cmd.unknownOperands || (!FED_ONLY.has(cmd.name) && cmd.args.some((a) => a.dynamic && !a.guarded && a.text === ""));
/** Destructive only when fed by xargs or a pipe: `kill $(cat /run/nginx.pid)` is everyday, `pgrep x | xargs kill` picks its victims unseen. */
const FED_ONLY = new Set(["kill", "ln", "cp", "install"]);

/** Availability and fan-in: destructive programs fed from input the engine cannot see, unbounded parallelism. */
export const FAN_OUT_RULES: readonly Rule[] = [
  {
    id: "destructive_unknown_operands", severity: "high",
    reason: "a destructive program gets its files from a pipeline, xargs or a variable: any file could be hit",
    commands: [...DESTRUCTIVE],
    test: unknownTargets,
    examples: {
      match: ["locate '*.log' | xargs -n1 shred -u", "find / -name x | xargs rm -f", "while read f; do shred -u \"$f\"; done < list.txt", "cat list | xargs -I{} chmod 777 {}", "rm -f $(cat files.txt)", "pgrep sshd | xargs kill", "pidof sshd | xargs kill -9", "ls | xargs -I{} ln -sf /dev/null {}"],
      noMatch: ["rm -f ./build/out.o", "echo a b | xargs rm -f", "kill -HUP $(cat /run/nginx.pid)", "rm -rf \"${BUILD:?}/out\"", "shred -u ./secret.txt"],
    },
  },
  {
    id: "change_every_file", severity: "high",
    reason: "a destructive or writing program runs on every file below a system directory or home (find -exec, fd -x)",
    commands: ["*"],
    test: (cmd) => cmd.everyPathUnder && (DESTRUCTIVE.has(cmd.name) || fileWrites(cmd).length > 0 || EVERY_FILE_WRITERS.has(cmd.name))
      && [...cmd.args, ...fileWrites(cmd)].some((a) => !a.text.startsWith("-") && isSystemPath(normalisePath(a.text, cmd.cwd))),
    examples: {
      match: ["find /etc -name x -exec shred -u {} \\;", "find /etc -exec truncate -s0 {} +", "find / -name '*.conf' -exec sed -i s/a/b/ {} +", "find /etc -exec cp /tmp/x {} \\;", "find /var/log -type f -exec tee {} \\; < /dev/null", "fd . /etc -x shred"],
      noMatch: ["find ./build -name '*.o' -exec rm {} +", "find /var/log -name '*.gz' -exec ls -l {} +", "find /tmp -user me -exec rm -f {} +", "find . -exec sed -i s/a/b/ {} +"],
    },
  },
  {
    id: "fills_disk", severity: "high",
    reason: "writes an endless stream (/dev/zero, /dev/urandom, yes, seq inf) or a huge file (10 GiB or more) until the disk is full",
    commands: ["cat", "dd", "yes", "tr", "head", "tail", "pv", "base64", "od", "xxd", "tee", "seq", "fallocate", "truncate", "xfs_mkfile", "mkfile"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      // Reserving space needs no stream: fallocate -l 100G / mkfile 100g (truncate makes a sparse file, but a
      // later copy or a tool that fills holes writes it all).
      if (cmd.name === "fallocate" || cmd.name === "truncate") return sizeValues(t, /^(-l|--length|-s|--size)$/).some(huge);
      if (cmd.name === "xfs_mkfile" || cmd.name === "mkfile") return t.some((x) => huge(x));
      const out = fileWrites(cmd).filter((a) => !isHarmlessSink(normalisePath(a.text, cmd.cwd)));
      if (out.length === 0) return false;
      if (cmd.name === "yes") return true;
      if (cmd.name === "seq") return t.some((x) => /^[+-]?inf(inity)?$/i.test(x) || /^\d+(\.\d+)?e\d+$/i.test(x) && Number(x) >= 1e9);
      // tee copying an endless producer (`yes x | tee f`, `cat /dev/zero | tee f`).
      if (cmd.name === "tee" && cmd.stdin.kind === "pipe" && cmd.stdin.from && endlessProducer(cmd.stdin.from)) return true;
      if (cmd.name === "dd") {
        const from = t.some((x) => /^if=\/dev\/(zero|u?random|full)$/.test(x)) || (!t.some((x) => x.startsWith("if=")) && cmd.stdin.kind === "pipe" && !!cmd.stdin.from && endlessProducer(cmd.stdin.from));
        const count = t.find((x) => x.startsWith("count="));
        if (!from) return false;
        if (!count) return true;
        const bs = bytes(t.find((x) => x.startsWith("bs="))?.slice(3) ?? t.find((x) => x.startsWith("obs="))?.slice(4) ?? "512");
        return bs * bytes(count.slice(6)) >= HUGE;
      }
      // head -c N / tail -c N are bounded (unless N is huge); the others copy the endless device until the disk is full.
      const limit = (cmd.name === "head" || cmd.name === "tail") ? sizeValues(t, /^(-c|--bytes|-n|--lines)$/) : [];
      const bounded = (cmd.name === "head" || cmd.name === "tail") && (limit.length > 0 ? !limit.some(huge) : t.some((x) => /^-\d+$/.test(x)));
      return endlessInput(cmd) && !bounded;
    },
    examples: {
      match: ["cat /dev/zero > /var/tmp/fill", "dd if=/dev/zero of=/srv/big bs=1M", "yes > /tmp/y", "tr -dc a-z < /dev/urandom > x.txt", "yes x | tee /tmp/x", "head -c 100G /dev/zero > /tmp/x",
        "dd if=/dev/zero of=/tmp/x bs=1M count=100000", "fallocate -l 100G /tmp/x", "fallocate -l100G x", "truncate -s 100T x", "seq inf > x", "cat /dev/urandom | tee /tmp/x > /dev/null"],
      noMatch: ["dd if=/dev/zero of=./disk.img bs=1M count=100", "head -c 32 /dev/urandom > key.bin", "yes | apt-get install x", "cat /dev/null > log.txt", "fallocate -l 1G swapfile", "truncate -s 0 app.log", "seq 10 > x", "echo x | tee out.txt"],
    },
  },
  {
    id: "busy_stream", severity: "high",
    reason: "copies an endless stream (yes, seq inf, /dev/zero, /dev/urandom) into nothing or the terminal: it never ends and burns a CPU until someone stops it",
    commands: ["*"],
    // Under `timeout` it ends: the wrapper stops it.
    test: (cmd) => !cmd.synthetic && !cmd.pipedOut && !cmd.via.includes("timeout") && endlessStream(cmd) && fileWrites(cmd).every((a) => isHarmlessSink(normalisePath(a.text, cmd.cwd))),
    examples: {
      match: ["yes > /dev/null", "yes", "cat /dev/zero > /dev/null", "cat /dev/urandom", "sha256sum /dev/zero", "yes | cat > /dev/null", "seq inf > /dev/null", "gzip -c < /dev/urandom > /dev/null", "od -An /dev/urandom"],
      noMatch: ["yes | head -n 3", "yes | apt-get install x", "head -c 32 /dev/urandom | base64", "dd if=/dev/zero of=/dev/null bs=1M count=10", "cat /dev/null", "yes > ./answers.txt", "od -An -N4 /dev/urandom", "xxd -l 16 -p /dev/urandom", "hexdump -n 8 /dev/urandom", "timeout 5 cat /dev/urandom > /dev/null"],
    },
  },
  {
    id: "parallel_flood", severity: "high",
    reason: "runs commands with unbounded or very wide parallelism (xargs -P 0), which can exhaust processes or memory",
    commands: ["xargs"],
    test: (cmd) => {
      const p = parseOptions(cmd.args, WRAPPERS.xargs!.options);
      const n = [...(p.flags.get("-P") ?? []), ...(p.flags.get("--max-procs") ?? [])];
      return n.some((v) => v === "" || !/^\d+$/.test(v) || Number(v) === 0 || Number(v) > 64);
    },
    examples: { match: ["seq 100000 | xargs -P0 -n1 sleep", "seq 9 | xargs --max-procs=1000 -n1 sleep"], noMatch: ["seq 9 | xargs -P4 -n1 echo", "ls | xargs wc -l"] },
  },
];


/** 10 GiB: a write this size fills the disk of most hosts (root filesystems of 20-100 GB). */
const HUGE = 10 * 1024 ** 3;
/** A size as coreutils reads it (`100G`, `1e12`, `100GiB`, `10g`, `5TB`), in bytes; NaN when it is not one. */
function bytes(x: string): number {
  const m = /^\+?(\d+(?:\.\d+)?(?:e\d+)?)\s*([kmgtpezy]?)(i?b?)$/i.exec(x.trim());
  if (!m) return NaN;
  const pow = " kmgtpezy".indexOf(m[2]!.toLowerCase() || " ");
  return Number(m[1]) * (m[3]!.toLowerCase() === "b" && m[2] ? 1000 : 1024) ** pow;
}
const huge = (x: string): boolean => bytes(x) >= HUGE;
/** The values of options matching `opt`, separate or attached (`-l 100G`, `-l100G`, `--length=100G`). */
function sizeValues(t: string[], opt: RegExp): string[] {
  const out: string[] = [];
  for (let i = 0; i < t.length; i++) {
    const x = t[i]!;
    if (opt.test(x)) out.push(t[i + 1] ?? "");
    else if (/^--[a-z-]+=/.test(x) && opt.test(x.slice(0, x.indexOf("=")))) out.push(x.slice(x.indexOf("=") + 1));
    else if (/^-[a-zA-Z]./.test(x) && opt.test(x.slice(0, 2))) out.push(x.slice(2));
  }
  return out;
}
const ENDLESS_DEVICE = /^\/dev\/(zero|u?random)$/;
function endlessInput(cmd: Cmd): boolean {
  return cmd.args.some((a) => ENDLESS_DEVICE.test(a.text)) || (cmd.stdin.kind === "file" && ENDLESS_DEVICE.test(cmd.stdin.arg.text));
}
/** Producers endlessProducer knows besides the filters (checked first, since busy_stream looks at every command). */
const STREAM_SOURCES = new Set(["yes", "seq"]);

/** Filters that copy or digest their whole input: fed an endless stream, they never finish. */
const STREAM_FILTERS = new Set(["cat", "tr", "tee", "pv", "base64", "base32", "od", "xxd", "hexdump", "gzip", "bzip2", "xz", "zstd", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum", "wc", "sort", "uniq", "cut", "rev", "sed", "awk", "grep", "strings", "dd", "tail", "tac"]);

/**
 * A command that never ends and never pauses: yes, seq inf, or a filter over /dev/zero or /dev/urandom (or fed by one)
 * with no bound (head, dd count=, grep -m/-q stop it). Output goes to the terminal or a harmless sink (else fills_disk).
 */
function endlessStream(cmd: Cmd): boolean {
  if (!STREAM_FILTERS.has(cmd.name) && !STREAM_SOURCES.has(cmd.name)) return false;
  if (boundedReader(cmd)) return false;
  if (endlessProducer(cmd)) return true;
  if (!STREAM_FILTERS.has(cmd.name)) return false;
  if (endlessInput(cmd) || (cmd.name === "dd" && cmd.args.some((a) => /^if=\/dev\/(zero|u?random)$/.test(a.text)))) return true;
  const from = cmd.stdin.kind === "pipe" ? cmd.stdin.from : null;
  return !!from && cmd.args.every((a) => a.text.startsWith("-") || a.text === "-" || ["tr", "sed", "awk", "grep", "cut", "tee"].includes(cmd.name)) && endlessStream({ ...from, pipedOut: false });
}
const boundedReader = (cmd: Cmd): boolean =>
  (cmd.name === "dd" && cmd.args.some((a) => /^count=/.test(a.text))) || (cmd.name === "grep" && cmd.args.some((a) => /^-[a-zA-Z]*[mq]|^--(max-count|quiet|silent)/.test(a.text)))
  || (cmd.name === "sed" && cmd.args.some((a) => /(^|[;\s])\d*q/.test(a.text)))
  // Dumpers with a byte count: od -N, xxd -l, hexdump -n read that much and stop.
  || (cmd.name === "od" && cmd.args.some((a) => /^(-[A-Za-z]*N|--read-bytes)/.test(a.text)))
  || (cmd.name === "xxd" && cmd.args.some((a) => /^-(l|len)/.test(a.text)))
  || (cmd.name === "hexdump" && cmd.args.some((a) => /^(-[A-Za-z]*n|--length)/.test(a.text)));

/** A command whose output never ends: yes, seq inf, or a copy of /dev/zero or /dev/urandom. */
function endlessProducer(cmd: Cmd): boolean {
  if (cmd.name === "yes") return true;
  if (cmd.name === "seq") return cmd.args.some((a) => /^[+-]?inf(inity)?$/i.test(a.text));
  return ["cat", "tr", "pv", "base64", "od", "xxd"].includes(cmd.name) && endlessInput(cmd);
}
