/**
 * Host ids (DESIGN.md, Words: host): `local` or a name from the inventory. Every query, plan, transaction
 * and audit entry names one; a receipt is bound to it through the preview_hash.
 */

/** The host the daemon runs on. */
export const LOCAL_HOST = "local";

/** Accepted host ids: a letter or digit first, then letters, digits, `.`, `_`, `-`, `@`, `:`; at most 253 characters. */
export const HOST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,252}$/;
