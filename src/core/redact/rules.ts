import { isKeyHead } from "./private-keys.ts";
import { basicAuthValue, charClass, shellDirOrValue, quoted, run, sshInvalidUser, toSpace, unquoted, urlPassword, value, xmlKeyedValue, type Scanner } from "./scan.ts";

/**
 * The single-line rules of the redactor, as data. Each rule is a global regular expression whose every
 * quantifier is bounded (no attempt reads more than a few hundred characters past its start, so a search is
 * linear in the line's length), plus how the secret is located:
 * - `label`: the match is a label that stays (`password=`, `Bearer `, `postgres://`); the secret starts where
 *   the match ends and `scan` finds where it ends (see scan.ts);
 * - `token`: the match is (the start of) the secret itself; `extend` carries it on over the token's characters
 *   so a long token is redacted whole;
 * - `locate`: `locate` is given where the match ends and returns the secret's [from, to), after the match (URL
 *   passwords, XML settings) or starting inside or just before it (Vault tokens, key heads: patterns that start
 *   with a literal so the regex engine skips ahead, the secret's first character behind it).
 * Sources: the secret formats of the issuers (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Google), crypt(5),
 * the PostgreSQL/MySQL statement grammars, sshd's log lines, and corpus cases T2-10…T2-21.
 */
export type Rule =
  | { name: string; kind: "label"; re: RegExp; scan: Scanner }
  | { name: string; kind: "token"; re: RegExp; extend?: Scanner }
  | { name: string; kind: "locate"; re: RegExp; locate: (line: string, from: number) => { from: number; to: number } | null };

const base64url = run(charClass("A-Za-z0-9_-"));
const alnumUnderscore = run(charClass("A-Za-z0-9_"));
const cryptChars = run(charClass("./A-Za-z0-9+="));
const bearerChars = run(charClass("A-Za-z0-9._~+/=-"));

/** Names a key or option takes when its value is a secret (matched case-insensitively, at the end of the key). */
const SECRET_WORDS = "password|passwd|passphrase|pwd|pass|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|credentials?|[_-]key"
  // Red team (issue 12, second pass): Azure AccountKey/SharedAccessKey, kubeconfig client-key-data, a GCP
  // service account's private_key_id, signed-URL signatures, session cookies.
  + "|account[_-]?key|shared[_-]?access[_-]?key|[_-]key[_-]data|private[_-]?key[_-]?id|signature|session(?:[_-]?id)?|sid|csrf[_-]?token"
  // Red team, issue 19 re-trial: Rails' SECRET_KEY_BASE, Wi-Fi/IPsec pre-shared keys (wpa_supplicant.conf(5) `psk=`,
  // NetworkManager's `psk=`, WireGuard's `PresharedKey =`).
  + "|secret[_-]?key[_-]?base|psk|pre[_-]?shared[_-]?key";

/** A key ending in a secret word, as a whole (an XML `key`/`name` attribute's value), e.g. `DbPassword`. */
const SECRET_NAME = new RegExp(`(?:${SECRET_WORDS})$`, "i");

/**
 * What may stand between a secret-named key and its value besides `=` and `:`: format characters (zero-width
 * space/joiner, word joiner, BOM, soft hyphen) and the fullwidth/escaped spellings of `=` and `:` (`＝`, `：`,
 * `\x3d`, `\u003d`), which a writer (or a log's JSON encoder) can put there so a plain `=` rule misses the value.
 */
const FORMAT = "[\\u00ad\\u200b-\\u200f\\u2060\\ufeff]{0,8}";
const SEPARATOR = `(?:[=:\\uff1d\\uff1a]|\\\\x3[dDaA]|\\\\u003[dDaA])`;

/** The base64 run of a private key's head at `from` (see isKeyHead), at least 40 characters; null when it is none. */
function keyHead(line: string, from: number): { from: number; to: number } | null {
  if (!isKeyHead(line, from)) return null;
  const to = keyRun(line, from);
  return to - from >= 40 ? { from, to } : null;
}
const keyRun = run(charClass("A-Za-z0-9+/="));

/** Single-line rules, applied in this order (specific token kinds first so the marker names the kind). */
export const LINE_RULES: readonly Rule[] = [
  // crypt(5): `$id$salt$hash`, also `$5$/$6$rounds=N$salt$hash` and yescrypt `$y$params$salt$hash` (T2-21).
  { name: "shadow_hash", kind: "token", re: /\$(?:1|2[abxy]?|5|6|y|gy|7|apr1|pbkdf2[-_a-z0-9]{0,16})\$(?:[^\s:$]{0,64}\$){1,3}[./A-Za-z0-9+=]{16}/g, extend: cryptChars },
  { name: "argon2_hash", kind: "token", re: /\$argon2(?:id|i|d)\$[A-Za-z0-9+/=,$.-]/g, extend: run(charClass("A-Za-z0-9+/=,$.-")) },
  { name: "aws_access_key", kind: "token", re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  { name: "github_token", kind: "token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22})/g, extend: alnumUnderscore },
  { name: "slack_token", kind: "token", re: /\bx(?:ox[abposr]|app)-[A-Za-z0-9-]{10}/g, extend: run(charClass("A-Za-z0-9-")) },
  { name: "slack_token", kind: "label", re: /https:\/\/hooks\.slack\.com\/services\//g, scan: run(charClass("A-Za-z0-9/")) },
  { name: "api_key", kind: "token", re: /\b(?:sk_live_|sk_test_|rk_live_|rk_test_|glpat-|npm_)[A-Za-z0-9_-]{16}|\bsk-[A-Za-z0-9_-]{20}|\bAIza[0-9A-Za-z_-]{35}/g, extend: base64url },
  { name: "jwt", kind: "token", re: /\beyJ[A-Za-z0-9_-]{8,1024}\.[A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{8}/g, extend: base64url },
  // hostgate's own approval receipts (`hgr_` + 43 base64url characters).
  { name: "receipt", kind: "token", re: /\bhgr_[A-Za-z0-9_-]{16}/g, extend: base64url },
  // hostgate's approval-console links (`hostgate console [enroll]`): the one-time secret rides in the URL fragment
  // (`/login#…`, `/enroll#…`), and a browser started for the human keeps it in its argv, where list_processes
  // would show it to the model (newcomer trial, issue 23). Also the `hgl_` form the console mints.
  { name: "console_link", kind: "label", re: /\/(?:login|enroll)#(?=[A-Za-z0-9_-]{16})/g, scan: base64url },
  { name: "console_link", kind: "token", re: /\bhgl_[A-Za-z0-9_-]{16}/g, extend: base64url },
  // scheme://user:password@host — the password runs to the LAST @ of the authority (T2-12, T2-19).
  { name: "url_credentials", kind: "locate", re: /\b[a-z][a-z0-9+.-]{0,31}:\/\//gi, locate: urlPassword },
  { name: "bearer_token", kind: "label", re: /\b(?:Bearer|Basic)\s{1,8}(?=[A-Za-z0-9._~+/-]{12})/gi, scan: bearerChars },
  // SQL: CREATE/ALTER ROLE … PASSWORD '…', MySQL IDENTIFIED [WITH plugin] BY '…' (T2-11).
  { name: "sql_password", kind: "label", re: /\b(?:PASSWORD|IDENTIFIED(?:\s{1,8}WITH\s{1,8}[\w$]{1,64})?\s{1,8}BY(?:\s{1,8}PASSWORD)?)\s{1,8}(?=['"])/gi, scan: quoted },
  // sshd logs the user name of a failed login; people type their password there.
  { name: "login_name", kind: "label", re: /\binvalid user\s{1,4}/gi, scan: sshInvalidUser },
  { name: "sshpass", kind: "label", re: /\bsshpass\s{1,8}-p\s{0,8}/g, scan: value },
  // mysql/mariadb `-pSECRET` (no space). Values without a letter (ports, pids: ssh -p2222, ps -p1) are kept.
  { name: "mysql_password_flag", kind: "label", re: /(?<!\S)-p(?=[^\s]{0,63}[A-Za-z])(?=\S{3})/g, scan: toSpace },
  { name: "user_password_flag", kind: "label", re: /(?<!\S)(?:-u|--user)\s{1,8}["']?[^\s:"']{1,128}:/g, scan: unquoted },
  { name: "credential_flag", kind: "label", re: /(?<![\w-])--(?:password|passwd|pass|passphrase|psk|secret|token|api-key|apikey|auth-token|access-token|client-secret)(?:=|\s{1,8})/gi, scan: value },
  { name: "xml_secret", kind: "label", re: /<(?:password|passwd|secret|token|passphrase)>/gi, scan: run((c) => c !== 60) },
  // .NET appSettings and the like: `<add key="DbPassword" value="…"/>`, `<property name="db.password" value="…"/>`
  // (either attribute order): the `value` of an element whose `key`/`name` ends in a secret word (red team, issue 19).
  { name: "xml_setting", kind: "locate", re: /<[A-Za-z][\w:.-]{0,32}(?=\s)/g, locate: xmlKeyedValue((n) => SECRET_NAME.test(n)) },
  // Docker's config.json `"auth": "<base64 of user:password>"` and npm's `_auth=` (the same encoding): a base64
  // value that decodes to `user:password` (so `auth: required`, `auth=sha256` stay).
  { name: "basic_auth", kind: "label", re: /(?<![A-Za-z0-9_.-])(["']?)_?auth\1\s{0,8}[:=]\s{0,8}/gi, scan: basicAuthValue },
  // HashiCorp Vault tokens: `hvs.`/`hvb.`/`hvr.` + at least 24 characters, and the legacy `s.`/`b.`/`r.` + 24
  // alphanumerics with an upper-case letter and a digit (Vault's "Tokens" concept page, token prefixes).
  // (Each pattern starts with a literal, the lookbehind after it: the regex engine skips ahead to candidates.)
  { name: "vault_token", kind: "token", re: /hv(?<=(?:^|[^A-Za-z0-9_.-])hv)[sbr]\.[A-Za-z0-9_-]{24}/g, extend: base64url },
  { name: "vault_token", kind: "locate", re: /\.(?<=(?:^|[^A-Za-z0-9_.-])[sbr]\.)(?=[a-z0-9]{0,23}[A-Z])(?=[A-Za-z]{0,23}[0-9])[A-Za-z0-9]{24}(?![A-Za-z0-9_.-])/g, locate: (_line, from) => ({ from: from - 26, to: from }) },
  // A private key's first body line whose BEGIN line is not in view, behind a prefix the multi-line rule does not
  // look past (`cat -n key.pem`, `grep -r . dir`): its DER or OpenSSH head (private-keys.ts isKeyHead).
  // (The pattern starts with its letter, not a lookbehind, so the regex engine skips ahead to candidates: a third of
  // the cost on plain log lines.)
  { name: "private_key", kind: "locate", re: /[Mb](?<=(?:^|[^A-Za-z0-9+/=])[Mb])(?:(?<=M)(?=[A-Za-z0-9+/]{15})|(?<=b)(?=3BlbnNzaC1rZXktdjE))/g, locate: (line, from) => keyHead(line, from - 1) },
  // key=value, key: value, "key": "value", ?key=value&… — the key ends in a secret word (T2-10, T2-17, T2-18, T2-20).
  // A key right after `/` is the last part of a path (`cat: /etc/app/secret: Permission denied`), not a key.
  // The shell's `PWD=/dir` and `OLDPWD=/dir` (`env`, `declare -x`) are directories, not passwords (scan.ts shellDirOrValue).
  { name: "credential_assignment", kind: "label", re: new RegExp(`(?<![A-Za-z0-9_./-])(["']?)[A-Za-z0-9_.-]{0,48}?(?:${SECRET_WORDS})${FORMAT}\\1${FORMAT}\\s{0,8}${SEPARATOR}${FORMAT}\\s{0,8}`, "gi"), scan: shellDirOrValue },
  // `key value` lines: wpa/hostapd/ifupdown `passphrase X`, `wpa-psk X`, `psk X` (red team, issue 19), and
  // ipsec.secrets(5) `: PSK "secret"`, `user : XAUTH "password"`, `: EAP "…"`, `: NTLM "…"`.
  { name: "credential_line", kind: "label", re: /^\s{0,16}(?:[A-Za-z0-9]{0,16}[_-])?(?:passphrase|psk|pre[_-]?shared[_-]?key)\s{1,8}(?=\S)/gi, scan: value },
  { name: "credential_line", kind: "label", re: /(?:PSK|EAP|XAUTH|NTLM)(?<=(?:^|\s):\s{0,8}(?:PSK|EAP|XAUTH|NTLM))\s{1,8}(?=["'])/g, scan: value },
  // .netrc: `machine h login u password SECRET` on one line, or `password SECRET` on a line of its own.
  { name: "netrc_password", kind: "label", re: /(?:^\s{0,16}|\blogin\s{1,8}\S{1,128}\s{1,8})password\s{1,8}(?=\S)/gi, scan: toSpace },
  // ~/.pgpass: `host:port:database:user:password`, the whole line (five fields; `\:` inside a field).
  { name: "pgpass_password", kind: "label", re: /^[^\s:]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,128}:[^\s:]{1,128}:(?=(?:[^\s:\\]|\\.){1,4096}$)/g, scan: toSpace },
  // A PEM block base64-encoded once more (kubeconfig *-data, Kubernetes secrets, env vars): "-----BEGIN" is
  // `LS0tLS1CRUdJTi`; the whole base64 run goes (a certificate too: over-redaction is the safe side).
  { name: "private_key", kind: "token", re: /LS0tLS1CRUdJT[A-Za-z0-9+/]/g, extend: run(charClass("A-Za-z0-9+/=")) },
];
