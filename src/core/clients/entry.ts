/**
 * What `hostgate setup` writes into an AI client's configuration: one MCP server entry named "hostgate",
 * described once here and rendered per client (catalog.ts) in that client's own shape (../shared/CLIENTS.md).
 */

/** The name of our entry in every client's server table. */
export const SERVER_NAME = "hostgate";

/** How the client reaches hostgate. */
export type EntrySpec = StdioEntry | HttpEntry;

/**
 * The client spawns `hostgate mcp`. `command` is an absolute path (the Node.js binary, so the entry works when
 * the client spawns it with no PATH), `args` start with the absolute path of the launcher. `env` holds literal
 * values (HOSTGATE_SOCKET, HOSTGATE_TOKEN…); `forwardEnv` names variables the client should pass through from
 * its own environment (the planner's API key), written in each client's expansion syntax.
 */
export interface StdioEntry {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  forwardEnv: string[];
}

/** The client connects to a running `hostgate serve`; `token` becomes an `Authorization: Bearer` header. */
export interface HttpEntry {
  transport: "http";
  url: string;
  token?: string | undefined;
}

/** Environment variable names whose values are secrets: a file holding one is written 0600. */
export const SECRET_ENV = ["HOSTGATE_TOKEN", "HOSTGATE_HTTP_TOKEN"] as const;

/** Whether an entry carries a secret value (a daemon token in env, or an HTTP bearer token). */
export function entryHoldsSecret(spec: EntrySpec): boolean {
  if (spec.transport === "http") return spec.token !== undefined && spec.token !== "";
  return SECRET_ENV.some((k) => spec.env[k] !== undefined && spec.env[k] !== "");
}

/** A JSON value, as the merge functions handle it. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
