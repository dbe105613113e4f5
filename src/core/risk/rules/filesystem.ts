import { partitionChange } from "./verb-tables.ts";
import { optionsOf, type Cmd } from "../command.ts";
import { fileWrites } from "../effects.ts";
import { deletionSeverity, isBlockDevice, isSystemPath, normalisePath, writeSeverity } from "../paths.ts";
import { programOf } from "../programs/index.ts";
import type { Rule } from "../rule.ts";
import { SPECS, findNameFiltered, operands, recursive, targetPath } from "./util.ts";
import { literalArg, type Arg } from "../words.ts";

const rmTargets = (cmd: Cmd): string[] => operands(cmd, SPECS.rm).map((a) => targetPath(cmd, a));
const isRecursiveRm = (cmd: Cmd): boolean => recursive(cmd, SPECS.rm);
const writes = (cmd: Cmd): string[] => fileWrites(cmd).filter((a) => !a.dynamic || a.text !== "").map((a) => normalisePath(a.text, cmd.cwd));

/** Creating filesystems, wiping and repartitioning disks, deleting the system tree, writing devices. */
export const FILESYSTEM_RULES: readonly Rule[] = [
  {
    id: "filesystem_create", severity: "critical",
    reason: "creates a filesystem or wipes signatures, destroying what was on the device",
    commands: ["mkfs*", "mke2fs", "mkswap", "mkntfs", "mkdosfs", "wipefs", "blkdiscard", "zpool", "pvremove", "vgremove", "lvremove", "cryptsetup"],
    test: (cmd) => {
      if (cmd.name === "zpool") return ["destroy", "create", "labelclear"].includes(cmd.args[0]?.text ?? "");
      if (cmd.name === "cryptsetup") return cmd.args.some((a) => ["luksFormat", "erase", "luksErase"].includes(a.text));
      return true;
    },
    examples: { match: ["mkfs.ext4 /dev/sdb1", "sudo mkfs -t xfs /dev/vdb", "wipefs -a /dev/sda"], noMatch: ["zpool status", "mkdir /tmp/x"] },
  },
  {
    id: "partition_table_change", severity: "critical",
    reason: "rewrites a disk's partition table",
    commands: ["fdisk", "sfdisk", "parted", "gdisk", "sgdisk", "cfdisk"],
    test: partitionChange,
    examples: {
      match: ["sgdisk -Z /dev/sda", "parted /dev/sda mklabel gpt", "parted -s /dev/sda rm 1", "parted /dev/sda print rm 1", "parted /dev/sda", "sgdisk -d 1 /dev/sda", "sgdisk -p -d 1 /dev/sda",
        "sgdisk --delete=1 /dev/sda", "fdisk /dev/sda", "sfdisk --delete /dev/sda 1", "sfdisk -d /dev/sda --delete", "gdisk /dev/sda", "cfdisk /dev/sda"],
      noMatch: ["fdisk -l", "parted /dev/sda print", "parted -s /dev/sda p free", "parted -l", "parted -m /dev/sda unit s print", "sgdisk -p /dev/sda", "sgdisk --print /dev/sda",
        "sgdisk -b /root/sda.gpt /dev/sda", "sgdisk -P -Z /dev/sda", "sfdisk -d /dev/sda", "sfdisk -l", "gdisk -l /dev/sda"],
    },
  },
  {
    id: "write_block_device", severity: "critical",
    reason: "writes raw data onto a block device or kernel memory",
    commands: ["*"],
    test: (cmd) => writes(cmd).some(isBlockDevice),
    examples: { match: ["dd if=/dev/zero of=/dev/sda bs=1M", "cat x.img > /dev/nvme0n1", "exec 3>/dev/sda"], noMatch: ["dd if=/dev/sda of=./mbr.bin", "ls 2>/dev/null"] },
  },
  {
    id: "shred_device", severity: "critical",
    reason: "overwrites a whole device",
    commands: ["shred", "badblocks"],
    test: (cmd) => cmd.args.some((a) => isBlockDevice(normalisePath(a.text))) && !(cmd.name === "badblocks" && !cmd.args.some((a) => a.text.startsWith("-w"))),
    examples: { match: ["shred -n1 /dev/sdb", "badblocks -wsv /dev/sdc"], noMatch: ["shred notes.txt", "badblocks -sv /dev/sdc"] },
  },
  {
    id: "delete_system_tree", severity: "critical",
    reason: "recursively deletes the filesystem root, a system directory or a home directory",
    commands: ["rm"],
    test: (cmd) => isRecursiveRm(cmd) && rmTargets(cmd).some((p) => deletionSeverity(p) === "critical"),
    examples: {
      match: ["rm -rf /", "rm -r -f /usr", "rm /etc -r -f", "rm -rf ~", "rm -rf /home/user", "rm -rf \"$X/\"*", "rm -rf /.*/*", "rm -rf /var/lib/postgresql/old"],
      noMatch: ["rm -rf ./build /tmp/project-clone", "rm -r /builds/project-stuff", "rm -- -f", "rm -f /", "rm -rf \"${B:?}/out\""],
    },
  },
  {
    id: "delete_sensitive_tree", severity: "high",
    reason: "recursively deletes a scratch root or a directory deep inside /home",
    commands: ["rm"],
    test: (cmd) => isRecursiveRm(cmd) && rmTargets(cmd).some((p) => deletionSeverity(p) === "high"),
    examples: { match: ["rm -rf /tmp", "rm -rf /home/user/projects"], noMatch: ["rm -rf /tmp/build", "rm -rf ./x"] },
  },
  {
    id: "delete_unresolved_target", severity: "high",
    reason: "recursive delete whose target is only known at run time or is the whole working directory",
    commands: ["rm"],
    // find . -name '*.pyc' -exec rm {} + removes the matching files below the working directory, not all of it.
    test: (cmd) => isRecursiveRm(cmd) && (cmd.unknownOperands || operands(cmd, SPECS.rm).some((a) =>
      a.dynamic || (cmd.cwd === undefined && !cmd.nameFiltered && /^(\*|\.\*|\.|\.\.|\.\/\*|\.\.\/.*)$/.test(a.text)))),
    examples: {
      match: ["rm -rf \"${BUILD_DIR:?}/out\"", "rm -rf *", "find . | xargs rm -rf", "find . -exec rm -rf {} +", "find . -name '*' -exec rm {} +", "find . ! -name '*.c' -exec rm {} +", "find . -name '*.o' -o -type f -exec rm {} +"],
      noMatch: ["rm -rf ./build", "rm \"$f\"", "find . -name '*.pyc' -exec rm {} +", "find . -type d -name __pycache__ -exec rm -rf {} +"],
    },
  },
  {
    id: "delete_system_file", severity: "critical",
    reason: "deletes a system configuration or account file",
    commands: ["rm", "unlink", "shred"],
    // Devices are not configuration files: shred /dev/sda is shred_device and write_block_device.
    test: (cmd) => operands(cmd, SPECS.rm).some((a) => {
      const p = targetPath(cmd, a);
      return !p.startsWith("/dev/") && (p.startsWith("/etc/") || writeSeverity(p) === "critical");
    }),
    examples: { match: ["rm -f /etc/hosts", "rm /etc/passwd", "unlink /root/.ssh/authorized_keys"], noMatch: ["rm -f ./etc/hosts", "rm /tmp/x", "shred /dev/sda"] },
  },
  {
    id: "delete_system_path", severity: "high",
    reason: "deletes files inside the system tree",
    commands: ["rm", "rmdir", "unlink"],
    test: (cmd) => !isRecursiveRm(cmd) && operands(cmd, SPECS.rm).some((a) => isSystemPath(targetPath(cmd, a)) && !targetPath(cmd, a).startsWith("/etc/")),
    examples: { match: ["rm /var/log/syslog", "rm -f /usr/bin/python3"], noMatch: ["rm /tmp/x", "rm notes.txt"] },
  },
  {
    id: "move_system_path", severity: "critical",
    reason: "moves a system directory, account or configuration file away (the same as deleting it)",
    commands: ["mv"],
    test: (cmd) => mvSources(cmd).some((p) => (deletionSeverity(p) === "critical" && p.split("/").length <= 2) || p.startsWith("/etc/") || writeSeverity(p) === "critical"),
    examples: { match: ["mv /etc /tmp/x", "mv /etc/passwd /tmp/", "sudo mv /usr /usr.old"], noMatch: ["mv a.txt b.txt", "mv /tmp/x /tmp/y"] },
  },
  {
    id: "move_system_tree", severity: "high",
    reason: "moves files inside the system tree",
    commands: ["mv"],
    test: (cmd) => mvSources(cmd).some((p) => isSystemPath(p)),
    examples: { match: ["mv /var/lib/mysql /var/lib/mysql.old"], noMatch: ["mv ./a ./b"] },
  },
  {
    id: "extract_into_system", severity: "high",
    reason: "unpacks an archive or applies a patch into the system tree (or anywhere, with absolute names), overwriting what is there",
    commands: ["tar", "bsdtar", "unzip", "cpio", "rsync", "7z", "7za", "7zr", "patch"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      if (cmd.name === "rsync") return t.length >= 2 && !t[t.length - 1]!.startsWith("-") && isSystemPath(normalisePath(t[t.length - 1]!, cmd.cwd));
      const { extract, dirs, absolute } = extraction(cmd.name, t);
      if (!extract) return false;
      if (absolute) return true;
      if (dirs.length) return dirs.some((d) => isSystemPath(normalisePath(d, cmd.cwd)));
      // No directory given: the archive lands in the working directory (`cd / && tar xf x.tar`); a `cd` into a
      // service tree (`cd /srv/app && tar xzf release.tgz`) is routine, into a core directory it is not.
      return /^\/($|(etc|usr|boot|root|lib|lib32|lib64|bin|sbin|var\/lib|var\/spool)(\/|$))/.test(normalisePath(".", cmd.cwd));
    },
    examples: {
      match: ["tar -C / -xf evil.tar", "tar xzf a.tgz -C /etc", "unzip a.zip -d /usr/local", "tar -C/ -xf x.tar", "tar xC / -f x.tar", "tar -xzf x.tgz --dir=/etc", "tar -xPf x.tar", "tar -xf x.tar --absolute-names",
        "cd / && tar xf /tmp/x.tar", "bsdtar -xf x.tar -C /", "unzip -o x.zip -d/etc", "7z x x.7z -o/etc", "patch -p1 -d / < x.diff", "cpio -idm --directory=/etc < x.cpio"],
      noMatch: ["tar -C ./out -xf a.tar", "tar -C / -cf /tmp/b.tar etc", "tar -xf a.tar", "tar -tvf a.tar -C /", "tar -cPf b.tar /etc", "7z l x.7z", "patch -p1 < x.diff", "cd /srv/app && tar xzf /tmp/release.tgz"],
    },
  },
  {
    id: "git_worktree_system", severity: "high",
    reason: "a git command that writes its working tree where that tree is a system directory (--work-tree=/, -C /etc): checkout, reset or pull overwrite system files",
    commands: ["git"],
    test: (cmd) => {
      const p = programOf(cmd);
      if (!p || !GIT_TREE_WRITERS.has(p.operands[0]?.text ?? "")) return false;
      const trees = [...(p.flags.get("--work-tree") ?? []), ...(p.flags.get("-C") ?? [])].map((a) => normalisePath(a?.text ?? "", cmd.cwd)).filter((t) => t !== "");
      const system = (t: string): boolean => /^\/($|(etc|usr|boot|root|lib|lib32|lib64|bin|sbin|var\/lib|var\/spool)(\/|$))/.test(t);
      return trees.some(system) || (trees.length === 0 && cmd.cwd !== undefined && system(normalisePath(".", cmd.cwd)));
    },
    examples: { match: ["git --work-tree=/ checkout HEAD -- etc/passwd", "git --git-dir=/tmp/x/.git --work-tree=/ reset --hard", "git -C / checkout .", "git -C /etc pull", "cd /usr/local/bin && git checkout ."],
      noMatch: ["git -C /etc status", "git -C /srv/app pull", "git checkout main", "git --work-tree=./site checkout ."] },
  },
  {
    id: "log_destroy", severity: "high",
    reason: "deletes the system journal's archived logs (the audit trail of what happened on the host)",
    commands: ["journalctl"],
    test: (cmd) => cmd.args.some((a) => /^--vacuum-(time|size|files)(=|$)/.test(a.text)),
    examples: { match: ["journalctl --vacuum-time=1s", "journalctl --rotate --vacuum-size=1", "journalctl --vacuum-files 1"], noMatch: ["journalctl --disk-usage", "journalctl --rotate", "journalctl -u nginx --since today"] },
  },
  {
    id: "find_delete_system", severity: "critical",
    reason: "find -delete over a system directory or the root",
    commands: ["find"],
    test: (cmd) => cmd.args.some((a) => a.text === "-delete") && findStarts(cmd).some((p) => deletionSeverity(p) === "critical"),
    examples: { match: ["find / -name '*.log' -delete", "find /etc -delete"], noMatch: ["find ./tmp -name '*.o' -delete", "find / -name x"] },
  },
  {
    id: "find_delete_everything", severity: "high",
    reason: "find -delete with no name test removes everything below a directory the engine cannot pin down (like rm -rf)",
    commands: ["find"],
    test: (cmd) => cmd.args.some((a) => a.text === "-delete") && !findNameFiltered(findExpression(cmd))
      && findStartArgs(cmd).some((a) => a.dynamic || (cmd.cwd === undefined && !/^[/~]/.test(a.text) && /^(\.|\.\.|\.\/|\.\.\/.*)?$/.test(a.text.replace(/\/$/, "")))),
    examples: { match: ["find . -delete", "find -delete", "find \"$D\" -delete", "find . -name '*' -delete"], noMatch: ["find . -name '*.o' -delete", "find ./tmp -delete", "cd /srv/x && find . -delete"] },
  },
  {
    id: "find_delete", severity: "medium",
    reason: "find -delete removes every match",
    commands: ["find"],
    test: (cmd) => cmd.args.some((a) => a.text === "-delete"),
    examples: { match: ["find ./tmp -name '*.o' -delete"], noMatch: ["find . -name '*.o'"] },
  },
];

const MV = { shortArgs: "tS", longArgs: ["target-directory", "suffix", "backup"], longFlags: ["force", "interactive", "no-clobber", "verbose", "update", "strip-trailing-slashes", "no-target-directory"] };
function mvSources(cmd: Cmd): string[] {
  const p = optionsOf(cmd, MV);
  const ops = p.operands.map((a) => targetPath(cmd, a));
  return p.flags.has("-t") || p.flags.has("--target-directory") ? ops : ops.slice(0, -1);
}

/** find's start paths as words (`.` when none is given). */
function findStartArgs(cmd: Cmd): Arg[] {
  const i = cmd.args.findIndex((a) => /^[-(!]/.test(a.text));
  const starts = i < 0 ? cmd.args : cmd.args.slice(0, i);
  return starts.length ? starts : [literalArg(".")];
}

/** find's expression: the words after the start paths. */
function findExpression(cmd: Cmd): Arg[] {
  const i = cmd.args.findIndex((a) => /^[-(!]/.test(a.text));
  return i < 0 ? [] : cmd.args.slice(i);
}

function findStarts(cmd: Cmd): string[] {
  const out: string[] = [];
  for (const a of cmd.args) {
    if (/^[-(!]/.test(a.text)) break;
    out.push(targetPath(cmd, a));
  }
  return out.length ? out : ["."];
}

/** git verbs that write files of the working tree. */
const GIT_TREE_WRITERS = new Set(["checkout", "switch", "reset", "restore", "stash", "pull", "merge", "rebase", "cherry-pick", "revert", "apply", "am", "clean", "mv", "rm", "read-tree", "checkout-index", "init", "clone"]);

/** Letters of tar's old-style first word (`xzfC a.tar /`) that take the next operand as their value (GNU tar manual, "Old Options"). */
const TAR_ARG_LETTERS = new Set(["b", "C", "f", "F", "g", "H", "I", "K", "L", "N", "T", "V", "X"]);

/**
 * Whether an archiver or patch extracts, into which directories (`-C DIR`, `-CDIR`, `--directory[=]DIR` and its
 * abbreviations down to `--di`, tar's old-style bundles, unzip `-d`, 7z `-oDIR`, patch `-d`), and whether it keeps
 * absolute member names (tar `-P`/`--absolute-names`: members land wherever they say).
 */
function extraction(name: string, t: string[]): { extract: boolean; dirs: string[]; absolute: boolean } {
  const dirs: string[] = [];
  let extract = name === "unzip" || name === "patch" || name === "cpio" && t.some((x) => /^-[A-Za-z]*i|^--extract$/.test(x));
  let absolute = false;
  if (name.startsWith("7z")) return { extract: /^[ex]$/.test(t.find((x) => !x.startsWith("-")) ?? ""), dirs: t.filter((x) => x.startsWith("-o")).map((x) => x.slice(2)), absolute: false };
  const tar = name === "tar" || name === "bsdtar";
  for (let i = 0; i < t.length; i++) {
    const x = t[i]!;
    if (x === "--") break;
    if (tar && i === 0 && /^[A-Za-z]+$/.test(x)) {
      // Old-style bundle: each letter with a value takes the next word, in order.
      let next = 1;
      for (const c of x) {
        if (c === "x") extract = true;
        if (c === "P") absolute = true;
        if (TAR_ARG_LETTERS.has(c)) { if (c === "C") dirs.push(t[next] ?? ""); next++; }
      }
      continue;
    }
    const long = /^--(di|dir|dire|direc|direct|directo|director|directory)(=(.*))?$/.exec(x);
    if (long) { dirs.push(long[3] ?? t[++i] ?? ""); continue; }
    if (tar && /^--(ex|ext|extr|extra|extrac|extract|get|ge)$/.test(x)) extract = true;
    if (tar && /^--(ab|abs|abso|absol|absolu|absolut|absolute|absolute-|absolute-n.*)$/.test(x)) absolute = true;
    const letter = name === "unzip" || name === "patch" ? "d" : "C";
    if (/^-[A-Za-z]+/.test(x) && !x.startsWith("--")) {
      // A short bundle: letters up to the one with a value; that value is the rest of the word or the next word.
      for (let j = 1; j < x.length; j++) {
        const c = x[j]!;
        if (tar && c === "x") extract = true;
        if (tar && c === "P") absolute = true;
        if (c === letter) { dirs.push(x.slice(j + 1) || (t[++i] ?? "")); break; }
        if (tar && TAR_ARG_LETTERS.has(c)) { if (j === x.length - 1) i++; break; }
        if (name === "patch" && /[iopBrDFVYzg]/.test(c)) { if (j === x.length - 1) i++; break; }
      }
    }
  }
  return { extract, dirs, absolute };
}
