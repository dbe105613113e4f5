import type { Cmd } from "../command.ts";
import { fileWrites } from "../effects.ts";
import { isSecretPath, normalisePath } from "../paths.ts";
import type { Rule } from "../rule.ts";

/**
 * Subcommands that store or change credentials or who can reach what, per tool: matched against the command's
 * words that are not options, joined by spaces. Sources: each tool's manual (aws configure, gh auth, docker login,
 * npm login/token, kubectl config/create, git credential, vault, gcloud/az auth, helm registry).
 */
const CREDENTIAL_VERBS: Readonly<Record<string, RegExp>> = {
  aws: /\bconfigure\b|\biam (create-access-key|attach-|put-user-policy|create-login-profile|update-login-profile)/,
  gh: /\b(auth|secret|ssh-key|gpg-key)\b/,
  glab: /\b(auth|variable)\b/,
  docker: /\blogin\b/,
  podman: /\blogin\b/,
  nerdctl: /\blogin\b/,
  skopeo: /\blogin\b/,
  helm: /\bregistry login\b/,
  npm: /\b(login|adduser|add-user|token)\b|\bconfig set \S*(_auth|_password|token)/i,
  yarn: /\b(login|npm login)\b/,
  pnpm: /\b(login|adduser)\b/,
  pip: /\bconfig set \S*(index-url|trusted-host)/,
  pip3: /\bconfig set \S*(index-url|trusted-host)/,
  kubectl: /\bconfig (set-credentials|set-cluster|set-context|use-context)\b|\bcreate (secret|token|rolebinding|clusterrolebinding|serviceaccount)\b|\bcertificate approve\b/,
  git: /\bcredential\b|\bconfig\b.*\bcredential\b|\bremote (add|set-url) \S+ \S*:\/\/[^/@\s:]+:[^/@\s]*@/,
  vault: /\b(login|write|kv put|token create|auth enable|policy write)\b/,
  gcloud: /\bauth\b|\badd-iam-policy-binding\b/,
  az: /\blogin\b|\brole assignment create\b/,
  "ssh-copy-id": /./,
  "ssh-add": /./,
  htpasswd: /./,
  smbpasswd: /./,
  kinit: /./,
};

/** Credential and access configuration files (beyond the secret files themselves). */
const CREDENTIAL_FILE = /(^|\/)\.(ssh\/config|npmrc|pypirc|netrc|git-credentials|config\/gh\/hosts\.yml|docker\/config\.json|kube\/config|aws\/(credentials|config)|vault-token|pgpass)$/;

const words = (cmd: Cmd): string => cmd.args.map((a) => a.text).filter((t) => !t.startsWith("-")).join(" ");

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
      match: ["aws configure set aws_secret_access_key abc", "gh auth login --with-token", "docker login -u ci -p secret", "git config --global credential.helper store",
        "kubectl create secret generic db --from-literal=p=x", "kubectl create clusterrolebinding x --clusterrole=cluster-admin --user=eve", "npm config set //registry.npmjs.org/:_authToken x",
        "echo 'machine x login a password b' >> ~/.netrc", "ssh-copy-id admin@db.example.com", "printf '[default]\\n' > ~/.aws/credentials"],
      noMatch: ["docker ps", "git config user.name Me", "kubectl get secrets", "aws s3 ls", "cat ~/.ssh/config"],
    },
  },
];
