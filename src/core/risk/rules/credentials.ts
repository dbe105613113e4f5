import type { Cmd } from "../command.ts";
import { fileWrites } from "../effects.ts";
import { isSecretPath, normalisePath } from "../paths.ts";
import { programOf } from "../programs/index.ts";
import type { Rule } from "../rule.ts";
import { toolOperands } from "./tools.ts";

/**
 * Subcommands that store or change credentials or who can reach what, per tool: matched against the command's
 * words that are not options, joined by spaces. Sources: each tool's manual (aws configure, gh auth, docker login,
 * npm login/token, kubectl config/create, git credential, vault, gcloud/az auth, helm registry).
 */
const CREDENTIAL_VERBS: Readonly<Record<string, RegExp>> = {
  aws: /^configure\b|^iam (create-access-key|attach-|put-user-policy|create-login-profile|update-login-profile)/,
  gh: /^(auth|secret|ssh-key|gpg-key)\b/,
  glab: /^(auth|variable)\b/,
  docker: /^login\b/,
  podman: /^login\b/,
  nerdctl: /^login\b/,
  skopeo: /^login\b/,
  helm: /^registry login\b/,
  npm: /^(login|adduser|add-user|token)\b|^(config )?set \S*(_auth|_password|token)/i,
  yarn: /^(login|npm login)\b|^config set \S*(auth|token|password)/i,
  pnpm: /^(login|adduser)\b/,
  pip: /^config set \S*(index-url|trusted-host)/,
  pip3: /^config set \S*(index-url|trusted-host)/,
  kubectl: /^(config (set-credentials|set-cluster|set-context|use-context)|create (secret|token|rolebinding|clusterrolebinding|serviceaccount)|certificate approve)\b/,
  git: /^credential\b|^config\b.*\bcredential\b|^config\b.*\b[eE]xtra[hH]eader\b|^remote (add|set-url) \S+ \S*:\/\/[^/@\s:]+:[^/@\s]*@/,
  vault: /^(login|write|kv put|token create|auth enable|policy write)\b/,
  gcloud: /^auth\b|\badd-iam-policy-binding\b/,
  az: /^login\b|^role assignment create\b/,
  "ssh-copy-id": /(?:)/,
  "ssh-add": /(?:)/,
  htpasswd: /(?:)/,
  smbpasswd: /(?:)/,
  kinit: /(?:)/,
};

/** Credential and access configuration files (beyond the secret files themselves). */
const CREDENTIAL_FILE = /(^|\/)\.(ssh\/config|npmrc|pypirc|netrc|git-credentials|config\/gh\/hosts\.yml|docker\/config\.json|kube\/config|aws\/(credentials|config)|vault-token|pgpass|pip\/pip\.conf|config\/pip\/pip\.conf|yarnrc|yarnrc\.yml|condarc|pydistutils\.cfg)$|^\/etc\/(pip\.conf|npmrc)$/;

/** The words from the verb on, global options (and their values) removed where the tool's grammar is known. */
const words = (cmd: Cmd): string =>
  (programOf(cmd)?.operands.map((a) => a.text) ?? toolOperands(cmd) ?? cmd.args.map((a) => a.text)).filter((t) => !t.startsWith("-")).join(" ");

/** Storing or changing credentials and access: never an everyday read. */
export const CREDENTIAL_RULES: readonly Rule[] = [
  {
    id: "credential_change", severity: "high",
    reason: "stores or changes credentials, tokens or who may access what (login, credential helpers, key files, role bindings)",
    commands: ["*"],
    test: (cmd) => {
      const verbs = Object.hasOwn(CREDENTIAL_VERBS, cmd.name) ? CREDENTIAL_VERBS[cmd.name]! : null;
      if (verbs?.test(words(cmd))) return true;
      return fileWrites(cmd).some((a) => {
        const p = normalisePath(a.text, cmd.cwd);
        return isSecretPath(p) || CREDENTIAL_FILE.test(p);
      });
    },
    examples: {
      match: ["aws configure set aws_secret_access_key abc", "docker -H tcp://h:2375 login -u a -p b", "git -C /srv/app config credential.helper store", "kubectl -n prod create secret generic x", "gh auth login --with-token", "docker login -u ci -p secret", "git config --global credential.helper store",
        "kubectl create secret generic db --from-literal=p=x", "kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=eve", "npm config set //registry.npmjs.org/:_authToken x",
        "echo 'machine x login a password b' >> ~/.netrc", "ssh-copy-id admin@db.example.com", "printf '[default]\\n' > ~/.aws/credentials", "npm set //registry.npmjs.org/:_authToken=x", "yarn config set npmAuthToken x",
        "git config --global http.extraHeader 'Authorization: x'", "git config http.https://x.example.extraheader 'AUTHORIZATION: basic x'", "echo '[global]' > ~/.pip/pip.conf", "echo x > ~/.yarnrc"],
      noMatch: ["docker ps", "git config user.name Me", "kubectl get secrets", "aws s3 ls", "cat ~/.ssh/config", "docker logs login-service", "git log --grep credential", "kubectl -n login get pods"],
    },
  },
];
