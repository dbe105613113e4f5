import type { Cmd } from "../command.ts";

/**
 * Per-verb allow-lists for tools that read and destroy with the same program: a line is read-only only when every
 * action it names is on the read list; an unknown option, action or verb counts as a change (fail closed).
 * Sources: parted(8) 3.6 (commands and their unique-prefix rule), sgdisk(8) 1.0.9, fdisk(8)/sfdisk(8) util-linux 2.39,
 * gdisk(8), dpkg(1) 1.22 (actions vs options).
 */

const words = (s: string): string[] => s.trim().split(/\s+/);

/** parted's interactive/script commands; a unique prefix names one (`p` is print, `r` is ambiguous). */
const PARTED_COMMANDS = words("align-check disk_set disk_toggle help mklabel mktable mkpart name print quit rescue resize resizepart rm select set toggle type unit version");
/** Commands that only read, with the number of argument words each takes. */
const PARTED_READ: Readonly<Record<string, number>> = { print: 0, help: 0, version: 0, quit: 0, unit: 1, "align-check": 2, select: 1 };
/** Arguments `print` may take (parted 3: `print [devices|free|list|all]`). */
const PARTED_PRINT_ARGS = new Set(["devices", "free", "list", "all"]);
const PARTED_LIST_ONLY = new Set(["-l", "--list", "-h", "--help", "-v", "--version"]);
const PARTED_FLAGS = new Set(["-m", "--machine", "-s", "--script", "-f", "--fix", "-j", "--json"]);

/** The parted command a word names (exact or a unique prefix), or null. */
function partedCommand(w: string): string | null {
  if (PARTED_COMMANDS.includes(w)) return w;
  const hits = PARTED_COMMANDS.filter((c) => c.startsWith(w));
  return hits.length === 1 ? hits[0]! : null;
}

/** True when a parted line may change a partition table: any command not on the read list, or an interactive session. */
function partedChanges(t: readonly string[]): boolean {
  const ops: string[] = [];
  let list = false;
  for (let i = 0; i < t.length; i++) {
    const w = t[i]!;
    if (PARTED_LIST_ONLY.has(w)) { list = true; continue; }
    if (PARTED_FLAGS.has(w)) continue;
    if (w === "-a" || w === "--align") { i++; continue; }
    if (w.startsWith("--align=")) continue;
    if (w.startsWith("-") && ops.length === 0) return true;
    ops.push(w);
  }
  if (list && ops.length === 0) return false;
  // DEVICE alone starts an interactive session whose commands come from standard input: not shown, so a change.
  const cmds = ops.slice(1);
  if (cmds.length === 0) return true;
  for (let i = 0; i < cmds.length; i++) {
    const c = partedCommand(cmds[i]!);
    if (c === null || !(c in PARTED_READ)) return true;
    if (c === "print") { while (cmds[i + 1] !== undefined && PARTED_PRINT_ARGS.has(cmds[i + 1]!)) i++; continue; }
    i += PARTED_READ[c]!;
  }
  return false;
}

/** sgdisk options that only read or only write a backup file (`-b`), and `-P|--pretend`, which writes nothing at all. */
const SGDISK_READ = new Set(words("-p --print -i --info -v --verify -O --print-mbr -L --list-types -? --help -V --version -b --backup -D --display-alignment -E --end-of-largest -F --first-in-largest -f --first-aligned-in-largest -a --set-alignment -u --usage"));
const SGDISK_VALUE = new Set(["-i", "--info", "-b", "--backup", "-a", "--set-alignment"]);

function sgdiskChanges(t: readonly string[]): boolean {
  if (t.includes("-P") || t.includes("--pretend")) return false;
  for (let i = 0; i < t.length; i++) {
    const w = t[i]!;
    if (!w.startsWith("-")) continue;
    const name = w.includes("=") ? w.slice(0, w.indexOf("=")) : w;
    if (name.startsWith("--")) {
      if (!SGDISK_READ.has(name)) return true;
      if (SGDISK_VALUE.has(name) && !w.includes("=")) i++;
      continue;
    }
    // Short options may be clustered; one that takes a value ends the cluster (attached) or takes the next word.
    for (let j = 1; j < w.length; j++) {
      const o = "-" + w[j]!;
      if (!SGDISK_READ.has(o)) return true;
      if (SGDISK_VALUE.has(o)) { if (j === w.length - 1) i++; break; }
    }
  }
  return false;
}

const FDISK_READ = new Set(["-l", "--list", "-x", "--list-details", "-V", "--version", "-h", "--help"]);
const SFDISK_READ = new Set(words("-l --list -d --dump -J --json -s --show-size -g --show-geometry -V --verify -F --list-free -T --list-types -h --help -v --version -n --no-act"));
const SFDISK_CHANGE = /^(--delete|-N|--partno|-A|--activate|--part-(type|uuid|label|attrs)|-r|--reorder|--move-data|--relocate|-a|--append|-w|--wipe|-W|--wipe-partitions|-f|--force)(=|$)/;

/**
 * True when a partitioning tool's line may write a partition table (per-verb tables above; fdisk/gdisk only read with
 * `-l`, cfdisk is always interactive). Any option or command not known to only read counts as a change.
 */
export function partitionChange(cmd: Cmd): boolean {
  const t = cmd.args.map((a) => a.text);
  if (cmd.args.some((a) => a.dynamic)) return true;
  switch (cmd.name) {
    case "parted": return partedChanges(t);
    case "sgdisk": return sgdiskChanges(t);
    case "fdisk": return !t.some((w) => FDISK_READ.has(w));
    case "gdisk": return !t.includes("-l");
    case "sfdisk": return !t.some((w) => SFDISK_READ.has(w)) || t.some((w) => SFDISK_CHANGE.test(w));
    default: return true;
  }
}

/** dpkg actions that only read (dpkg(1) ACTIONS; the dpkg-deb and dpkg-query ones it passes on that only print). */
const DPKG_READ = new Set(words(`-l --list -L --listfiles -s --status -S --search -p --print-avail -c --contents -I --info -f --field --fsys-tarfile
  -C --audit --yet-to-unpack --predep-package --print-architecture --print-foreign-architectures --get-selections --compare-versions
  -V --verify --help -? --version --force-help --licence --license`));
/** dpkg options that are not actions (values attached with `=`, or `-D` with attached octal). */
const DPKG_OPTION = /^(--(admindir|root|instdir|log|status-fd|status-logger|pre-invoke|post-invoke|path-exclude|path-include|abort-after|verify-format|ignore-depends|debug|color)=|--(force|no-force|refuse)-|-D\d*$|-D[a-z]+$|--(no-act|dry-run|simulate|recursive|selected-only|skip-same-version|refuse-downgrade|auto-deconfigure|no-triggers|triggers|no-debsig|no-pager)$|-[RGEOB]$)/;

/**
 * True when a dpkg line runs an action that is not on the read list: installs, removals, `--configure`,
 * `--add-architecture`, `--set-selections`, `--update-avail`, unpacking (`-x`, `-b`)… or any option dpkg's table
 * does not list (fail closed). `--assert-*` and `--validate-*` only check.
 */
export function dpkgChanges(cmd: Cmd): boolean {
  for (const a of cmd.args) {
    const w = a.text;
    if (a.dynamic) return true;
    if (!w.startsWith("-")) continue;
    if (DPKG_OPTION.test(w) || /^--(assert|validate)-/.test(w)) continue;
    // Short actions may be clustered with -R/-G/-E/-O/-B flags (`-Ri`, `-lR`): every letter must be read-only or a flag.
    if (/^-[a-zA-Z?]{2,}$/.test(w)) {
      if (w.slice(1).split("").every((c) => DPKG_READ.has("-" + c) || "RGEOB".includes(c))) continue;
      return true;
    }
    const name = w.includes("=") ? w.slice(0, w.indexOf("=")) : w;
    if (!DPKG_READ.has(name)) return true;
  }
  return false;
}
