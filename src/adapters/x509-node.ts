import { X509Certificate } from "node:crypto";
import type { CertificateInfo, X509Parser } from "../ports/x509.ts";

const BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** node's `subject` is one `KEY=value` per line: joined as `KEY=value, KEY=value`. */
const oneLine = (dn: string): string => dn.trim().split("\n").join(", ");

/** The X509Parser of node:crypto (see ports/x509.ts). */
export const nodeX509: X509Parser = {
  parsePem(pem) {
    const certificates: CertificateInfo[] = [];
    let invalid = 0;
    for (const block of pem.match(BLOCK) ?? []) {
      try {
        const c = new X509Certificate(block);
        certificates.push({
          subject: oneLine(c.subject),
          issuer: oneLine(c.issuer),
          sans: c.subjectAltName ? c.subjectAltName.split(", ") : [],
          not_before: new Date(c.validFrom).toISOString(),
          not_after: new Date(c.validTo).toISOString(),
          serial: c.serialNumber,
          fingerprint_sha256: c.fingerprint256,
          is_ca: c.ca,
        });
      } catch {
        invalid++;
      }
    }
    return { certificates, invalid };
  },
};
