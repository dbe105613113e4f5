import { z } from "zod";
import { defineProvider, pathField, timeoutOverride } from "./fields.ts";

/** `ssh_config`: the OpenSSH client config's Host entries (adapters/inventory/ssh-config.ts). */
export const sshConfigProvider = defineProvider({
  kind: "ssh_config",
  fields: { files: z.array(pathField).min(1).optional().describe("Client config files in order (default ~/.ssh/config then /etc/ssh/ssh_config)") },
  overrides: { ...timeoutOverride },
});
