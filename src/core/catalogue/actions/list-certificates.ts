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
/** Files opened at most, names looked at at most, directory levels below a configured dir, skips listed. */
export const CERT_LIMITS = { files: 500, entries: 5000, depth: 3, bytes: 256 * 1024, skipped: 200 } as const;
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

interface Walk {
  certs: z.infer<typeof cert>[];
  skipped: z.infer<typeof skipped>[];
  /** Skips beyond CERT_LIMITS.skipped, counted, not listed. */
  unlisted: number;
  files: number;
  entries: number;
  stopped: boolean;
  /**
   * Each file read (device:inode, or its real path where the probe reports no inode) → the path it was listed under:
   * a file is read once, whatever symlinks or hard links name it.
   */
  seen: Map<string, string>;
  /** Where a link to a file may point: the configured dirs, resolved, and certbot's archive/ beside a live/. */
  linkRoots: string[];
  now: number;
}

const within = (path: string, roots: readonly string[]): boolean => roots.some((r) => path === r || path.startsWith(r === "/" ? "/" : `${r}/`));

function skip(w: Walk, path: string, reason: string): void {
  if (w.skipped.length < CERT_LIMITS.skipped) w.skipped.push({ path, reason });
  else w.unlisted++;
}

const codeOf = (err: unknown): string => (err instanceof HostgateError ? err.code : "unreadable");

/**
 * Walks `dir` without following links: every name is lstat'd (HostProbe.stat); a sub-directory is entered only
 * when it is a real directory, at most CERT_LIMITS.depth levels down; a link is listed as a skip unless it points to
 * a regular file inside the link roots (certbot's live/ → archive/), which is then read as that file.
 */
async function walk(ctx: ActionContext, dir: string, depth: number, w: Walk): Promise<void> {
  if (KEY_DIR.test(dir)) { skip(w, dir, "a key directory: not entered"); return; }
  let names: string[];
  try {
    names = await ctx.host.readDir(dir);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return;
    skip(w, dir, `unreadable directory (${codeOf(err)})`);
    return;
  }
  for (const name of names.sort()) {
    if (w.stopped) return;
    const path = `${dir}/${name}`;
    if (++w.entries > CERT_LIMITS.entries) { skip(w, path, `more than ${CERT_LIMITS.entries} names looked at: stopped here`); w.stopped = true; return; }
    let st;
    try {
      st = await ctx.host.stat(path);
    } catch (err) {
      skip(w, path, `unreadable (${codeOf(err)})`);
      continue;
    }
    if (st.is_symlink) {
      await link(ctx, path, name, w);
    } else if (st.is_directory) {
      if (depth < CERT_LIMITS.depth) await walk(ctx, path, depth + 1, w);
      else skip(w, path, `more than ${CERT_LIMITS.depth} levels below a configured directory: not entered`);
    } else if (st.is_file) {
      await file(ctx, path, name, path, st, w);
    } else {
      skip(w, path, "not a regular file: not opened");
    }
  }
}

/** A symbolic link met in the walk: never walked into; read only as a regular file inside the link roots. */
async function link(ctx: ActionContext, path: string, name: string, w: Walk): Promise<void> {
  let real: string;
  try {
    real = await ctx.host.realPath(path);
  } catch {
    skip(w, path, "a link that leads nowhere (dangling or a loop): not followed");
    return;
  }
  if (!within(real, w.linkRoots)) { skip(w, path, "a link out of the certificate directories: not followed"); return; }
  let st;
  try {
    st = await ctx.host.stat(real);
  } catch (err) {
    skip(w, path, `unreadable (${codeOf(err)})`);
    return;
  }
  if (st.is_directory) { skip(w, path, "a link to a directory: not followed (directories are walked only where they are)"); return; }
  if (!st.is_file) { skip(w, path, "a link to something other than a regular file: not followed"); return; }
  await file(ctx, path, name, real, st, w);
}

/** One regular file (`real` is where it is; `path` the name it was met under; `st` its lstat). */
async function file(ctx: ActionContext, path: string, name: string, real: string, st: { size: number; dev?: number; ino?: number }, w: Walk): Promise<void> {
  const size = st.size;
  const realName = real.slice(real.lastIndexOf("/") + 1);
  if (KEY_NAME.test(name) || KEY_NAME.test(realName)) { skip(w, path, "named like a private key: not opened"); return; }
  if (KEY_DIR.test(real)) { skip(w, path, "inside a key directory: not opened"); return; }
  if (!CERT_NAME.test(name)) { skip(w, path, "not named .pem, .crt or .cer (DER, PKCS#12 and other files are not opened)"); return; }
  if (size > CERT_LIMITS.bytes) { skip(w, path, `${size} bytes, more than the ${CERT_LIMITS.bytes / 1024} KiB a certificate file may have: not opened`); return; }
  // Hard links share device + inode (stat(2)); paths alone would list one file twice.
  const id = st.dev !== undefined && st.ino !== undefined ? `${st.dev}:${st.ino}` : real;
  const first = w.seen.get(id);
  if (first !== undefined) { skip(w, path, `the same file as ${first}: listed once`); return; }
  if (w.files >= CERT_LIMITS.files) { skip(w, path, `more than ${CERT_LIMITS.files} files opened: stopped here`); w.stopped = true; return; }
  w.files++;
  w.seen.set(id, path);
  let text: string;
  try {
    text = await ctx.host.readText(real, { maxBytes: CERT_LIMITS.bytes });
  } catch (err) {
    skip(w, path, `unreadable (${codeOf(err)})`);
    return;
  }
  // A PEM bundle with a key in it (cert + key in one file): nothing of it is parsed or returned.
  if (text.includes("PRIVATE KEY-----")) { skip(w, path, "holds a private key: not parsed"); return; }
  // DER (a binary certificate or key under a PEM name): only PEM text is parsed.
  if (!text.includes("-----BEGIN ")) { skip(w, path, "not PEM text (DER or other binary content): not parsed"); return; }
  const parsed = ctx.x509!.parsePem(text);
  if (parsed.invalid > 0 && parsed.certificates.length === 0) skip(w, path, "no certificate that parses");
  else if (parsed.certificates.length === 0) skip(w, path, "no CERTIFICATE block");
  for (const c of parsed.certificates) w.certs.push({ path, ...c, days_left: Math.floor((Date.parse(c.not_after) - w.now) / DAY_MS) });
}

/**
 * The configured dirs that are walked, and a skip for each one that is itself a symbolic link: it is not followed
 * (a link's target can change under root's walk), and the skip names where it points so the admin can configure
 * that directory instead. A dir that does not exist is kept (the walk answers nothing for it).
 */
async function walkedRoots(ctx: ActionContext, dirs: readonly string[], w: Walk): Promise<string[]> {
  const out: string[] = [];
  for (const d of dirs) {
    const st = await ctx.host.stat(d).catch(() => null);
    if (st?.is_symlink) {
      const real = await ctx.host.realPath(d).catch(() => null);
      skip(w, d, real === null ? "a configured directory that is a symbolic link leading nowhere: not followed" : `a configured directory that is a symbolic link (to ${real}): not followed; name ${real} in certificates.dirs to list it`);
      continue;
    }
    out.push(d);
  }
  return out;
}

/** The link roots of the walked dirs: each resolved (a parent directory may be a link), and certbot's archive/. */
async function linkRoots(ctx: ActionContext, dirs: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const d of dirs) {
    const real = await ctx.host.realPath(d).catch(() => null);
    if (real === null) continue;
    out.push(real);
    // certbot keeps live/NAME/*.pem as links into ../../archive/NAME/ (certbot docs, "Where are my certificates?").
    if (real.endsWith("/live")) out.push(`${real.slice(0, -"/live".length)}/archive`);
  }
  return out;
}

/**
 * ListCertificates: X.509 certificates under the configured directories (`certificates.dirs`; default certbot's
 * /etc/letsencrypt/live and two usual places): subject, SANs, validity, days left, fingerprint, soonest expiry
 * first. Never a private key: key-named files and key directories are not opened, a file holding a PRIVATE KEY
 * block is skipped whole. Links are never walked into (issue 24 trial: `sub/rootlink → /root` made it read /root),
 * a configured dir that is itself a link included (a skip says where it points); a link to a regular file inside the
 * configured dirs (or certbot's archive/) is read as that file, and a file is read once (by device + inode, so hard
 * links too). Bounded
 * by CERT_LIMITS (files, names, depth, bytes); every file or directory left out is in `skipped` with why, the
 * first CERT_LIMITS.skipped of them. Parsing by node:crypto through the X509 port; files through the probe (any host).
 */
export default defineReadOnlyAction({
  name: "ListCertificates",
  title: "Certificates",
  description: "Certificates under the configured dirs: subject, SANs, expiry, days left (soonest first). Never reads keys or follows links out of the dirs; `skipped` says what was left out and why.",
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
    const w: Walk = { certs: [], skipped: [], unlisted: 0, files: 0, entries: 0, stopped: false, seen: new Map(), linkRoots: [], now: ctx.clock.now() };
    const walked = await walkedRoots(ctx, dirs.map((d) => d.replace(/\/+$/, "")), w);
    w.linkRoots = await linkRoots(ctx, walked);
    for (const dir of walked) await walk(ctx, dir, 0, w);
    if (w.unlisted > 0) w.skipped.push({ path: dirs[0] ?? "", reason: `${w.unlisted} more skipped entries, not listed` });
    const certs = params.expiring_within_days === undefined ? w.certs : w.certs.filter((c) => c.days_left <= params.expiring_within_days!);
    return { certificates: certs.sort((a, b) => (a.not_after < b.not_after ? -1 : a.not_after > b.not_after ? 1 : a.path < b.path ? -1 : 1)), skipped: w.skipped, dirs };
  },
});
