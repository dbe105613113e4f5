import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/core/redact.ts";

/**
 * Property tests for the two redaction kinds the red team still got through (issue 19): a URL password holding
 * raw `/` (and `@`, `:`), and an ODBC braced value holding `;` and escaped `}}`. For any such password, in any of
 * the places a connection string stands (a line of its own, an env assignment, a log line), no 4-character run of
 * the password's own characters survives, and the host (URL) or the next attribute (ODBC) stays.
 */

/** Characters a password may hold: letters, digits and the punctuation that breaks naive patterns. */
const PW_CHARS = [..."abcdefghijkXYZ0123456789".split(""), "/", "@", ":", ";", "%", "!", "=", "+", "-", "_", "."];
const password = fc.array(fc.constantFrom(...PW_CHARS), { minLength: 6, maxLength: 40 }).map((a) => a.join(""))
  // Excluded, as documented in docs/security-model.md: a password that starts with `/` (an empty password and a
  // path) and one whose part before its first `/` is 1-5 digits (`svc:3/x@h` reads as host `svc`, port 3).
  .filter((p) => /[a-zA-Z]/.test(p) && !p.startsWith("/") && !/^\d{1,5}\//.test(p));
const prefix = fc.constantFrom("", "DATABASE_URL=", "export DSN='", "2024-01-01 app[1]: connecting to ");
const scheme = fc.constantFrom("mysql", "postgres", "amqp", "redis", "https", "mongodb+srv", "sqlserver");

/** The runs of 4 characters of `secret` that contain a letter or a digit (punctuation alone proves nothing). */
function pieces(secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 4 <= secret.length; i++) {
    const p = secret.slice(i, i + 4);
    if (/[A-Za-z0-9]{2}/.test(p)) out.push(p);
  }
  return out;
}

describe("kind: URL password holding '/' '@' ':'", () => {
  it("no piece of the password survives; the host does", () => {
    fc.assert(fc.property(prefix, scheme, password, (pre, sch, pw) => {
      const line = `${pre}${sch}://svc:${pw}@db.internal.example:5432/app?sslmode=require`;
      const out = redactSecrets(line).text;
      for (const p of pieces(pw)) expect(out, line).not.toContain(`${p}@db.internal`);
      expect(out).not.toContain(`:${pw}@`);
      expect(out).toContain("@db.internal.example:5432/app");
      expect(out).toContain("[redacted:url_credentials]");
    }), { numRuns: 500 });
  });
});

describe("kind: ODBC braced value", () => {
  it("no piece of the password survives; the attributes after it do", () => {
    const braced = password.map((p) => p.replace(/}/g, "}}"));
    fc.assert(fc.property(prefix, fc.constantFrom("Pwd", "PWD", "Password", "password"), braced, (pre, key, pw) => {
      const line = `${pre}Driver={ODBC Driver 18};Server=db;Uid=sa;${key}={${pw}};Encrypt=yes`;
      const out = redactSecrets(line).text;
      expect(out).toContain(`${key}=[redacted:credential_assignment];Encrypt=yes`);
      for (const p of pieces(pw)) expect(out, line).not.toContain(p);
    }), { numRuns: 500 });
  });
});
