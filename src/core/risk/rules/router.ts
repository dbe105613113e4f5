import type { Cmd } from "../command.ts";
import { isHarmlessSink, normalisePath } from "../paths.ts";
import { allowParse } from "../programs/allow.ts";
import type { Rule } from "../rule.ts";
import { READ_ONLY } from "../table.ts";
import { WRAPPERS } from "../wrappers.ts";
import { AWK_VALUE } from "../awk.ts";
import type { Arg } from "../words.ts";
import { scriptReads } from "./secrets.ts";

/**
 * The router (issue 19). `low` means "predicted to need nothing the unapproved-command sandbox denies": a read-only
 * program with options and operand kinds on its allow-list (programs/allow.ts). Anything else a read-only program is
 * given is routed one step up (medium) by `not_allow_listed`; what the sandbox would deny outright (recursive reads of
 * other users' and root's files) is high.
 */

/** Read-only programs whose words are expressions or text (test operators, shell options, numbers): no option check. */
const FREE_FORM = new Set(["test", "[", "[[", "set", "expr", "true", "false", ":", "shift", "return", "exit", "break", "continue", "getconf",
  "locale", "stty", "tput", "factor", "numfmt", "cal", "ncal", "yes", "clear", "reset", "tty", "arch", "users", "groups", "let", "fc"]);
/** Read-only programs whose operands are text, not files: an operand built at run time reads nothing more. */
const TEXT_OPERANDS = new Set([...FREE_FORM, "echo", "printf", "export", "declare", "typeset", "local", "readonly", "unset", "read", "wait", "logger",
  "sleep", "seq", "date", "basename", "dirname", "cd", "pushd", "popd", "printenv", "alias", "unalias", "hash", "type", "which", "whereis",
  "jobs", "history", "ulimit", "pgrep", "pidof", "id", "getent", "kill"]);
/** `$(git rev-parse …)`-style substitutions: their output is a revision, an operand kind git's allow-list takes. */
const GIT_REVISION = /^\$\(\s*git\s+(rev-parse|merge-base|rev-list|describe|show-ref|symbolic-ref|log\s+(-\d+\s+|-n\s*\d+\s+)?--(format|pretty)=%H)\b[^|;&<>`$()]*\)$/;

/** An operand whose value comes from another command, a file or a variable (xargs items, `$(…)`, `$X`, `read` results). */
function runTimeOperand(cmd: Cmd, a: Arg): boolean {
  if (!a.dynamic) return false;
  if (cmd.name === "git" && a.subs.length > 0 && !a.display.includes("${") && a.subs.every((s) => GIT_REVISION.test(s.text))) return false;
  return true;
}

/** Why a read-only command is not on its allow-list, or null when it is (or is not a read-only program at all). */
export function offAllowList(cmd: Cmd): string | null {
  if (cmd.synthetic || !READ_ONLY.has(cmd.name) || Object.hasOwn(WRAPPERS, cmd.name) || FREE_FORM.has(cmd.name)) return null;
  // find's -exec/-ok command is judged as its own command; only the expression before it is find's.
  const cut = cmd.name === "find" ? cmd.args.findIndex((a) => /^-(exec|execdir|ok|okdir)$/.test(a.text)) : -1;
  const args = cut >= 0 ? cmd.args.slice(0, cut) : cmd.args;
  const p = allowParse(cmd, args);
  const text = !TEXT_OPERANDS.has(cmd.name);
  if (p) {
    if (p.unknown.length > 0) return `option ${p.unknown[0]} is not on ${cmd.name}'s allow-list`;
    if (text && p.operands.some((a) => runTimeOperand(cmd, a))) return "an operand comes from another command, a file or a variable";
    if (p.uses.some((u) => u.value && u.value.dynamic && u.def.effect !== null)) return "an option's file comes from a variable or another command";
  } else {
    const opt = args.find((a) => a.text.length > 1 && a.text.startsWith("-") && a.text !== "--" && !/^-\d+$/.test(a.text));
    if (opt) return `${cmd.name} has no allow-list: option ${opt.display} was not vetted`;
    if (text && args.some((a) => runTimeOperand(cmd, a))) return "an operand comes from another command, a file or a variable";
  }
  if (cmd.unknownOperands && text) return "its operands arrive at run time (xargs)";
  if (scriptReads(cmd).includes(AWK_VALUE)) return "awk reads a file named at run time (getline < …)";
  return null;
}

/** Readers that print the content of every file below a directory operand (recursive grep family, diff -r). */
function recursiveTargets(cmd: Cmd): string[] {
  const ops = (): Arg[] => cmd.args.filter((a) => !a.text.startsWith("-"));
  switch (cmd.name) {
    case "grep": case "egrep": case "fgrep": case "zgrep": {
      if (!cmd.args.some((a) => /^-[a-zA-Z]*[rR]|^--(recursive|dereference-recursive|directories=recurse)$/.test(a.text) || (a.text === "-d" || a.text === "--directories"))) return [];
      const hasPattern = cmd.args.some((a) => /^(-e|--regexp|-f|--file)(=|$)|^-[a-zA-Z]*[ef]./.test(a.text));
      return ops().slice(hasPattern ? 0 : 1).map((a) => a.text);
    }
    case "rg": case "ag": case "ack":
      if (cmd.args.some((a) => a.text === "--files" || a.text === "-l" && cmd.name === "ag")) return [];
      return ops().slice(1).map((a) => a.text);
    case "diff":
      return cmd.args.some((a) => /^-[a-zA-Z]*r|^--recursive$/.test(a.text)) ? ops().map((a) => a.text) : [];
    case "tar": case "bsdtar": {
      // Create mode (`c` in the first word's letters, `-c`, `--create`, or an append/update that adds files):
      // every operand is a tree it archives, contents included.
      const first = cmd.args[0]?.text ?? "";
      const create = (/^[A-Za-z]+$/.test(first) && /[cru]/.test(first)) || cmd.args.some((a) => /^-[A-Za-z]*[cru]|^--(create|append|update)$/.test(a.text));
      return create ? ops().slice(/^[A-Za-z]+$/.test(first) ? 1 : 0).map((a) => a.text) : [];
    }
    case "zip":
      return cmd.args.some((a) => /^-[a-zA-Z]*r|^--recurse-paths$/.test(a.text)) ? ops().slice(1).map((a) => a.text) : [];
    default: return [];
  }
}

/** `-d N` / `--max-depth=N` / `-maxdepth N` / `-L N` values: a listing at most one level deep is not a recursive one. */
function maxDepth(cmd: Cmd, names: RegExp): number | null {
  const t = cmd.args.map((a) => a.text);
  for (let i = 0; i < t.length; i++) {
    const m = names.exec(t[i]!);
    if (!m) continue;
    const v = m[1] !== undefined && m[1] !== "" ? m[1] : t[i + 1];
    if (v !== undefined && /^\d+$/.test(v)) return Number(v);
  }
  return null;
}

/** Listers that print the name of every file below a directory operand (ls -R, find, du without -s, tree). */
function listedTrees(cmd: Cmd): string[] {
  const ops = cmd.args.filter((a) => !a.text.startsWith("-")).map((a) => a.text);
  switch (cmd.name) {
    case "ls":
      return cmd.args.some((a) => /^-[a-zA-Z1]*R|^--recursive$/.test(a.text)) ? ops : [];
    case "find": {
      // Start points: the words before the expression (which begins with `-`, `(` or `!`).
      const end = cmd.args.findIndex((a) => /^[-(!]/.test(a.text) && !/^-[HLP]$/.test(a.text));
      const starts = cmd.args.slice(0, end < 0 ? undefined : end).filter((a) => !/^-[HLPO]/.test(a.text)).map((a) => a.text);
      const depth = maxDepth(cmd, /^-maxdepth$()/);
      return depth !== null && depth <= 1 ? [] : starts;
    }
    case "du": {
      if (cmd.args.some((a) => /^-[a-zA-Z0]*s|^--summarize$/.test(a.text))) return [];
      const depth = maxDepth(cmd, /^(?:-d|--max-depth=?)(\d*)$/);
      return depth !== null && depth <= 1 ? [] : ops;
    }
    case "tree": {
      const depth = maxDepth(cmd, /^-L(\d*)$/);
      return depth !== null && depth <= 1 ? [] : ops;
    }
    default: return [];
  }
}

/** Trees of other users' and root's files (homes, root's home, backups of /etc/shadow, service state) and their ancestors. */
const PRIVATE_TREE = /^(\/|\/var|\/home(\/[^/]+)?|~|\/root(\/.*)?|\/var\/backups(\/.*)?|\/var\/lib(\/[^/]+)?)$/;
/** System configuration: secret files (shadow, host keys, TLS keys) sit among it. */
const SYSTEM_TREE = /^\/etc(\/.*)?$/;

const inTree = (cmd: Cmd, targets: string[], re: RegExp): string | undefined => targets.map((t) => normalisePath(t.replace(/\/\*$/, ""), cmd.cwd)).find((p) => re.test(p) && !isHarmlessSink(p));
const treeOf = (cmd: Cmd, re: RegExp): string | undefined => inTree(cmd, recursiveTargets(cmd), re);

export const ROUTER_RULES: readonly Rule[] = [
  {
    id: "not_allow_listed", severity: "medium",
    reason: "a read-only program used with an option, verb or operand kind outside its allow-list: it may need what the sandbox denies, so it is not low",
    commands: ["*"],
    test: (cmd) => offAllowList(cmd) !== null,
    examples: {
      match: ["journalctl --frob", "uptime --zz", "xargs cat < /tmp/list", "cat $(cat /tmp/list)", "cat \"$F\"", "read f < list; head \"$f\"", "curl --libcurl x.c https://x.example", "git log --ext-diff",
        "awk '{getline l < $1; print l}' f", "blkid -z", "openssl x509 -in c.pem -badopt"],
      noMatch: ["ls -la /etc", "journalctl -u nginx --since today", "curl -sI http://127.0.0.1:8080/health", "git diff $(git merge-base main HEAD)", "echo \"$HOME\"", "ps aux", "df -h", "free -m",
        "ss -ltnp", "systemctl status nginx", "du -sh /var/lib/docker", "grep -r error /var/log/nginx", "find /var/log -name '*.gz' -mtime +30", "test -f /etc/x", "git -C /srv/app log -1 --format=%H",
        "find . -name '*.py' -exec grep -l x {} +"],
    },
  },
  {
    id: "recursive_read_private", severity: "high",
    reason: "reads every file below a tree of other users' or root's files (homes, /root, /var/backups, /var/lib, or an ancestor): secrets the sandbox denies",
    commands: ["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "diff", "tar", "bsdtar", "zip"],
    test: (cmd) => treeOf(cmd, PRIVATE_TREE) !== undefined,
    examples: { match: ["grep -r . /home", "grep -rn pass /root", "grep -r x /var/lib", "grep -R x /var/backups", "rg pass /home/alice", "grep -r x /", "diff -r /root /tmp/x", "grep -ri key ~", "grep --recursive x /var",
      "tar cf - /home", "tar -czf - /root", "tar --create -f - /var/backups", "zip -r /tmp/r.zip /root"],
      noMatch: ["grep -r error /var/log/nginx", "grep -r x ./src", "grep x /home/u/notes.txt", "rg --files /root", "grep -r x /home/u/project/src"] },
  },
  {
    id: "recursive_read_system", severity: "medium",
    reason: "reads every file below /etc, where password hashes, host keys and TLS keys sit among the configuration (not low; the sandbox denies those files)",
    commands: ["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "diff", "tar", "bsdtar", "zip"],
    test: (cmd) => treeOf(cmd, SYSTEM_TREE) !== undefined,
    examples: { match: ["grep -r root /etc", "grep -rn mkfs /etc", "rg pass /etc", "grep -r listen /etc/nginx", "tar cf - /etc"], noMatch: ["grep root /etc/passwd", "grep -r x /var/log", "rg --files /etc/nginx", "tar tf x.tar /etc"] },
  },
  {
    id: "recursive_list_private", severity: "medium",
    reason: "lists every file below a tree of other users', root's or the system's files (homes, /root, /var/backups, /var/lib, /etc, or an ancestor): their names are not for an unapproved command",
    commands: ["ls", "find", "du", "tree"],
    test: (cmd) => inTree(cmd, listedTrees(cmd), PRIVATE_TREE) !== undefined || inTree(cmd, listedTrees(cmd), SYSTEM_TREE) !== undefined,
    examples: { match: ["ls -R /root", "ls -laR /home", "ls --recursive /var/backups", "find /home", "find /etc -name '*.key'", "find -L /var/lib -type f", "du -a /root", "du /home", "tree /root", "find / -name x", "du -d 2 /var/lib"],
      noMatch: ["ls -la /root", "ls /home", "find /var/log -name '*.gz' -mtime +30", "du -sh /var/lib/docker", "du -h --max-depth=1 /var/lib", "find /home -maxdepth 1 -type d", "tree -L 1 /home", "ls -R ./src", "find . -name '*.py'", "du -sh /home/*"] },
  },
];
