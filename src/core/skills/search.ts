import MiniSearch from "minisearch";

/** What the index holds for one skill. `body` is SKILL.md's Markdown body. */
export interface SearchDoc {
  name: string;
  description: string;
  body: string;
}

/** One ranked hit: the skill, its score, and which query terms matched which fields (the "why"). */
export interface SearchHit {
  name: string;
  score: number;
  matched: Record<string, string[]>;
}

/** Words too common to say anything about which runbook fits. */
const STOP = new Set(("a about after again all also an and any are as at be been but by can could do does doing done each every few for from " +
  "get gets getting got took take takes taken had has have how i if in into is it its just keep keeps kept like make me more most my no not now of on once only " +
  "or other our out over please say says said should so some still such than that the their them then there these they this those to too " +
  "up very was we were what when where which while who why will with would you your").split(" "));

/**
 * A deliberately small stemmer (no dictionary): folds the English inflections that separate an operator's
 * words from a runbook's ("restarting"/"restarts"/"restarted" → "restart", "logs" → "log", "flapping" →
 * "flap"), which is what lets routing work on phrasings that share no exact word with a skill.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 5 && w.endsWith("ies")) return w.slice(0, -3) + "y";
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith("es") && /(?:ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  // Doubled final consonant after -ing/-ed ("flapping" → "flapp" → "flap").
  if (w.length > 3 && w !== word && /([bdgmnprt])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** Lower-cases, drops stop words and one-letter tokens, and stems. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (t.length < 2 || STOP.has(t)) return null;
  return stem(t);
}

/** Splits on anything that is not a letter or digit (so `disk-full` gives `disk`, `full`). */
const tokenize = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0);

/** Field weights: a word in the name says most, then the description, then the body. */
const BOOST = { name: 4, description: 3, body: 0.6 } as const;

/**
 * A ranked full-text index over skills (name, description, body) built with MiniSearch. Build it only when
 * a skills tool is first called: importing this module is what loads MiniSearch.
 */
export class SkillIndex {
  private readonly ms: MiniSearch<SearchDoc & { id: string }>;
  readonly size: number;

  constructor(docs: readonly SearchDoc[]) {
    this.ms = new MiniSearch<SearchDoc & { id: string }>({
      fields: ["name", "description", "body"],
      storeFields: [],
      tokenize,
      processTerm,
      searchOptions: { boost: BOOST, prefix: (t) => t.length >= 4, fuzzy: (t) => (t.length >= 6 ? 0.2 : false), combineWith: "OR" },
    });
    this.ms.addAll(docs.map((d) => ({ ...d, id: d.name })));
    this.size = docs.length;
  }

  /** Hits for `query`, best first, at most `limit`. An empty or all-stop-word query gives []. */
  search(query: string, limit: number): SearchHit[] {
    return this.ms.search(query).slice(0, limit).map((r) => ({
      name: String(r.id),
      score: Math.round(r.score * 1000) / 1000,
      matched: Object.fromEntries(Object.entries(r.match).map(([term, fields]) => [term, [...fields].sort()])),
    }));
  }
}

/** The answer of routing an intent to one skill. */
export interface Route {
  skill: string | null;
  score: number;
  /** The runner-up's share of the best score (0 = clear winner, 1 = a tie). */
  margin: number;
  why: string;
  alternatives: { name: string; score: number }[];
}

/**
 * Routes an intent to the best skill: the top search hit, with why (which words matched which fields) and
 * how clearly it won. No hit gives `skill: null` with a reason.
 */
export function routeIntent(index: SkillIndex, intent: string): Route {
  const hits = index.search(intent, 3);
  const best = hits[0];
  if (!best) return { skill: null, score: 0, margin: 0, why: "No skill shares a meaningful word with the intent; try skills_search with other words.", alternatives: [] };
  const byField = new Map<string, string[]>();
  for (const [term, fields] of Object.entries(best.matched)) for (const f of fields) byField.set(f, [...(byField.get(f) ?? []), term]);
  const parts = (["name", "description", "body"] as const).filter((f) => byField.has(f)).map((f) => `${f}: ${byField.get(f)!.join(", ")}`);
  const second = hits[1];
  return {
    skill: best.name,
    score: best.score,
    margin: second ? Math.round((second.score / best.score) * 1000) / 1000 : 0,
    why: `matched ${parts.join("; ")}`,
    alternatives: hits.slice(1).map((h) => ({ name: h.name, score: h.score })),
  };
}
