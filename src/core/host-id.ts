/**
 * Host ids (DESIGN.md, Words: host): `local` or a name from the inventory. Every query, plan, transaction
 * and audit entry names one; a receipt is bound to it through the preview_hash.
 */

/** The host the daemon runs on. */
export const LOCAL_HOST = "local";

/**
 * The one rule for a host name in every tool and method that takes one (`host`, `hosts`, plan's `host`,
 * plan_command's `target`, get_host_details' `name`; issue 22: they used to differ): `local`, an inventory name,
 * an ssh_config alias, an IP address or a DNS name. Letters, digits, `.`, `_`, `-` and `:` (IPv6 literals, and
 * the known_hosts provider's `host:port` names), a letter or digit first (so never an option such as `-oX`);
 * an IPv6 literal may also be written `::1` or `[::1]`. No `@` (a login user is inventory or ssh_config data,
 * not part of the name), no whitespace or control characters; at most 253 characters (a DNS name's limit).
 */
export const HOST_ID_PATTERN = /^(?:[A-Za-z0-9][A-Za-z0-9._:-]{0,252}|::[0-9A-Fa-f:.]{0,43}|\[[0-9A-Fa-f:.]{2,45}\])$/;

/** {@link HOST_ID_PATTERN} in words, for error messages and hints. */
export const HOST_NAME_RULE = "a host is `local`, an inventory name (search_hosts), an ssh_config alias, an IP address or a DNS name: letters, digits, '.', '_', '-' and ':', starting with a letter or a digit (an IPv6 literal may be [::1]), at most 253 characters";
