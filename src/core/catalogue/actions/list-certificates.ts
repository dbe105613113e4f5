import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** Where ListCertificates looks when `certificates.dirs` is not set: certbot's live certificates and the usual local place. */
export const DEFAULT_CERTIFICATE_DIRS: readonly string[] = ["/etc/letsencrypt/live", "/etc/ssl/certs/local", "/etc/pki/tls/certs"];

/** Files that hold certificates by name (PEM or CRT); anything else is not opened. */
const CERT_NAME = /\.(pem|crt|cer)$/i;
/** Names that suggest a key (certbot's privkey.pem, *.key, *-key.pem): never opened. */
const KEY_NAME = /(priv|key)/i;
/** Directories that hold keys by convention (/etc/ssl/private, certbot's keys/): never entered. */
const KEY_DIR = /(^|\/)(private|keys?)(\/|$)/;
const MAX_FILES = 500;
const MAX_DEPTH = 3;
const DAY_MS = 86_400_000;

const cert = z.object({
  path: z.string(),
  subject: z.string(),
  issuer: z.string(),
  sans: z.array(z.string()),
  not_before: z.string(),
  not_after: z.string(),
  days_left: z.number().describe("Negative: expired"),
  serial: z.string(),
  fingerprint_sha256: z.string(),
  is_ca: z.boolean(),
});
const skipped = z.object({ path: z.string(), reason: z.string() });

interface Walk { certs: z.infer<typeof cert>[]; skipped: z.infer<typeof skipped>[]; files: number }

async function walk(ctx: ActionContext, dir: string, depth: number, w: Walk, now: number): Promise<void> {
  if (KEY_DIR.test(dir)) { w.skipped.push({ path: dir, reason: "a key directory: not entered" }); return; }
  let names: string[];
  try {
    names = await ctx.host.readDir(dir);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return;
    w.skipped.push({ path: dir, reason: err instanceof HostgateError ? err.code : "unreadable" });
    return;
  }
  for (const name of names.sort()) {
    const path = `${dir}/${name}`;
    if (w.files >= MAX_FILES) { w.skipped.push({ path, reason: `more than ${MAX_FILES} files: stopped` }); return; }
    let real: string;
    let st;
    try {
      real = await ctx.host.realPath(path); // certbot's live/ names are links into archive/
      st = await ctx.host.stat(real);
    } catch {
      continue; // a dangling link
    }
    if (st.is_directory) { if (depth < MAX_DEPTH) await walk(ctx, path, depth + 1, w, now); continue; }
    if (!st.is_file || !CERT_NAME.test(name)) continue;
    if (KEY_NAME.test(name) || KEY_NAME.test(real.slice(real.lastIndexOf("/") + 1))) { w.skipped.push({ path, reason: "named like a private key: not opened" }); continue; }
    w.files++;
    const text = await ctx.host.readText(real, { maxBytes: 256 * 1024 }).catch(() => null);
    if (text === null) { w.skipped.push({ path, reason: "unreadable" }); continue; }
    // A PEM bundle with a key in it (cert + key in one file): nothing of it is parsed or returned.
    if (text.includes("PRIVATE KEY-----")) { w.skipped.push({ path, reason: "holds a private key: not parsed" }); continue; }
    const parsed = ctx.x509!.parsePem(text);
    if (parsed.invalid > 0 && parsed.certificates.length === 0) w.skipped.push({ path, reason: "no certificate that parses" });
    for (const c of parsed.certificates) w.certs.push({ path, ...c, days_left: Math.floor((Date.parse(c.not_after) - now) / DAY_MS) });
  }
}

/**
 * ListCertificates: X.509 certificates under the configured directories (`certificates.dirs`; default certbot's
 * /etc/letsencrypt/live and two usual places): subject, SANs, validity, days left, fingerprint, soonest expiry
 * first. Never a private key: key-named files and key directories are not opened, a file holding a PRIVATE KEY
 * block is skipped whole. Parsing by node:crypto through the X509 port; files through the probe (any host).
 */
export default defineReadOnlyAction({
  name: "ListCertificates",
  title: "Certificates",
  description: "Certificates under the configured dirs: subject, SANs, expiry, days left (soonest first). Never reads keys.",
  params: z.object({ expiring_within_days: z.number().int().min(0).max(3650).optional() }).strict(),
  output: z.object({ certificates: z.array(cert), skipped: z.array(skipped), dirs: z.array(z.string()) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["certificates"],
  host_derived: true,
  async run(params, ctx) {
    if (ctx.x509 === undefined) throw new HostgateError("unavailable", "No certificate parser is composed for this host.", { hint: "Use a host served by the daemon itself." });
    const dirs = [...(ctx.certificate_dirs ?? DEFAULT_CERTIFICATE_DIRS)];
    const w: Walk = { certs: [], skipped: [], files: 0 };
    const now = ctx.clock.now();
    for (const dir of dirs) await walk(ctx, dir.replace(/\/+$/, ""), 0, w, now);
    const certs = params.expiring_within_days === undefined ? w.certs : w.certs.filter((c) => c.days_left <= params.expiring_within_days!);
    return { certificates: certs.sort((a, b) => (a.not_after < b.not_after ? -1 : a.not_after > b.not_after ? 1 : a.path < b.path ? -1 : 1)), skipped: w.skipped, dirs };
  },
});
