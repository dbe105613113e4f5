/**
 * Approval receipts: single-use secrets minted by `hostgate approve` on the admin socket only. A receipt is
 * 32 random bytes (256 bits, above the 128 the design asks) in base64url after a fixed prefix, so a chat
 * answer such as "yes" can be told apart from a receipt by shape before any lookup. Only its SHA-256 is
 * stored; the receipt itself is shown once, to the human.
 */
export const RECEIPT_PREFIX = "hgr_";
export const RECEIPT_BYTES = 32;
const RECEIPT_SHAPE = /^hgr_[A-Za-z0-9_-]{43}$/;

/** Whether a string has the shape of a receipt (prefix + 43 base64url characters). */
export function isReceiptShaped(value: string): boolean {
  return RECEIPT_SHAPE.test(value);
}

/** Builds the receipt text from random bytes (the caller supplies them: core has no randomness). */
export function formatReceipt(randomBase64Url: string): string {
  return `${RECEIPT_PREFIX}${randomBase64Url}`;
}
