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

/**
 * Collapses `//`, `/./` and `..` lexically and drops a trailing slash; joins a relative path to `cwd`; resolves the
 * aliases `/proc/PID/root/…` and `/proc/PID/cwd/…` (PID any word, `self`, a glob) to `/…` before `..` is applied.
 */
export function normalisePath(p: string, cwd?: string): string {
  let path = p;
  if (path === "") return "";
  // ~user is that user's home: ~root is /root, anyone else's is under /home (the worst case for a rule).
  const tilde = /^~([a-z_][a-z0-9_.-]*)(?=\/|$)/i.exec(path);
  if (tilde) path = (tilde[1] === "root" ? "/root" : `/home/${tilde[1]}`) + path.slice(tilde[0].length);
  if (!path.startsWith("/") && !path.startsWith("~") && cwd) path = cwd.replace(/\/$/, "") + "/" + path;
  const abs = path.startsWith("/");
  const parts: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") { if (parts.length > (path.startsWith("~") ? 1 : 0)) parts.pop(); continue; }
    parts.push(seg);
    // /proc/PID/root and /proc/PID/cwd (also under task/TID) are links the kernel follows: to a root directory, and to a
    // working directory the text does not show (taken as `/`, from which `..` climbs nowhere: the worst case).
    // (`/proc//root`: a PID only known at run time, `/proc/$$/root`, left an empty segment.)
    if (abs && parts[0] === "proc" && (seg === "root" || seg === "cwd") && (parts.length <= 3 || (parts.length === 5 && parts[2] === "task"))) parts.length = 0;
  }
  const out = (abs ? "/" : "") + parts.join("/");
  return out === "" ? (abs ? "/" : ".") : out;
}

/** A word's display form with each part known only at run time (`$X`, `${X}`, `$(…)`) as `*`: the paths it may name. */
export function runTimeGlob(display: string): string {
  return display.replace(/\$\{[^}]*\}|\$\((…|\(…\))\)|\$[A-Za-z_$#?!@*0-9][A-Za-z0-9_]*/g, "*");
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
  // Per-user persistence: login/logout scripts, user units and autostart entries, git hooks and config that name
  // programs (core.pager, core.fsmonitor…), environment read at login, editor/readline start-up files.
  /^(~|\/root|\/home\/[^/]+)\/\.(bash_logout|zprofile|zlogin|zshenv|cshrc|tcshrc|kshrc|mkshrc|pam_environment|xprofile|xinitrc|xsession|gitconfig|config\/git\/config|vimrc|exrc|inputrc|config\/(systemd\/user|autostart|environment\.d)\/.+|local\/share\/systemd\/user\/.+)$/,
  /(^|\/)\.git\/(hooks\/[^/]+|config)$/,
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
  // Into a core system directory itself (`cp -r ./etc /`, `cp -a x/. /usr`): whatever the copy holds lands there.
  if (isCoreRoot(p) || ["/root", "/var", "/var/lib", "/home"].includes(p)) return "high";
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
  // Shell and client histories (passwords typed on command lines), old password hashes, raw kernel memory.
  /(^|\/)\.([a-z_]*_history|history|lesshst)$/,
  /^\/etc\/security\/opasswd$/,
  /^\/(proc\/kcore|dev\/(mem|kmem|port))$/,
  // Private keys, keystores and dotenv files wherever they are; CI and cloud credential stores.
  /(^|\/)[^/]*\.(key|p12|pfx|keytab|jks|keystore)$/,
  /(^|\/)(privkey|private)[^/]*\.pem$/,
  /(^|\/)\.env(\.(?!(example|sample|template|dist)$)[A-Za-z0-9_-]+)?$/,
  /^\/var\/lib\/jenkins\/(secrets\/|credentials\.xml$)/,
  /(^|\/)\.(config\/gcloud\/(credentials\.db|legacy_credentials\/.*|application_default_credentials\.json|access_tokens\.db)|azure\/(accessTokens\.json|msal_token_cache\..*))$/,
  /(^|\/)\.(my\.cnf|npmrc|pypirc|config\/gh\/hosts\.yml|gnupg\/private-keys-v1\.d\/.*|gnupg\/secring\.gpg|password-store\/.*)$/,
];

/** SECRET as one alternation: one regex run per path instead of one per entry (same answer, ~5x faster). */
const SECRET_ANY = new RegExp(SECRET.map((r) => `(?:${r.source})`).join("|"));

/** Secret files a glob may reach (`/etc/sha?ow`, `/home/u?/.ssh/id_rsa`, any `*` form): matched against the glob's pattern. */
const SECRET_SAMPLES = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/sudoers", "/etc/security/opasswd", "/root/.ssh/id_rsa", "/root/.ssh/id_ed25519",
  "/home/u/.ssh/id_rsa", "/home/u/.ssh/id_ed25519", "~/.ssh/id_rsa", "~/.ssh/id_ed25519", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ed25519_key",
  "~/.aws/credentials", "/root/.aws/credentials", "/home/u/.aws/credentials", "~/.netrc", "~/.git-credentials", "~/.kube/config", "/root/.bash_history",
  "~/.bash_history", "/home/u/.bash_history", "/proc/1/environ", "/proc/self/environ", "/etc/kubernetes/admin.conf"];

/**
 * Directories that hold little but secrets: handing the whole directory to a reader or copier reads them. A process's
 * directory under /proc (and /proc itself) holds its `environ` and `mem` (`grep -r . /proc/1234`, issue 19).
 */
const SECRET_DIR = /^((~|\/root|\/home\/[^/]+)\/\.(ssh|gnupg|aws|kube|password-store|docker)|\/etc\/(ssl\/private|pki\/tls\/private|letsencrypt|kubernetes\/pki|wireguard)|\/(var\/)?run\/secrets|\/var\/lib\/jenkins\/secrets|\/proc(\/(\d+|self|thread-self|[^/]*[*?[][^/]*)(\/task(\/[^/]+)?)?)?)$/;

function globRegex(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") { const j = glob.indexOf("]", i + 2); if (j < 0) re += "\\["; else { re += "[" + glob.slice(i + 1, j).replace(/^!/, "^").replace(/\\/g, "\\\\") + "]"; i = j; } }
    else re += c.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  try { return new RegExp(`^${re}$`); } catch { return /^/; } // a bracket bash reads and we cannot: it may match anything
}

/**
 * Names of secret files (SECRET's entries by their last component), tried in the directory a glob's last component
 * is matched in: `/proc/1234/env*` may be `/proc/1234/environ`, `~/.e*` `~/.env` (red team, issue 19: `cd /proc/1234
 * && cat env*`, `cd ~ && cat .e*`). A name is kept only where SECRET says it is secret in that directory. Names
 * secret in every directory by their extension (`*.key`, `*.keytab`, `privkey*.pem`) are not listed: `cat /etc/nginx/*` would
 * always be one; a pattern naming the extension (`cat /srv/*.key`) is matched by SECRET itself.
 */
const SECRET_NAMES = ["environ", "mem", "shadow", "gshadow", "shadow-", "gshadow-", "sudoers", "opasswd", "kcore", ".env", ".env.local", ".env.production",
  ".netrc", ".pgpass", ".git-credentials", ".vault-token", ".bash_history", ".zsh_history", ".history", ".mysql_history", ".psql_history", ".python_history",
  ".lesshst", ".my.cnf", ".npmrc", ".pypirc", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "credentials", "config", "config.json", "admin.conf", "kubelet.conf",
  "super-admin.conf", "k3s.yaml", "debian.cnf", "chap-secrets", "pap-secrets", "credentials.xml",
  "ssh_host_rsa_key", "ssh_host_ecdsa_key", "ssh_host_ed25519_key", "token"];

/** bash's pathname expansion of one component (dotglob off: `*`, `?` and `[…]` never match a leading `.`). */
function componentMatches(pattern: string, name: string): boolean {
  if (name.startsWith(".") && !pattern.startsWith(".")) return false;
  return globRegex(pattern).test(name);
}

/** True when reading `p` would expose secrets; a globbed `p` is secret when it can match a known secret file. */
export function isSecretPath(p: string): boolean {
  if (SECRET_ANY.test(p)) return true;
  if (!/[*?[]/.test(p)) return false;
  const re = globRegex(p);
  if (SECRET_SAMPLES.some((s) => re.test(s))) return true;
  // A glob in the last component: the secret names it can match in its directory (which may itself be a glob).
  const cut = p.lastIndexOf("/");
  const last = p.slice(cut + 1);
  if (cut < 0 || !/[*?[]/.test(last)) return false;
  const dir = p.slice(0, cut) || "/";
  return SECRET_NAMES.some((n) => componentMatches(last, n) && SECRET_ANY.test(`${dir === "/" ? "" : dir}/${n}`));
}

/** True when the tree at `p` holds known secret files (`/`, `/etc`, `/root`, `~`, `/home/u`): reading every file below it reads them. */
export function treeHoldsSecrets(p: string): boolean {
  return SECRET_SAMPLES.some((s) => s === p || s.startsWith(p === "/" ? "/" : p + "/")) || (p.startsWith("/home/") && p.split("/").length === 3) || SECRET_DIR.test(p);
}

/** True when `p` is a directory that holds little but secrets (`~/.ssh`, `/etc/ssl/private`): reading it whole reads them. */
export function isSecretDir(p: string): boolean {
  return SECRET_DIR.test(p);
}

/** The path inside an argument such as `@/etc/shadow`, `if=/x`, `--file=/x`, `file:///x`, or the argument itself. */
export function pathInArg(text: string): string {
  const m = /^(?:@|[A-Za-z_-]+=@?|file:\/\/(?:localhost)?)(\/.*|~.*)$/i.exec(text);
  return m ? m[1]! : text;
}
