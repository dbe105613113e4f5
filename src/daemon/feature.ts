import type { ResourceProvider } from "../app/resources.ts";

/** One doctor finding of a feature: `warn` for what a user should fix or know. */
export interface Finding {
  level: "ok" | "warn";
  check: string;
  message: string;
}

/**
 * A feature of the composed daemon (local host, policy, hosts, skills): what it adds beside the handlers that
 * read it through `DaemonDeps` — resource providers, doctor findings, what SIGHUP reloads, what close releases.
 * Features that build adapters on first use keep doing so: `doctor` and `reload` say when they are not loaded.
 */
export interface DaemonFeature {
  /** Shown as the prefix of its doctor checks (`hosts: sandbox`). */
  name: string;
  resources?: readonly ResourceProvider[];
  doctor?: () => Promise<Finding[]>;
  /** SIGHUP: the line saying what happened, or null when the feature has nothing to reload. */
  reload?: () => Promise<string | null>;
  close?: () => void | Promise<void>;
}
