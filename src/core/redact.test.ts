import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactDeep, redactLines, redactSecrets } from "./redact.ts";

const BODY = [
  "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
  "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
  "NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ",
];
const PEM_LINES = ["-----BEGIN PRIVATE KEY-----", ...BODY, "AB==", "-----END PRIVATE KEY-----"];
const GH_TOKEN = `ghp_${"A1b2C3d4E5".repeat(4)}`;
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const SHADOW = "$6$rounds=5000$saltsalt$Q9d8Jk1b2c3d4e5f6g7h8i9j0kLmNoPqRsTuVwXyZ./abcdefghijklmnopqrstuvwxyz0123456789AB";

describe("redactSecrets", () => {
  it("redacts a whole PEM private key in one string and keeps the text around it", () => {
    const r = redactSecrets(`before\n${PEM_LINES.join("\n")}\nafter`);
    expect(r.text).toBe("before\n[redacted:private_key]\nafter");
    expect(r.redactions).toBe(1);
    for (const line of BODY) expect(r.text).not.toContain(line);
  });

  it("redacts an OpenSSH / RSA key and an unterminated key up to the end of the string", () => {
    const rsa = redactSecrets(`-----BEGIN RSA PRIVATE KEY-----\n${BODY[0]}\n-----END RSA PRIVATE KEY-----`);
    expect(rsa.text).toBe("[redacted:private_key]");
    const ssh = redactSecrets(`x -----BEGIN OPENSSH PRIVATE KEY-----\n${BODY[0]}\n-----END OPENSSH PRIVATE KEY----- y`);
    expect(ssh.text).toBe("x [redacted:private_key] y");
    const cut = redactSecrets(`key:\n-----BEGIN EC PRIVATE KEY-----\n${BODY[0]}\n${BODY[1]}`);
    expect(cut.text).toBe("key:\n[redacted:private_key]");
  });

  it("leaves a public key's and a certificate's first body line alone (a private key's first line is redacted: DER head)", () => {
    for (const head of ["MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAqZ/wsz3oR6EM+5XyZhSN", "MIIC+TCCAeGgAwIBAgIUSCqXZ/+F/pwFjfqF0fzHJ1pB6w8wDQYJKoZIhvcNAQEL"]) {
      const pub = `-----BEGIN PUBLIC KEY-----\n${head}\n-----END PUBLIC KEY-----`;
      expect(redactSecrets(pub)).toEqual({ text: pub, redactions: 0 });
    }
    expect(redactSecrets(`-----BEGIN PUBLIC KEY-----\n${BODY[0]}\n-----END PUBLIC KEY-----`).text).toBe("-----BEGIN PUBLIC KEY-----\n[redacted:private_key]\n-----END PUBLIC KEY-----");
  });

  it("redacts github tokens and AWS access keys", () => {
    expect(redactSecrets(`GITHUB=${GH_TOKEN}`).text).not.toContain(GH_TOKEN);
    expect(redactSecrets(`push with ${GH_TOKEN} now`)).toEqual({ text: "push with [redacted:github_token] now", redactions: 1 });
    expect(redactSecrets(`id ${AWS_KEY} used`)).toEqual({ text: "id [redacted:aws_access_key] used", redactions: 1 });
    expect(redactSecrets(`sess ASIA${"Z".repeat(16)}`).text).toBe("sess [redacted:aws_access_key]");
  });

  it("redacts password=… assignments and keeps the label", () => {
    expect(redactSecrets("db password=hunter2 ok")).toEqual({ text: "db password=[redacted:credential_assignment] ok", redactions: 1 });
    expect(redactSecrets('PASSWORD: "two words"').text).toBe("PASSWORD: [redacted:credential_assignment]");
    expect(redactSecrets("url?api_key=abc123&x=1").text).toBe("url?api_key=[redacted:credential_assignment]&x=1");
  });

  it("keeps an error about a file whose name is a secret word (the name ends a path, it is not a key)", () => {
    for (const line of ["cat: /etc/app/secret: Permission denied", "grep: /run/secrets/db_password: No such file or directory", "tar: ./keys/api_token: Cannot open: Is a directory"]) {
      expect(redactSecrets(line)).toEqual({ text: line, redactions: 0 });
    }
    expect(redactSecrets("app/config: password: hunter2").text).toBe("app/config: password: [redacted:credential_assignment]");
  });

  it("redacts --password X and --token=X command-line flags", () => {
    const r = redactSecrets("mysql --user root --password s3cr3t --host db");
    expect(r.text).not.toContain("s3cr3t");
    expect(r.text).toContain("--user root");
    expect(r.text).toContain("--host db");
    expect(redactSecrets("tool --token=abcdef").text).not.toContain("abcdef");
  });

  it("redacts bearer tokens and keeps the scheme", () => {
    expect(redactSecrets("Authorization: Bearer abcdefghijklmnop0123").text).toBe("Authorization: Bearer [redacted:bearer_token]");
  });

  it("redacts shadow password hashes", () => {
    const line = `root:${SHADOW}:19000:0:99999:7:::`;
    const r = redactSecrets(line);
    expect(r.text).toBe("root:[redacted:shadow_hash]:19000:0:99999:7:::");
    for (const hash of [
      "$6$saltsalt$Q9d8Jk1b2c3d4e5f6g7h8i9j0kLmNoPqRsTuVw", // SHA-512
      "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7", // yescrypt (params$salt$hash)
      "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW", // bcrypt
      "$1$abcdefgh$ABCDEFGHIJKLMNOPQRSTUV", // MD5
    ]) {
      expect(redactSecrets(`alice:${hash}:19000::::::`)).toEqual({ text: "alice:[redacted:shadow_hash]:19000::::::", redactions: 1 });
    }
    // locked and empty password fields carry no hash
    expect(redactSecrets("bin:*:19000:0:99999:7:::\nbob:!:19000::::::").redactions).toBe(0);
  });

  it("counts every redaction", () => {
    expect(redactSecrets(`${GH_TOKEN} ${AWS_KEY} ${AWS_KEY}`).redactions).toBe(3);
  });

  it("leaves benign text untouched with zero redactions", () => {
    for (const text of [
      "Jan 01 00:00:01 host sshd[123]: Accepted publickey for alice from 10.0.0.1 port 5555",
      "GET /index.html HTTP/1.1 200 1234",
      "price is $5 and $6 total",
      "the token bucket is full",
      "",
    ]) {
      expect(redactSecrets(text)).toEqual({ text, redactions: 0 });
    }
  });

  it("answers a text it found clean the same the next time, and still applies configured patterns to it", () => {
    const text = "/usr/sbin/cron -f internal-id-4711";
    expect(redactSecrets(text)).toEqual({ text, redactions: 0 });
    expect(redactSecrets(text)).toEqual({ text, redactions: 0 });
    expect(redactSecrets(text, { extra: [/internal-id-\d+/g] })).toEqual({ text: "/usr/sbin/cron -f [redacted:configured]", redactions: 1 });
    expect(redactLines([text, "x"], { extra: [/internal-id-\d+/g] }).lines[0]).toBe("/usr/sbin/cron -f [redacted:configured]");
  });

  it("redacts a text with a secret every time it is asked, as the first time", () => {
    for (let i = 0; i < 3; i++) {
      expect(redactSecrets("db password=hunter2 ok")).toEqual({ text: "db password=[redacted:credential_assignment] ok", redactions: 1 });
      expect(redactLines(["mysql", "-phunter2x"]).lines).toEqual(["mysql", "-p[redacted:mysql_password_flag]"]);
    }
  });

  it("gives the same answers whether or not texts were seen before (many texts, repeated, past the memo's size)", () => {
    const pieces = fc.constantFrom("password=hunter2", "--token x", " ", "ab", GH_TOKEN, AWS_KEY, "hello", "=", "-p", "proc", "/usr/bin/x");
    const texts = fc.sample(fc.array(fc.oneof(pieces, fc.string({ maxLength: 8 })), { maxLength: 6 }).map((p) => p.join("")), 3000);
    const first = texts.map((t) => redactSecrets(t));
    const again = texts.map((t) => redactSecrets(t));
    expect(again).toEqual(first);
    for (const [i, t] of texts.entries()) if (first[i]!.redactions > 0) expect(first[i]!.text).not.toBe(t);
  });

  it("is idempotent on its text output", () => {
    const pieces = fc.constantFrom(
      "password=hunter2", "--password s3cr3t", " ", "\n", "token: x", GH_TOKEN, AWS_KEY, SHADOW, "Bearer abcdefghijklmnopqrstu",
      PEM_LINES.join("\n"), "-----BEGIN PRIVATE KEY-----", "hello", "=", ":", '"', "'", "api-key",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 12 }), (parts) => {
        const once = redactSecrets(parts.join("")).text;
        expect(redactSecrets(once).text).toBe(once);
      }),
      { numRuns: 500 },
    );
  });
});

describe("redactLines", () => {
  it("redacts every line from BEGIN to END and nothing else", () => {
    const r = redactLines(["start", ...PEM_LINES, "end"]);
    expect(r.lines).toEqual(["start", ...PEM_LINES.map(() => "[redacted:private_key]"), "end"]);
    expect(r.redactions).toBe(PEM_LINES.length);
  });

  it("redacts to the end of the list when END is missing", () => {
    const r = redactLines(["a", "-----BEGIN OPENSSH PRIVATE KEY-----", BODY[0]!, BODY[1]!]);
    expect(r.lines).toEqual(["a", "[redacted:private_key]", "[redacted:private_key]", "[redacted:private_key]"]);
    expect(r.redactions).toBe(3);
  });

  it("redacts the body lines of a tail that starts mid-key, including a short last body line", () => {
    const tail = ["log line", ...PEM_LINES.slice(2)]; // BEGIN and first body line fell outside the tail
    const r = redactLines(tail);
    expect(r.lines[0]).toBe("log line");
    expect(r.lines.slice(1).every((l) => l === "[redacted:private_key]")).toBe(true);
    expect(r.redactions).toBe(tail.length - 1);
  });

  it("does not blank ordinary text that sits before a stray END line's body", () => {
    const r = redactLines(["Starting service", BODY[0]!, "-----END PRIVATE KEY-----", "next"]);
    expect(r.lines).toEqual(["Starting service", "[redacted:private_key]", "[redacted:private_key]", "next"]);
  });

  it("leaves lists without keys untouched, also a lone key-shaped line inside the window", () => {
    const lines = ["one", BODY[1]!, "two"]; // a key's middle line alone (its first line, BODY[0], is a DER head: redacted)
    expect(redactLines(lines)).toEqual({ lines, redactions: 0, per_line: [0, 0, 0] });
    const hex = ["a".repeat(64), "x", "f0".repeat(32)]; // SHA-256 digests at the edges are not key lines
    expect(redactLines(hex)).toEqual({ lines: hex, redactions: 0, per_line: [0, 0, 0] });
  });

  it("treats key-shaped lines at a window's edge as a key cut by the window (no BEGIN, no END in view)", () => {
    expect(redactLines(["one", "two", BODY[0]!]).lines).toEqual(["one", "two", "[redacted:private_key]"]);
    expect(redactLines([BODY[1]!, BODY[2]!, "next"]).lines).toEqual(["[redacted:private_key]", "[redacted:private_key]", "next"]);
    // four key lines anywhere are a key whose armour is gone
    const mid = ["x", BODY[0]!, BODY[1]!, BODY[2]!, BODY[0]!, "y"];
    expect(redactLines(mid).lines).toEqual(["x", ...Array<string>(4).fill("[redacted:private_key]"), "y"]);
  });
});

describe("redactDeep", () => {
  it("walks objects and arrays, applying line and string redaction, and sums the counts", () => {
    const input = { n: 1, ok: true, none: null, s: `token=${GH_TOKEN}`, nested: { lines: ["x", ...PEM_LINES], mixed: [1, AWS_KEY] } };
    const { value, redactions } = redactDeep(input);
    expect(value.n).toBe(1);
    expect(value.ok).toBe(true);
    expect(value.none).toBeNull();
    expect(value.s).toMatch(/^token=\[redacted:(github_token|credential_assignment)\]$/);
    expect(value.nested.lines).toEqual(["x", ...PEM_LINES.map(() => "[redacted:private_key]")]);
    expect(value.nested.mixed).toEqual([1, "[redacted:aws_access_key]"]);
    expect(redactions).toBeGreaterThanOrEqual(1 + PEM_LINES.length + 1);
    expect(input.s).toContain(GH_TOKEN); // input not mutated
  });
});

describe("secrets found by the newcomer review", () => {
  it("redacts URL credentials, Slack tokens and mysql -pSECRET, and keeps ports and pids", () => {
    expect(redactSecrets("postgres://user:s3cretpw@db:5432/x").text).toBe("postgres://user:[redacted:url_credentials]@db:5432/x");
    expect(redactSecrets("token xoxb-1234567890-abcdefghij").text).not.toContain("xoxb-1234567890");
    expect(redactSecrets("mysql -u root -pS3cretPass db").text).toBe("mysql -u root -p[redacted:mysql_password_flag] db");
    expect(redactSecrets("-pS3cretPass").text).toBe("-p[redacted:mysql_password_flag]");
    expect(redactSecrets("ssh -p2222 host").text).toBe("ssh -p2222 host");
    expect(redactSecrets("mkdir -p /var/tmp/x").text).toBe("mkdir -p /var/tmp/x");
  });
});

describe("secrets found by the second review", () => {
  const CASES: [string, string][] = [
    ['{"password": "JsonSecret99"}', "JsonSecret99"],
    ["redis://:pw1234@host:6379", "pw1234"],
    ["Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"],
    ["sshpass -p hunter2 ssh host", "hunter2"],
    ["curl -u admin:s3cr3t https://x", "s3cr3t"],
    ["DB_PASS=topsecret", "topsecret"],
    ["passphrase=correcthorse", "correcthorse"],
    ["<password>xmlsecret</password>", "xmlsecret"],
    ["key sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"],
    ["OPENAI sk-abcdefghijklmnopqrstuvwx", "sk-abcdefghijklmnopqrstuvwx"],
    ["glpat-abcdefghijklmnopqrst", "glpat-abcdefghijklmnopqrst"],
    ["AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"],
    ["https://hooks.slack.com/services/T000/B000/XXXXXXXX", "B000/XXXXXXXX"],
    ["$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub", "RdescudvJCsgt3ub"],
    ["$apr1$salt1234$abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuv"],
    ["-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGX0pgpbody\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGX0pgpbody"],
  ];
  for (const [text, secret] of CASES) {
    it(`redacts ${text.slice(0, 40)}`, () => {
      expect(redactSecrets(text).text).not.toContain(secret);
    });
  }
  it("redacts a PGP key split across lines", () => {
    expect(redactLines(["-----BEGIN PGP PRIVATE KEY BLOCK-----", "lQOYBGX0pgpbodyline", "-----END PGP PRIVATE KEY BLOCK-----"]).lines.join("\n")).not.toContain("lQOYBGX0pgpbodyline");
  });
});

describe("console links", () => {
  const SECRET = "q3Zt8M0x_Lw-9bYkR2vN5cHs7dFgJ1pA4eUoTiWmXyE";
  it("redacts the one-time secret of a console login or enrollment link, in a URL or a browser's argv", () => {
    for (const line of [`xdg-open http://localhost:7478/enroll#${SECRET}`, `chromium --new-window http://127.0.0.1:7478/login#${SECRET} --flag`]) {
      const r = redactSecrets(line);
      expect(r.text).not.toContain(SECRET);
      expect(r.text).toContain("[redacted:console_link]");
      expect(r.text).toMatch(/\/(?:login|enroll)#\[redacted/);
    }
    expect(redactSecrets(`token hgl_${SECRET} end`).text).toBe("token [redacted:console_link] end");
  });

  it("keeps an ordinary fragment and a short one", () => {
    for (const line of ["see http://example.com/docs/login#usage", "http://localhost:7478/enroll#abc"]) expect(redactSecrets(line).text).toBe(line);
  });
});

