import { dockerProvider } from "./docker.ts";
import { knownHostsProvider } from "./known-hosts.ts";
import { sshConfigProvider } from "./ssh-config.ts";
import { staticProvider } from "./static.ts";

/**
 * THE list of inventory provider kinds hostgate ships, in documentation order. The kind names
 * (core/inventory/record.ts `PROVIDER_KINDS`), the config union (`inventory.providers[]`, config/hosts.ts) and
 * the per-request override schemas (search_hosts `overrides`) are all derived from it; the daemon's table of
 * adapters (daemon/inventory-providers.ts) is typed by it, so a kind added here without its adapter does not compile.
 */
export const PROVIDERS = [staticProvider, sshConfigProvider, knownHostsProvider, dockerProvider] as const;
