/**
 * Word search over catalogue actions for `find_actions { query }` (issue 24: a model finds the right action from the
 * words of an everyday request). Pure. A query is split into words (any non-letter/digit separates; stop words such
 * as "the", "show", "me" are dropped); each word is reduced to a stem (plural, -ing, -est, -ed endings) and widened by
 * its synonym group ({@link SYNONYMS}: largest/biggest, certs/certificates/tls, logins/sessions, firewall/nft/iptables,
 * dns/resolver, cron/timers…). A word matches an action when one of those terms is a prefix of a word of the action's
 * name (split at capitals), tool name, title, description or toolsets. The score is how many query words match;
 * the name/title score breaks ties (so "largest files" puts FindLargeFiles before GetLargestDirectories).
 */

/** What a search reads of one action. */
export interface Searchable {
  action: string;
  tool: string;
  title: string;
  description: string;
  toolsets: readonly string[];
}

/** One action's match: how many query words it matched in all its text and in its name/title alone. */
export interface SearchScore {
  words: number;
  name_words: number;
}

/**
 * Synonym groups: a query word in a group also matches every other word of it (stems, prefix match). Kept small and
 * about what operators ask (evals/reach.json, the issue-24 trial's requests); source: the catalogue's own words.
 */
export const SYNONYMS: readonly (readonly string[])[] = [
  ["largest", "biggest", "large", "big", "huge"],
  ["certificate", "cert", "certs", "tls", "ssl", "x509", "https"],
  ["expiring", "expire", "expiry", "expiration", "days left"],
  ["login", "logins", "session", "sessions", "logged", "who", "wtmp", "btmp"],
  ["firewall", "nft", "nftables", "iptables", "ufw", "port"],
  ["dns", "resolver", "resolv", "nameserver", "resolved"],
  ["cron", "crontab", "timer", "schedule", "scheduled", "job"],
  ["kernel", "dmesg", "kmsg", "sysctl"],
  ["error", "err", "fail", "failed", "failure", "crash", "oom"],
  ["user", "account", "passwd"],
  ["group", "member", "membership"],
  ["ssh", "authorized", "key"],
  ["sudo", "sudoers", "privilege"],
  ["package", "apt", "dnf", "rpm", "deb", "software"],
  ["update", "upgrade", "upgradable", "patch", "outdated"],
  ["log", "logs", "journal", "journald", "syslog"],
  ["service", "unit", "daemon"],
  ["route", "routing", "gateway"],
  ["time", "clock", "ntp", "timezone", "chrony", "sync"],
  ["mount", "filesystem", "fstab"],
  ["disk", "drive", "partition", "block", "storage"],
  ["memory", "ram"],
  ["swap", "swapfile"],
  ["process", "pid", "running"],
  ["listen", "listening", "socket", "open"],
  ["boot", "startup", "reboot"],
  ["remove", "delete", "uninstall", "drop"],
  ["install", "add", "create"],
];

const STOP_WORDS = new Set([
  "a", "an", "the", "of", "on", "in", "at", "for", "to", "me", "my", "is", "are", "was", "were", "be", "do", "does",
  "this", "that", "these", "those", "and", "or", "with", "from", "by", "it", "its", "i", "you", "we", "please", "can",
  "could", "would", "there", "here", "any", "all", "some", "how", "when", "what", "which", "show", "tell", "give", "get",
  "find", "see", "host", "machine", "server", "now", "right",
]);

/** The stem a word is compared by: lower case without a plural, -ing, -est or -ed ending (kept ≥ 3 letters). */
export function stem(word: string): string {
  const w = word.toLowerCase();
  for (const [end, min] of [["ies", 5], ["ing", 6], ["est", 6], ["es", 5], ["ed", 5], ["s", 4]] as const) {
    if (w.length >= min && w.endsWith(end) && !w.endsWith("ss")) return w.slice(0, -end.length);
  }
  return w;
}

/** The query's words (stop words dropped), each with the stems it may match: its own and its synonyms'. */
export function queryTerms(query: string): { word: string; terms: string[] }[] {
  const words = query.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0 && !STOP_WORDS.has(w));
  return [...new Set(words)].map((word) => {
    const s = stem(word);
    const terms = new Set([s]);
    for (const group of SYNONYMS) {
      if (group.some((g) => g === word || stem(g) === s)) for (const g of group) for (const part of g.split(" ")) terms.add(stem(part));
    }
    return { word, terms: [...terms] };
  });
}

/** The words of a text: split at non-letters and at a capital after a small letter (FindLargeFiles → find large files). */
function wordsOf(text: string): string[] {
  return text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

function matches(terms: readonly string[], words: readonly string[]): boolean {
  return terms.some((t) => words.some((w) => w.startsWith(t)));
}

/** How well `a` matches the query terms ({@link queryTerms}); `words: 0` is no match. */
export function scoreAction(terms: ReturnType<typeof queryTerms>, a: Searchable): SearchScore {
  const all = wordsOf([a.action, a.tool, a.title, a.description, ...a.toolsets].join(" "));
  const named = wordsOf(`${a.action} ${a.title}`);
  let words = 0;
  let nameWords = 0;
  for (const q of terms) {
    if (matches(q.terms, all)) words++;
    if (matches(q.terms, named)) nameWords++;
  }
  return { words, name_words: nameWords };
}

/**
 * The items matching at least one query word, best first: most query words matched, then most matched in the
 * name/title, then the given order. A query of stop words only matches everything (in the given order).
 */
export function rankByQuery<T>(items: readonly T[], query: string, view: (t: T) => Searchable): T[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [...items];
  return items
    .map((item, i) => ({ item, i, s: scoreAction(terms, view(item)) }))
    .filter((x) => x.s.words > 0)
    .sort((a, b) => b.s.words - a.s.words || b.s.name_words - a.s.name_words || a.i - b.i)
    .map((x) => x.item);
}
