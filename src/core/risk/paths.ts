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

/**
 * Secret material a read-only inspection must never return (DESIGN.md: no secrets from read-only tools): each rule a
 * pattern of paths and `files`, secret files it matches, one or more for each alternative of the pattern (the test
 * checks both). SECRET_ANY (every path) and SECRET_NAMES (a glob's last component) are both derived from this one
 * table, so a secret file added here is seen by both.
 */
export const SECRET: readonly { re: RegExp; files: readonly string[] }[] = [
  { re: /^\/etc\/(shadow|gshadow|shadow-|gshadow-|sudoers)$/, files: ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers"] },
  { re: /^\/etc\/ssh\/ssh_host_[a-z0-9]+_key$/, files: ["/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key"] },
  { re: /(^|\/)\.ssh\/id_[a-z0-9_]+$/, files: ["/root/.ssh/id_rsa", "/root/.ssh/id_ed25519", "/root/.ssh/id_ecdsa", "/root/.ssh/id_dsa"] },
  {
    re: /(^|\/)\.(aws\/credentials|docker\/config\.json|kube\/config|netrc|pgpass|git-credentials|vault-token)$/,
    files: ["/root/.aws/credentials", "/root/.docker/config.json", "/root/.kube/config", "/root/.netrc", "/root/.pgpass", "/root/.git-credentials", "/root/.vault-token"],
  },
  { re: /^\/proc\/(\d+|self|thread-self|[^/]*[*?[][^/]*)\/(task\/[^/]+\/)?(environ|mem)$/, files: ["/proc/1/environ", "/proc/1/mem"] },
  // Directories: everything below them, a glob's text included (the pattern is not anchored at the end).
  { re: /^\/etc\/(ssl\/private|letsencrypt\/(live|archive)|pki\/tls\/private|NetworkManager\/system-connections|wireguard)\//, files: [
    "/etc/ssl/private/host.key", "/etc/letsencrypt/live/example.org/privkey.pem", "/etc/letsencrypt/archive/example.org/privkey1.pem", "/etc/pki/tls/private/host.key",
    "/etc/NetworkManager/system-connections/office.nmconnection", "/etc/wireguard/wg0.conf",
  ] },
  { re: /^\/(var\/)?run\/secrets\//, files: ["/run/secrets/kubernetes.io/serviceaccount/token"] },
  {
    re: /^\/etc\/kubernetes\/(admin|kubelet|controller-manager|scheduler|super-admin)\.conf$/,
    files: ["/etc/kubernetes/admin.conf", "/etc/kubernetes/kubelet.conf", "/etc/kubernetes/controller-manager.conf", "/etc/kubernetes/scheduler.conf", "/etc/kubernetes/super-admin.conf"],
  },
  { re: /^\/etc\/kubernetes\/pki\/.*\.key$/, files: ["/etc/kubernetes/pki/ca.key"] },
  { re: /^\/var\/lib\/kubelet\/pki\/.*\.key$/, files: ["/var/lib/kubelet/pki/kubelet.key"] },
  { re: /^\/etc\/rancher\/k3s\/k3s\.yaml$/, files: ["/etc/rancher/k3s/k3s.yaml"] },
  { re: /^\/etc\/(krb5\.keytab|ppp\/(chap|pap)-secrets|mysql\/debian\.cnf)$/, files: ["/etc/krb5.keytab", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets", "/etc/mysql/debian.cnf"] },
  { re: /^\/etc\/.*\.key$/, files: ["/etc/nginx/site.key"] },
  // Shell and client histories (passwords typed on command lines), old password hashes, raw kernel memory.
  {
    re: /(^|\/)\.([a-z_]*_history|history|lesshst)$/,
    files: ["/root/.bash_history", "/root/.zsh_history", "/root/.history", "/root/.mysql_history", "/root/.psql_history", "/root/.python_history", "/root/.lesshst"],
  },
  { re: /^\/etc\/security\/opasswd$/, files: ["/etc/security/opasswd"] },
  { re: /^\/(proc\/kcore|dev\/(mem|kmem|port))$/, files: ["/proc/kcore", "/dev/mem", "/dev/kmem", "/dev/port"] },
  // Private keys, keystores and dotenv files wherever they are; CI and cloud credential stores.
  { re: /(^|\/)[^/]*\.(key|p12|pfx|keytab|jks|keystore)$/, files: ["/srv/a.key", "/srv/a.p12", "/srv/a.pfx", "/srv/a.keytab", "/srv/a.jks", "/srv/a.keystore"] },
  { re: /(^|\/)(privkey|private)[^/]*\.pem$/, files: ["/srv/privkey.pem", "/srv/private.pem"] },
  { re: /(^|\/)\.env(\.(?!(example|sample|template|dist)$)[A-Za-z0-9_-]+)?$/, files: ["/srv/app/.env", "/srv/app/.env.local", "/srv/app/.env.production"] },
  { re: /^\/var\/lib\/jenkins\/(secrets\/|credentials\.xml$)/, files: ["/var/lib/jenkins/secrets/master.key", "/var/lib/jenkins/credentials.xml"] },
  {
    re: /(^|\/)\.(config\/gcloud\/(credentials\.db|legacy_credentials\/.*|application_default_credentials\.json|access_tokens\.db)|azure\/(accessTokens\.json|msal_token_cache\..*))$/,
    files: ["/root/.config/gcloud/credentials.db", "/root/.config/gcloud/legacy_credentials/u@example.com/adc.json", "/root/.config/gcloud/application_default_credentials.json",
      "/root/.config/gcloud/access_tokens.db", "/root/.azure/accessTokens.json", "/root/.azure/msal_token_cache.json"],
  },
  {
    re: /(^|\/)\.(my\.cnf|npmrc|pypirc|config\/gh\/hosts\.yml|gnupg\/private-keys-v1\.d\/.*|gnupg\/secring\.gpg|password-store\/.*)$/,
    files: ["/root/.my.cnf", "/root/.npmrc", "/root/.pypirc", "/root/.config/gh/hosts.yml", "/root/.gnupg/private-keys-v1.d/A1B2.key", "/root/.gnupg/secring.gpg", "/root/.password-store/mail.gpg"],
  },
];

/** SECRET as one alternation: one regex run per path instead of one per entry (same answer, ~5x faster). */
const SECRET_ANY = new RegExp(SECRET.map((r) => `(?:${r.re.source})`).join("|"));

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
 * Names of secret files (SECRET's files by their last component), tried in the directory a glob's last component
 * is matched in: `/proc/1234/env*` may be `/proc/1234/environ`, `~/.e*` `~/.env` (red team, issue 19: `cd /proc/1234
 * && cat env*`, `cd ~ && cat .e*`). A name is kept only where SECRET says it is secret in that directory. Names
 * secret in every directory (`*.key`, `*.keytab`, `privkey*.pem`: SECRET matches them below any directory) are left
 * out unless they begin with a dot: `cat /etc/nginx/*` would always be one, while `*` never reaches a dotfile (dotglob
 * off); a pattern naming the extension (`cat /srv/*.key`) is matched by SECRET itself.
 */
export const SECRET_NAMES: readonly string[] = [...new Set(SECRET.flatMap((r) => r.files.map((f) => f.slice(f.lastIndexOf("/") + 1))))]
  .filter((n) => n.startsWith(".") || !SECRET_ANY.test(`/srv/${n}`));

/** bash's pathname expansion of one component, as a test of names (dotglob off: `*`, `?` and `[…]` never match a leading `.`). */
function componentMatcher(pattern: string): (name: string) => boolean {
  const re = globRegex(pattern);
  return (name) => !(name.startsWith(".") && !pattern.startsWith(".")) && re.test(name);
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
  const matches = componentMatcher(last);
  return SECRET_NAMES.some((n) => matches(n) && SECRET_ANY.test(`${dir === "/" ? "" : dir}/${n}`));
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
