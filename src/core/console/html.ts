/**
 * HTML for the approval console (issue 23), pure: no I/O. Every interpolated value of {@link h} is untrusted
 * text unless wrapped by {@link raw} (markup this module or its callers built): it is first made visible by the
 * terminal screen's rule (core/visible-text.ts: control, bidi and invisible characters become `\x1b`,
 * `<U+202E>`…) and then HTML-escaped, so host-derived text can neither run script nor reorder what the human
 * reads. No inline script or style attribute is ever produced (the console's CSP forbids both).
 */
import { visible } from "../visible-text.ts";

/** Markup that is already safe (built by {@link h} or a constant). */
export class Raw {
  constructor(readonly html: string) {}
  toString(): string { return this.html; }
}

/** Marks trusted markup (never untrusted text). */
export const raw = (markup: string): Raw => new Raw(markup);

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Untrusted text → inert HTML text: visible() first, then the five HTML metacharacters escaped. */
export function text(value: string): string {
  return visible(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** One interpolated value: Raw as is, arrays joined, null/undefined/false empty, anything else as escaped text. */
function part(v: unknown): string {
  if (v instanceof Raw) return v.html;
  if (Array.isArray(v)) return v.map(part).join("");
  if (v === null || v === undefined || v === false) return "";
  if (typeof v === "string") return text(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return text(v.toString());
  return text(JSON.stringify(v) ?? "");
}

/** Tagged template: literal parts are markup, every `${value}` is escaped unless it is {@link Raw}. */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return new Raw(out);
}
