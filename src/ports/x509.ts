/**
 * The X509 port: parses certificates the daemon has read (core cannot import node:crypto). Implemented by
 * adapters/x509-node.ts with node's X509Certificate. It sees certificate text only: callers never hand it a file
 * that holds a private key.
 */

/** What hostgate reports of one certificate. Times ISO 8601 (UTC); names as OpenSSL prints them, one RDN per line joined by ", ". */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  /** subjectAltName entries as `DNS:name` / `IP Address:addr` (OpenSSL's spelling), in order. */
  sans: string[];
  not_before: string;
  not_after: string;
  serial: string;
  /** SHA-256 of the DER, colon-separated upper-case hex (as `openssl x509 -fingerprint -sha256`). */
  fingerprint_sha256: string;
  is_ca: boolean;
}

/** Parses PEM text. */
export interface X509Parser {
  /**
   * Every `-----BEGIN CERTIFICATE-----` block of `pem`, in order; a block that does not parse is skipped and
   * counted in `invalid`. Anything outside the blocks is ignored.
   */
  parsePem(pem: string): { certificates: CertificateInfo[]; invalid: number };
}
