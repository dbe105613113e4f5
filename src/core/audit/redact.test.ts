import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { REDACTED, redactString, redactValue, redactionRules } from "./redact.ts";
import { canonicalJson } from "./canonical.ts";

describe("redactValue", () => {
  const rules = redactionRules([/hgr_[A-Za-z0-9]{8,}/, "sk-[a-z0-9]{10}"]);

  it("replaces values under secret keys at any depth, keeping the keys", () => {
    const out = redactValue({ receipt: "r-123", nested: [{ api_key: "k", Token: { deep: "x" }, db_password: "p" }], note: null, token: null }, rules);
    expect(out).toEqual({ receipt: REDACTED, nested: [{ api_key: REDACTED, Token: REDACTED, db_password: REDACTED }], note: null, token: null });
  });

  it("replaces configured patterns and built-ins inside any string", () => {
    const out = redactValue(
      { cmd: "curl -H 'Authorization: Bearer abc.def' https://x/?token=s3cret&a=1", msg: "used hgr_ABCDEF1234 and sk-abcdefghij", ok: "plain text" },
      rules,
    );
    expect(out).toEqual({
      cmd: `curl -H 'Authorization: ${REDACTED}' https://x/?${REDACTED}&a=1`,
      msg: `used ${REDACTED} and ${REDACTED}`,
      ok: "plain text",
    });
  });

  it("removes PEM private keys", () => {
    const pem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAcH\n-----END PRIVATE KEY-----";
    expect(redactString(`key: ${pem} done`, rules)).toBe(`key: ${REDACTED} done`);
  });

  it("does not modify its input", () => {
    const input = { token: "t", list: ["Bearer x"] };
    redactValue(input, rules);
    expect(input).toEqual({ token: "t", list: ["Bearer x"] });
  });

  it("property: a configured secret never survives anywhere in the encoded payload", () => {
    const secret = fc.stringMatching(/^hgr_[A-Za-z0-9]{8,20}$/);
    fc.assert(
      fc.property(secret, fc.string(), fc.string(), fc.string(), (s, a, b, key) => {
        const payload = { [key]: `${a}${s}${b}`, list: [s, { inner: `x${s}` }] };
        expect(canonicalJson(redactValue(payload, rules))).not.toContain(s);
      }),
    );
  });
});
