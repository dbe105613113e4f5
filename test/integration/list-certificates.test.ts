// Issue 24 (r24c): ListCertificates on planted certificates (a certbot-like live/ → archive/ layout, a bundle with
// its key, a key directory), compared with `openssl x509`; no key material ever in the answer.
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import listCertificates from "../../src/core/catalogue/actions/list-certificates.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { HostgateError } from "../../src/core/errors.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

const openssl = (args: string[]): string => execFileSync("openssl", args, { encoding: "utf8" });

describe("list_certificates", () => {
  let dir: string;
  let live: string;
  let keyText: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "hg-certs-"));
    live = join(dir, "live");
    const archive = join(dir, "archive", "example.test");
    mkdirSync(archive, { recursive: true });
    mkdirSync(join(live, "example.test"), { recursive: true });
    // A 30-day leaf with two DNS SANs and an IP, and a 400-day one: soonest first in the answer.
    openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30", "-subj", "/CN=example.test/O=hg",
      "-addext", "subjectAltName=DNS:example.test,DNS:www.example.test,IP:192.0.2.7", "-keyout", join(archive, "privkey1.pem"), "-out", join(archive, "cert1.pem")]);
    for (const f of ["cert", "privkey"]) symlinkSync(`../../archive/example.test/${f}1.pem`, join(live, "example.test", `${f}.pem`));
    openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "400", "-subj", "/CN=long.test", "-keyout", join(dir, "long.key"), "-out", join(live, "long.crt")]);
    keyText = readFileSync(join(archive, "privkey1.pem"), "utf8");
    // A bundle holding its key, under a name that does not look like a key; and a key directory.
    writeFileSync(join(live, "bundle.pem"), readFileSync(join(live, "long.crt"), "utf8") + keyText);
    mkdirSync(join(live, "private"));
    writeFileSync(join(live, "private", "server.pem"), readFileSync(join(archive, "cert1.pem")));
    writeFileSync(join(live, "garbage.pem"), "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
  });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it("reports subject, SANs, expiry and fingerprint as `openssl x509` does, soonest expiry first, through certbot's links", async () => {
    const ctx = await realContext({ certificate_dirs: [live] });
    const out = await listCertificates.run(listCertificates.params.parse({}), ctx);
    expect(out.certificates.map((c) => c.path)).toEqual([join(live, "example.test", "cert.pem"), join(live, "long.crt")]);
    const [leaf] = out.certificates;
    const pem = join(live, "example.test", "cert.pem");
    const x = openssl(["x509", "-in", pem, "-noout", "-subject", "-ext", "subjectAltName", "-enddate", "-fingerprint", "-sha256", "-nameopt", "sep_comma_plus_space"]);
    expect(leaf!.subject).toBe(/^subject=(.*)$/m.exec(x)![1]!.replace(/ = /g, "="));
    expect(leaf!.sans).toEqual(/X509v3 Subject Alternative Name:.*\n\s+(.*)/.exec(x)![1]!.split(", "));
    expect(Date.parse(leaf!.not_after)).toBe(Date.parse(/^notAfter=(.*)$/m.exec(x)![1]!));
    expect(leaf!.fingerprint_sha256).toBe(/Fingerprint=(.*)$/m.exec(x)![1]);
    expect(leaf!.days_left).toBeGreaterThanOrEqual(29);
    expect(leaf!.days_left).toBeLessThanOrEqual(30);
    const soon = await listCertificates.run(listCertificates.params.parse({ expiring_within_days: 60 }), ctx);
    expect(soon.certificates.map((c) => c.subject)).toEqual([leaf!.subject]);
  });

  it("never opens or returns a key: key names, key directories and bundles with a key are skipped, with why", async () => {
    const ctx = await realContext({ certificate_dirs: [live] });
    const out = await listCertificates.run(listCertificates.params.parse({}), ctx);
    const text = JSON.stringify(out);
    const keyBody = keyText.split("\n")[1]!;
    expect(text).not.toContain(keyBody);
    expect(text).not.toContain("PRIVATE KEY-----");
    expect(out.skipped).toEqual(expect.arrayContaining([
      { path: join(live, "bundle.pem"), reason: "holds a private key: not parsed" },
      { path: join(live, "example.test", "privkey.pem"), reason: "named like a private key: not opened" },
      { path: join(live, "private"), reason: "a key directory: not entered" },
      { path: join(live, "garbage.pem"), reason: "no certificate that parses" },
    ]));
  });

  it("a missing directory answers an empty list; no parser answers unavailable; the config refuses a key directory", async () => {
    const ctx = await realContext({ certificate_dirs: [join(dir, "absent")] });
    expect((await listCertificates.run(listCertificates.params.parse({}), ctx)).certificates).toEqual([]);
    expect(await errorCode(async () => listCertificates.run({}, { ...ctx, x509: undefined }))).toBe("unavailable");
    expect(ConfigSchema.safeParse({ certificates: { dirs: ["/etc/ssl/private"] } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ certificates: { dirs: ["etc/letsencrypt"] } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ certificates: { dirs: ["/etc/letsencrypt/live"] } }).success).toBe(true);
  });

  // Review (s24): a hard-linked certificate was listed twice (files were told apart by path, not by inode), and a
  // configured directory that is itself a symlink was walked wherever it pointed.
  it("a hard-linked certificate is listed once (same device + inode); a configured directory that is a symlink is not followed, and says so", async () => {
    const hard = join(dir, "hard");
    mkdirSync(hard);
    writeFileSync(join(hard, "a.pem"), readFileSync(join(live, "long.crt")));
    linkSync(join(hard, "a.pem"), join(hard, "b.pem"));
    symlinkSync(hard, join(dir, "hard-link"));
    const ctx = await realContext({ certificate_dirs: [hard] });
    const out = await listCertificates.run(listCertificates.params.parse({}), ctx);
    expect(out.certificates.map((c) => c.path)).toEqual([join(hard, "a.pem")]);
    expect(out.skipped).toEqual([{ path: join(hard, "b.pem"), reason: `the same file as ${join(hard, "a.pem")}: listed once` }]);
    const viaLink = await listCertificates.run(listCertificates.params.parse({}), await realContext({ certificate_dirs: [join(dir, "hard-link")] }));
    expect(viaLink.certificates).toEqual([]);
    expect(viaLink.skipped).toEqual([{ path: join(dir, "hard-link"), reason: `a configured directory that is a symbolic link (to ${hard}): not followed; name ${hard} in certificates.dirs to list it` }]);
  });

  // Issue 24 trial, finding 2: links are never walked into; every skip is listed with its reason.
  describe("planted trees: links, loops, sizes, DER, depth, unreadable", () => {
    let tree: string;
    let outside: string;
    beforeAll(() => {
      tree = join(dir, "tree");
      outside = join(dir, "outside");
      mkdirSync(join(tree, "sub"), { recursive: true });
      mkdirSync(outside);
      // A certificate outside the configured dir, reached only through directory and file links.
      writeFileSync(join(outside, "secret.pem"), readFileSync(join(live, "long.crt")));
      symlinkSync(outside, join(tree, "sub", "rootlink"));
      symlinkSync(join(outside, "secret.pem"), join(tree, "sub", "outfile.pem"));
      symlinkSync("/etc/shadow", join(tree, "shadow.pem"));
      symlinkSync(tree, join(tree, "sub", "loop"));
      symlinkSync(join(tree, "nothing-here"), join(tree, "dangling.pem"));
      writeFileSync(join(tree, "one.pem"), readFileSync(join(dir, "archive", "example.test", "cert1.pem")));
      symlinkSync(join(tree, "one.pem"), join(tree, "sub", "again.pem"));
      writeFileSync(join(tree, "big.pem"), "");
      truncateSync(join(tree, "big.pem"), 200 * 1024 * 1024); // sparse: 200 MiB without the disk
      openssl(["pkey", "-in", join(dir, "archive", "example.test", "privkey1.pem"), "-outform", "DER", "-out", join(tree, "server.crt")]);
      openssl(["pkey", "-in", join(dir, "archive", "example.test", "privkey1.pem"), "-outform", "DER", "-out", join(tree, "server.der")]);
      mkdirSync(join(tree, "a", "b", "c", "d"), { recursive: true });
      writeFileSync(join(tree, "a", "b", "c", "d", "deep.pem"), readFileSync(join(live, "long.crt")));
      writeFileSync(join(tree, "locked.pem"), readFileSync(join(live, "long.crt")));
    });

    it("never walks a directory link (sub/rootlink → outside), never reads a link out of the dirs, lists each with its reason", async () => {
      const ctx = await realContext({ certificate_dirs: [tree] });
      const out = await listCertificates.run(listCertificates.params.parse({}), ctx);
      expect(out.certificates.map((c) => c.path)).toEqual([join(tree, "one.pem"), join(tree, "locked.pem")]);
      expect(JSON.stringify(out)).not.toContain(outside);
      const why = Object.fromEntries(out.skipped.map((x) => [x.path.slice(tree.length + 1), x.reason]));
      expect(why).toMatchObject({
        "sub/rootlink": "a link out of the certificate directories: not followed",
        "sub/outfile.pem": "a link out of the certificate directories: not followed",
        "shadow.pem": "a link out of the certificate directories: not followed",
        "sub/loop": "a link to a directory: not followed (directories are walked only where they are)",
        "dangling.pem": "a link that leads nowhere (dangling or a loop): not followed",
        "sub/again.pem": `the same file as ${join(tree, "one.pem")}: listed once`,
        "big.pem": "209715200 bytes, more than the 256 KiB a certificate file may have: not opened",
        "server.crt": "not PEM text (DER or other binary content): not parsed",
        "server.der": "not named .pem, .crt or .cer (DER, PKCS#12 and other files are not opened)",
        "a/b/c/d": "more than 3 levels below a configured directory: not entered",
      });
    });

    it("an unreadable file is a listed skip (root reads everything here: the probe refuses that one file)", async () => {
      const ctx = await realContext({ certificate_dirs: [tree] });
      const locked = join(tree, "locked.pem");
      const readText = ctx.host.readText.bind(ctx.host);
      const host = new Proxy(ctx.host, { get: (t, k, r) => (k === "readText" ? (p: string, o?: Parameters<typeof readText>[1]) => (p === locked ? Promise.reject(new HostgateError("permission_denied", "denied")) : readText(p, o)) : Reflect.get(t, k, r) as unknown) });
      const out = await listCertificates.run(listCertificates.params.parse({}), { ...ctx, host });
      expect(out.skipped).toContainEqual({ path: locked, reason: "unreadable (permission_denied)" });
    });
  });
});
