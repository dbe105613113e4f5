import { utf8Length } from "../limits.ts";
import { DIGEST_RE, type SkillDigest } from "./digest.ts";
import { SKILL_LIMITS } from "./limits.ts";
import { SKILL_NAME_MAX, SKILL_NAME_RE } from "./manifest.ts";

/** A parsed skill reference: `name`, `name@version` or `name@sha256:<64 hex>`. */
export type SkillRef =
  | { name: string; kind: "name" }
  | { name: string; kind: "version"; version: string }
  | { name: string; kind: "digest"; digest: SkillDigest };

/** Versions: semver-like, 1–64 of letters, digits, `.`, `-`, `+`, starting with a digit or letter. */
const VERSION_RE = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

/** Parses a reference, or returns a message saying what is wrong (≤ 512 B, name rules, version or digest form). */
export function parseRef(text: string): SkillRef | { error: string } {
  if (utf8Length(text) > SKILL_LIMITS.refBytes) return { error: `a reference is at most ${SKILL_LIMITS.refBytes} bytes.` };
  const at = text.indexOf("@");
  const name = at < 0 ? text : text.slice(0, at);
  if (name.length === 0 || name.length > SKILL_NAME_MAX || !SKILL_NAME_RE.test(name)) {
    return { error: `${JSON.stringify(text.slice(0, 80))} is not a skill reference: use name, name@version or name@sha256:<64 hex digits>, where name is lowercase a-z, 0-9 and single hyphens.` };
  }
  if (at < 0) return { name, kind: "name" };
  const rest = text.slice(at + 1);
  if (rest.startsWith("sha256:")) {
    if (!DIGEST_RE.test(rest)) return { error: `${JSON.stringify(rest.slice(0, 80))} is not a digest: use sha256: followed by 64 lower-case hex digits.` };
    return { name, kind: "digest", digest: rest as SkillDigest };
  }
  if (!VERSION_RE.test(rest)) return { error: `${JSON.stringify(rest.slice(0, 80))} is not a version: use letters, digits, ., -, + (e.g. 1.2.0).` };
  return { name, kind: "version", version: rest };
}

/** The text form of a reference. */
export function formatRef(ref: SkillRef): string {
  return ref.kind === "name" ? ref.name : ref.kind === "version" ? `${ref.name}@${ref.version}` : `${ref.name}@${ref.digest}`;
}
