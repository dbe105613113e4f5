import { z } from "zod";
import { defineProvider, pathField, timeoutOverride } from "./fields.ts";

/** `known_hosts`: hosts whose keys the user has accepted (adapters/inventory/known-hosts.ts). */
export const knownHostsProvider = defineProvider({
  kind: "known_hosts",
  fields: { files: z.array(pathField).min(1).optional().describe("known_hosts files (default ~/.ssh/known_hosts); hashed entries cannot be listed") },
  overrides: { ...timeoutOverride },
});
