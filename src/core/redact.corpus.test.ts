import { describe, expect, it } from "vitest";
import { ISSUE_CASES, REDACT_CASES } from "../../test/fixtures/redact-cases.ts";
import { redactDeep, redactLines, redactSecrets } from "./redact.ts";

/**
 * Corpus cases of area `redact` (../shared/corpus/cases.jsonl) and the examples of issue 12, as strings. The
 * same lines are read back through read_log_file from a planted file in test/security/read-log.test.ts.
 */

describe("corpus area redact", () => {
  for (const c of REDACT_CASES) {
    it(`${c.id}: ${c.line.slice(0, 60)}`, () => {
      const { text, redactions } = redactSecrets(c.line);
      expect(redactions).toBeGreaterThan(0);
      for (const s of c.secrets) expect(text).not.toContain(s);
      for (const k of c.kept) expect(text).toContain(k);
      expect(redactSecrets(text).text).toBe(text);
    });
  }
});

describe("issue 12: values redacted whole", () => {
  for (const c of ISSUE_CASES) {
    it(c.name, () => {
      const { text } = redactSecrets(c.line);
      for (const s of c.secrets) expect(text).not.toContain(s);
      for (const k of c.kept) expect(text).toContain(k);
    });
  }

  it("keeps ordinary log lines whole (no false positive on the corpus's context text)", () => {
    for (const line of [
      "sshd[42]: Accepted publickey for alice from 10.0.0.1 port 5555 ssh2",
      "sshd[42]: Failed password for alice from 10.0.0.9 port 51234 ssh2",
      "GET /index.html?page=2&sort=asc HTTP/1.1 200",
      "https://example.com:8443/path?q=a@b.c",
      "max_tokens: 4096",
      "user@host:5432",
    ]) {
      expect(redactSecrets(line)).toEqual({ text: line, redactions: 0 });
    }
  });
});

describe("one module for answers, previews and audit payloads", () => {
  it("a WriteFile-like payload's AKIA key, ghp_ token and postgres URL password are all redacted", () => {
    const payload = { action: "WriteFile", params: { path: "/etc/app.env", content: "AWS=AKIAIOSFODNN7EXAMPLE\nGH=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij\nDB=postgres://app:pw@db\n" } };
    const out = JSON.stringify(redactDeep(payload).value);
    for (const s of ["AKIAIOSFODNN7EXAMPLE", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", ":pw@"]) expect(out).not.toContain(s);
  });

  it("values under secret keys become a marker; null stays null; configured patterns apply", () => {
    const out = redactDeep({ receipt: "r-1", nested: [{ api_key: "k", db_password: "p" }], token: null, note: "id X-1234-SECRET" }, { extra: [/X-\d{4}-SECRET/g] }).value;
    expect(out).toEqual({ receipt: "[redacted:secret_field]", nested: [{ api_key: "[redacted:secret_field]", db_password: "[redacted:secret_field]" }], token: null, note: "id [redacted:configured]" });
  });

  it("redacts the key lines of a window before anything else looks at them", () => {
    const r = redactLines(["start", "-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "end"]);
    expect(r.lines).toEqual(["start", "[redacted:private_key]", "[redacted:private_key]", "[redacted:private_key]"]);
  });
});
