import type { Cmd } from "../command.ts";
import { fileWrites } from "../effects.ts";
import { parseOptions } from "../options.ts";
import { isHarmlessSink, normalisePath } from "../paths.ts";
import type { Rule } from "../rule.ts";
import { WRAPPERS } from "../wrappers.ts";

/** Programs that destroy or change the files (or processes) they are given. */
const DESTRUCTIVE = new Set(["rm", "unlink", "shred", "truncate", "wipefs", "dd", "chmod", "chown", "chgrp", "chattr", "setfacl", "mv", "rmdir", "srm", "wipe"]);

/** A file operand known only at run time in full (`"$f"`, `$(…)`), or operands that arrive from a pipe (xargs). */
const unknownTargets = (cmd: Cmd): boolean =>
  cmd.unknownOperands || cmd.args.some((a) => a.dynamic && !a.guarded && a.text === "");

/** Availability and fan-in: destructive programs fed from input the engine cannot see, unbounded parallelism. */
export const FAN_OUT_RULES: readonly Rule[] = [
  {
    id: "destructive_unknown_operands", severity: "high",
    reason: "a destructive program gets its files from a pipeline, xargs or a variable: any file could be hit",
    commands: [...DESTRUCTIVE],
    test: unknownTargets,
    examples: {
      match: ["locate '*.log' | xargs -n1 shred -u", "find / -name x | xargs rm -f", "while read f; do shred -u \"$f\"; done < list.txt", "cat list | xargs -I{} chmod 777 {}", "rm -f $(cat files.txt)"],
      noMatch: ["rm -f ./build/out.o", "echo a b | xargs rm -f", "rm -rf \"${BUILD:?}/out\"", "shred -u ./secret.txt"],
    },
  },
  {
    id: "fills_disk", severity: "high",
    reason: "writes an endless stream (/dev/zero, /dev/urandom, yes) into a file until the disk is full",
    commands: ["cat", "dd", "yes", "tr", "head", "tail", "pv", "base64", "od", "xxd", "tee"],
    test: (cmd) => {
      const out = fileWrites(cmd).filter((a) => !isHarmlessSink(normalisePath(a.text, cmd.cwd)));
      if (out.length === 0) return false;
      const t = cmd.args.map((a) => a.text);
      if (cmd.name === "yes") return true;
      if (cmd.name === "dd") return t.some((x) => /^if=\/dev\/(zero|u?random|full)$/.test(x)) && !t.some((x) => /^count=/.test(x));
      // head -c N / tail -c N are bounded; the others copy the endless device until the disk is full.
      const bounded = (cmd.name === "head" || cmd.name === "tail") && t.some((x) => /^(-c|-n|--bytes|--lines)/.test(x) || /^-\d+$/.test(x));
      const endless = t.some((x) => /^\/dev\/(zero|u?random)$/.test(x)) || (cmd.stdin.kind === "file" && /^\/dev\/(zero|u?random)$/.test(cmd.stdin.arg.text));
      return endless && !bounded;
    },
    examples: { match: ["cat /dev/zero > /var/tmp/fill", "dd if=/dev/zero of=/srv/big bs=1M", "yes > /tmp/y", "tr -dc a-z < /dev/urandom > x.txt"], noMatch: ["dd if=/dev/zero of=./disk.img bs=1M count=100", "head -c 32 /dev/urandom > key.bin", "yes | apt-get install x", "cat /dev/null > log.txt"] },
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
