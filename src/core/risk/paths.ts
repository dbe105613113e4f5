import type { RiskLevel } from "./types.ts";

/**
 * Path classification used by the rules. Paths are compared after lexical normalisation; `~` stands for
 * a home directory. Sources: the Filesystem Hierarchy Standard 3.0 for the top-level layout, and the
 * corpus cases (R001–R011, R054–R065, R095–R109) for where the critical line is drawn.
 */

/** Top-level directories whose recursive deletion breaks the host. */
const SYSTEM_ROOTS = ["/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/usr", "/var", "/mnt", "/media"];
/** Scratch areas: deleting inside them is routine. */
const TEMP_ROOTS = ["/tmp", "/var/tmp", "/dev/shm", "/var/cache/apt/archives"];
/** Roots whose recursive permission or owner change makes the host unusable or trivially rootable. */
const CORE_ROOTS = ["/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/dev", "/proc", "/sys"];

/** Collapses `//`, `/./` and `..` lexically and drops a trailing slash; joins a relative path to `cwd`. */
export function normalisePath(p: string, cwd?: string): string {
  let path = p;
  if (path === "") return "";
  if (!path.startsWith("/") && !path.startsWith("~") && cwd) path = cwd.replace(/\/$/, "") + "/" + path;
  const abs = path.startsWith("/");
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") { if (parts.length > (path.startsWith("~") ? 1 : 0)) parts.pop(); continue; }
    parts.push(seg);
  }
  const out = (abs ? "/" : "") + parts.join("/");
  return out === "" ? (abs ? "/" : ".") : out;
}

/** For a globbed path, the directory everything matched lives in (`/.*\/*` → `/`, `/var/*` → `/var`). */
export function globBase(p: string): string {
  const i = p.search(/[*?[]/);
  if (i < 0) return p;
  const cut = p.lastIndexOf("/", i);
  if (cut < 0) return ".";
  return cut === 0 ? "/" : p.slice(0, cut);
}

function under(p: string, root: string): boolean {
  return p === root || p.startsWith(root === "/" ? "/" : root + "/");
}

/** How bad recursively deleting `p` (already normalised, glob base taken) is, or null when routine. */
export function deletionSeverity(p: string): RiskLevel | null {
  if (p === "/" || p === "~" || p === "/home" || p === "/root") return "critical";
  if (/^~\/\.(ssh|gnupg)(\/|$)/.test(p)) return "critical";
  if (TEMP_ROOTS.includes(p)) return "high";
  if (TEMP_ROOTS.some((t) => under(p, t))) return null;
  if (p.startsWith("/home/")) return p.split("/").length <= 3 ? "critical" : "high";
  // Logs and caches below their service directory: routine cleanup, but a human should see log deletion.
  if (/^\/var\/log\/[^/]+/.test(p)) return "high";
  if (/^\/var\/cache\/[^/]+/.test(p)) return null;
  if (SYSTEM_ROOTS.some((r) => under(p, r))) return "critical";
  return null;
}

/** True when `p` is `/` or one of the core system roots (recursive chmod/chown there is critical). */
export function isCoreRoot(p: string): boolean {
  return CORE_ROOTS.includes(p);
}

/** True when `p` is anywhere in the system tree or a home directory (not scratch space). */
export function isSystemPath(p: string): boolean {
  if (p === "~" || p === "/") return true;
  if (TEMP_ROOTS.some((t) => under(p, t))) return false;
  return SYSTEM_ROOTS.some((r) => under(p, r));
}

const BLOCK_DEVICE = /^\/dev\/((sd|hd|vd|xvd)[a-z]+\d*|nvme\d+(n\d+)?(p\d+)?|mmcblk\d+(p\d+)?|md\d+|dm-\d+|loop\d+|nbd\d+|rbd\d+|zram\d+|sr\d+|mapper\/.+|disk\/.+|mem|kmem|port)$/;
const HARMLESS_DEVICE = /^\/dev\/(null|zero|full|random|urandom|tty|stdout|stderr|stdin|fd\/\d+|pts\/\d+)$/;

/** True for block devices and raw memory: writing there destroys data. */
export function isBlockDevice(p: string): boolean {
  return BLOCK_DEVICE.test(p);
}

/** Writes that are not writes to a file (`/dev/null`, the terminal, another descriptor). */
export function isHarmlessSink(p: string): boolean {
  return HARMLESS_DEVICE.test(p);
}

/** Files whose modification grants root, persistence or breaks login: writing any of them is critical. */
const CRITICAL_WRITE = [
  // Container runtime sockets: whoever can write to them is root (permission changes on them are critical).
  /^\/(var\/)?run\/(docker|containerd\/containerd|podman\/podman|crio\/crio)\.sock$/,
  /^\/etc\/(passwd|shadow|group|gshadow|sudoers|crontab|profile|bash\.bashrc|environment|ld\.so\.preload|rc\.local|inittab)-?$/,
  /^\/etc\/(sudoers\.d|cron\.[a-z]+|cron\.d|profile\.d|pam\.d|security|init\.d|update-motd\.d|systemd\/system|ld\.so\.conf\.d)\//,
  /^\/var\/spool\/cron\//,
  /^\/(usr\/)?lib\/systemd\/system\//,
  /\/authorized_keys2?$/,
  /^(~|\/root|\/home\/[^/]+)\/\.(bashrc|bash_profile|profile|zshrc|bash_login|ssh\/rc)$/,
  /^\/(boot|bin|sbin|usr\/bin|usr\/sbin|usr\/local\/bin|usr\/local\/sbin)\//,
  /^\/proc\/sysrq-trigger$/,
];

/** Files that change how the host behaves; writing them needs a human. */
const HIGH_WRITE = [/^\/var\/log\//, /^\/etc\//, /^\/proc\//, /^\/sys\//, /^\/usr\//, /^\/lib/, /^\/var\/lib\//, /^\/root\//, /^\/dev\//];

/** Severity of writing (creating, overwriting, appending to) the file `p`; null for harmless sinks. */
export function writeSeverity(p: string): RiskLevel | null {
  if (isHarmlessSink(p)) return null;
  if (isBlockDevice(p)) return "critical";
  if (CRITICAL_WRITE.some((r) => r.test(p))) return "critical";
  if (HIGH_WRITE.some((r) => r.test(p))) return "high";
  return "medium";
}

/** Secret material a read-only inspection must never return (DESIGN.md: no secrets from read-only tools). */
const SECRET = [
  /^\/etc\/(shadow|gshadow|shadow-|gshadow-|sudoers)$/,
  /^\/etc\/ssh\/ssh_host_[a-z0-9]+_key$/,
  /(^|\/)\.ssh\/id_[a-z0-9_]+$/,
  /(^|\/)\.(aws\/credentials|docker\/config\.json|kube\/config|netrc|pgpass|git-credentials|vault-token)$/,
  /^\/proc\/(\d+|self|thread-self|[^/]*[*?[][^/]*)\/(task\/[^/]+\/)?(environ|mem)$/,
  /^\/etc\/(ssl\/private|letsencrypt\/(live|archive)|pki\/tls\/private|NetworkManager\/system-connections|wireguard)\//,
  /^\/(var\/)?run\/secrets\//,
  /^\/etc\/kubernetes\/(admin|kubelet|controller-manager|scheduler|super-admin)\.conf$/,
  /^\/etc\/kubernetes\/pki\/.*\.key$/,
  /^\/var\/lib\/kubelet\/pki\/.*\.key$/,
  /^\/etc\/rancher\/k3s\/k3s\.yaml$/,
  /^\/etc\/(krb5\.keytab|ppp\/(chap|pap)-secrets|mysql\/debian\.cnf)$/,
  /^\/etc\/.*\.key$/,
  /(^|\/)\.(my\.cnf|npmrc|pypirc|config\/gh\/hosts\.yml|gnupg\/private-keys-v1\.d\/.*|gnupg\/secring\.gpg|password-store\/.*)$/,
];

/** True when reading `p` would expose secrets. */
export function isSecretPath(p: string): boolean {
  return SECRET.some((r) => r.test(p));
}

/** The path inside an argument such as `@/etc/shadow`, `if=/x`, `--file=/x`, `file:///x`, or the argument itself. */
export function pathInArg(text: string): string {
  const m = /^(?:@|[A-Za-z_-]+=@?|file:\/\/(?:localhost)?)(\/.*|~.*)$/i.exec(text);
  return m ? m[1]! : text;
}
