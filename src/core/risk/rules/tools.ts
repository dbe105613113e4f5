import { optionsOf, type Cmd } from "../command.ts";
import type { OptionSpec } from "../options.ts";
import type { Rule } from "../rule.ts";
import { dpkgChanges } from "./verb-tables.ts";

/**
 * Tools with subcommands: which verbs only read. Anything else changes state (medium), and some verbs are
 * high on their own. Sources: each tool's manual (git(1), docker(1), kubectl reference, apt(8), dnf(8),
 * npm(1), pip(1), ip(8), journalctl(1), dmesg(1)).
 */
interface ToolSpec {
  options: OptionSpec;
  read: readonly string[];
  high?: readonly string[];
  /** Verbs that take a second-level verb (`docker container ls`). */
  groups?: readonly string[];
}

const words = (s: string): string[] => s.trim().split(/\s+/);
const PKG_READ = words("list search show policy depends rdepends madison showpkg changelog info provides repolist deplist check-update repoquery se if list-updates lu repos lr find version help --version -v -h --help");
const DOCKER: ToolSpec = {
  options: { posix: true, shortArgs: "cHl", longArgs: ["config", "context", "host", "log-level", "tlscacert", "tlscert", "tlskey"] },
  read: words("ps images logs inspect stats version info top port history events diff search ls list df help --version --help"),
  high: words("exec attach cp commit export save load plugin swarm secret"),
  groups: words("container image network volume system context builder compose buildx plugin node service stack"),
};
const TOOLS: Readonly<Record<string, ToolSpec>> = {
  git: {
    options: { posix: true, shortArgs: "Cc", longArgs: ["git-dir", "work-tree", "namespace", "config-env", "super-prefix", "exec-path", "attr-source"] },
    read: words("status log diff show rev-parse merge-base ls-files ls-tree ls-remote grep blame describe shortlog reflog cat-file show-ref for-each-ref rev-list name-rev whatchanged count-objects fsck verify-commit verify-tag help version --version --help var check-ignore check-attr cherry range-diff diff-tree diff-files diff-index annotate"),
    high: words("filter-branch"),
  },
  docker: DOCKER,
  podman: DOCKER,
  kubectl: {
    options: { posix: true, shortArgs: "ns", longArgs: ["namespace", "context", "cluster", "kubeconfig", "server", "user", "token", "as", "as-group", "request-timeout"] },
    read: words("get describe logs top explain version api-resources api-versions cluster-info events diff help completion view get-contexts current-context get-clusters get-users"),
    high: words("run exec proxy port-forward cp debug attach auth certificate drain cordon taint replace"),
    groups: words("config rollout"),
  },
  apt: { options: { posix: true, shortArgs: "oqtc" }, read: PKG_READ },
  "apt-get": { options: { posix: true, shortArgs: "oqtc" }, read: words("check changelog source download help --version --help -s --simulate --dry-run") },
  dnf: { options: { posix: true, shortArgs: "cdeR", longArgs: ["repo", "enablerepo", "disablerepo", "setopt"] }, read: PKG_READ },
  yum: { options: { posix: true, shortArgs: "cdeR", longArgs: ["repo", "enablerepo", "disablerepo", "setopt"] }, read: PKG_READ },
  zypper: { options: { posix: true }, read: PKG_READ },
  apk: { options: { posix: true, shortArgs: "pX", longArgs: ["root", "repository"] }, read: words("info search list policy dot stats version --version --help") },
  snap: { options: { posix: true }, read: words("list info find version changes change services logs help") },
  flatpak: { options: { posix: true }, read: words("list info search history remotes remote-ls --version --help") },
  npm: { options: { posix: true }, read: words("ls list ll la view info show outdated search help audit explain why doctor version -v --version root prefix bin config get query fund") },
  pnpm: { options: { posix: true }, read: words("ls list view info outdated audit why root bin --version -v help") },
  yarn: { options: { posix: true }, read: words("list info outdated audit why --version -v help") },
  pip: { options: { posix: true }, read: words("list show freeze search check help index inspect --version -V debug") },
  pip3: { options: { posix: true }, read: words("list show freeze search check help index inspect --version -V debug") },
  ip: { options: { posix: true, shortArgs: "fnb", longArgs: ["family", "netns", "batch"] }, read: [] },
  journalctl: { options: {}, read: [] },
  dmesg: { options: {}, read: [] },
  hostnamectl: { options: { posix: true }, read: words("status show --help --version") },
  timedatectl: { options: { posix: true }, read: words("status show show-timesync timesync-status list-timezones --help --version") },
  loginctl: { options: { posix: true }, read: words("list-sessions list-users list-seats session-status show-session user-status show-user seat-status show-seat --help --version") },
  resolvectl: { options: { posix: true }, read: words("status query service openpgp tlsa statistics show-cache show-server-state monitor domain dns llmnr mdns dnssec dnsovertls --help --version") },
  busctl: { options: { posix: true }, read: words("list status monitor capture tree introspect get-property help --version"), high: words("call set-property emit wait") },
  openssl: { options: { posix: true }, read: words("x509 s_client req verify version dgst enc base64 rand crl pkey rsa ec ciphers list help sha256 sha1 md5 asn1parse pkcs12 ocsp") },
  sysctl: { options: {}, read: [] },
};

/** The words from the verb on, after the tool's global options (`docker -H h login x` → `login x`), or null. */
export function toolOperands(cmd: Cmd): string[] | null {
  if (!Object.hasOwn(TOOLS, cmd.name)) return null;
  return optionsOf(cmd, TOOLS[cmd.name]!.options).operands.map((a) => a.text);
}

/** The verb (and second-level verb for groups) after the tool's global options. */
export function verbOf(cmd: Cmd): { tool: ToolSpec; verb: string } | null {
  if (!Object.hasOwn(TOOLS, cmd.name)) return null;
  const tool = TOOLS[cmd.name]!;
  const ops = optionsOf(cmd, tool.options).operands.map((a) => a.text);
  let verb = ops[0] ?? "";
  if (tool.groups?.includes(verb)) verb = ops[1] ?? "";
  return { tool, verb };
}

const IP_MUTATE = /^(add|del|delete|set|change|replace|flush|append|prepend|save|restore|up|down|attach|detach|exec)$/;

function mutates(cmd: Cmd): boolean {
  const v = verbOf(cmd);
  if (!v) return false;
  const t = cmd.args.map((a) => a.text);
  switch (cmd.name) {
    case "ip": return t.some((x) => IP_MUTATE.test(x));
    case "journalctl": return t.some((x) => /^--(vacuum-|rotate|flush|sync|relinquish-var|setup-keys)/.test(x));
    case "dmesg": return t.some((x) => /^(-c|-C|--clear|--read-clear|-n|--console-level|-D|-E|--console-off|--console-on)$/.test(x));
    case "sysctl": return false;
    // resolvectl dns|domain|llmnr|mdns|dnssec|dnsovertls|default-route LINK VALUE… sets; with no value it shows.
    case "resolvectl": if (/^(dns|domain|llmnr|mdns|dnssec|dnsovertls|default-route|nta)$/.test(v.verb)) return optionsOf(cmd, v.tool.options).operands.length > 2;
      break;
    case "npm": case "pnpm": case "yarn":
      if (v.verb === "audit") return t.includes("fix");
      if (v.verb === "config") return !["get", "list", "ls"].includes(t[1] ?? "");
      break;
  }
  if (v.verb === "" && ["git", "docker", "podman", "kubectl", "npm", "pip", "pip3", "apt", "dnf", "yum", "hostnamectl", "timedatectl", "loginctl", "resolvectl", "busctl"].includes(cmd.name)) return false;
  return !v.tool.read.includes(v.verb);
}

const DOCKER_PRIV = /^(--privileged|--pid=host|--net=host|--network=host|--ipc=host|--uts=host|--userns=host|--cap-add|--device|--security-opt)/;
const HOST_MOUNT = /^(\/|\/etc|\/root|\/var\/run\/docker\.sock|\/run|\/var|\/usr|\/boot|\/proc|\/sys|\/dev)(:|$)/;

/** rpm(8) modes that change the package database: -i -U -F -e (query -q and verify -V read). */
const RPM_CHANGE = /^(-[iUFe]|--(install|upgrade|freshen|erase|reinstall))/;

/** Subcommand-level rules for tools that both read and change state. */
export const TOOL_RULES: readonly Rule[] = [
  {
    id: "local_package_file", severity: "high",
    reason: "installs, removes or changes the state of packages with dpkg/rpm directly (maintainer scripts run as root, no repository signature is checked; architectures and selections change what apt installs next)",
    commands: ["dpkg", "rpm"],
    test: (cmd) => (cmd.name === "dpkg" ? dpkgChanges(cmd) : cmd.args.some((a) => RPM_CHANGE.test(a.text))),
    examples: { match: ["dpkg -i x.deb", "dpkg --purge nginx", "rpm -Uvh pkg.rpm", "rpm -e nginx", "dpkg --add-architecture i386", "dpkg --remove-architecture i386", "dpkg --set-selections",
      "dpkg --configure -a", "dpkg -x x.deb /", "dpkg --update-avail p", "dpkg -Ri /tmp/debs", "dpkg --frobnicate"],
    noMatch: ["dpkg -l", "dpkg -L bash", "dpkg --status bash", "rpm -qa", "rpm -qi bash", "dpkg -S /bin/ls", "dpkg --print-architecture", "dpkg --get-selections", "dpkg --compare-versions 1 lt 2", "dpkg -l 'nginx*'", "dpkg --admindir=/x -l"] },
  },
  {
    id: "local_package_install", severity: "high",
    reason: "installs a package from a local file or archive (maintainer or build scripts run with no repository signature)",
    commands: ["apt", "apt-get", "dnf", "yum", "zypper", "snap", "pip", "pip3", "npm", "pnpm", "yarn"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      if (!t.some((x) => /^(install|reinstall|localinstall|add|i)$/.test(x))) return false;
      return t.includes("--dangerous") || t.some((x) => /^(\.{0,2}\/|~\/)|\.(deb|rpm|snap|tgz|tar\.gz|whl|zip)$/.test(x));
    },
    examples: { match: ["apt-get install /tmp/x.deb", "apt install ./x.deb", "dnf install ./x.rpm", "yum localinstall x.rpm", "snap install --dangerous x.snap", "pip install /tmp/evil.tar.gz", "npm install -g /tmp/evil.tgz"], noMatch: ["apt-get install nginx", "pip install requests", "npm install", "dnf install httpd"] },
  },
  {
    id: "mutating_subcommand", severity: "medium",
    reason: "a subcommand that changes state (install, commit, apply, restart…)",
    commands: Object.keys(TOOLS),
    test: mutates,
    examples: { match: ["git add .", "npm install", "apt-get install -y nginx", "docker restart web", "kubectl apply -f x.yaml", "resolvectl dns eth0 10.0.0.53"], noMatch: ["git status", "resolvectl dns", "resolvectl dns eth0", "git -C /srv/app status", "hostnamectl", "timedatectl", "kubectl config view", "kubectl config get-contexts", "docker ps", "kubectl get pods", "apt list --installed", "ip addr show"] },
  },
  {
    id: "privileged_subcommand", severity: "high",
    reason: "a subcommand that opens a shell, a gateway or a privileged workload (exec, run, proxy, port-forward…)",
    commands: Object.keys(TOOLS),
    test: (cmd) => {
      const v = verbOf(cmd);
      if (!v) return false;
      if (cmd.name === "ip") return cmd.args.some((a) => a.text === "netns") && cmd.args.some((a) => a.text === "exec");
      return v.tool.high?.includes(v.verb) ?? false;
    },
    examples: { match: ["kubectl proxy --port=8001", "kubectl run dbg --image=alpine", "docker exec -it web sh", "docker container exec web ls",
      "busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StopUnit ss ssh.service replace"], noMatch: ["kubectl get pods", "docker ps -a"] },
  },
  {
    id: "destructive_subcommand", severity: "high",
    reason: "deletes workloads, volumes, infrastructure or shared history (namespaces, volumes, prune, destroy, force push)",
    commands: ["kubectl", "docker", "podman", "terraform", "tofu", "helm", "git", "pulumi"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      switch (cmd.name) {
        case "kubectl": return ["delete", "drain", "replace"].includes(verbOf(cmd)?.verb ?? "") || (t.includes("scale") && t.some((x) => /^--replicas=0$/.test(x)));
        case "docker": case "podman": return t.includes("prune") || (t.includes("volume") && t.some((x) => x === "rm" || x === "remove")) || (t[0] === "rm" && t.some((x) => x.startsWith("-") && /[vf]/.test(x)));
        case "terraform": case "tofu": case "pulumi": return t.includes("destroy") || t.some((x) => /^-?-auto-approve$|^--yes$/.test(x)) || (t.includes("state") && t.includes("rm"));
        case "helm": return t.some((x) => /^(uninstall|delete|del|un)$/.test(x));
        default: return t[0] === "push" && t.some((x) => /^(-f|--force|--force-with-lease|--mirror|--delete|-d)$/.test(x) || /^\+/.test(x));
      }
    },
    examples: { match: ["kubectl delete ns prod", "docker system prune -af --volumes", "terraform destroy -auto-approve", "git push --force origin main", "helm uninstall prod"], noMatch: ["kubectl get ns", "git push origin main", "docker ps", "terraform plan"] },
  },
  {
    id: "container_host_access", severity: "high",
    reason: "a container with host privileges or the host filesystem mounted (container escape)",
    commands: ["docker", "podman", "kubectl", "nerdctl"],
    test: (cmd) => {
      const t = cmd.args.map((a) => a.text);
      if (cmd.name === "kubectl") return t.some((x) => x.startsWith("--overrides") || x.startsWith("--privileged"));
      if (t.some((x) => DOCKER_PRIV.test(x))) return true;
      for (let i = 0; i < t.length; i++) {
        const x = t[i]!;
        const val = x === "-v" || x === "--volume" || x === "--mount" ? t[i + 1] ?? "" : x.replace(/^(-v|--volume=|--mount=)/, "");
        if (val !== x || x === "-v" || x === "--volume" || x === "--mount") {
          const src = val.includes("source=") ? val.replace(/^.*source=([^,]*).*$/, "$1") : val;
          if (HOST_MOUNT.test(src)) return true;
        }
      }
      return false;
    },
    examples: { match: ["docker run --privileged -it alpine", "docker run -v /:/host alpine", "kubectl run x --image=a --overrides='{}'"], noMatch: ["docker run -v ./data:/data alpine", "docker ps"] },
  },
];
