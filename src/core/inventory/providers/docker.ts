import { z } from "zod";
import { defineProvider, pathField, timeoutOverride } from "./fields.ts";

/** `docker`: running containers of a Docker (or podman) Engine API socket (adapters/inventory/docker.ts). */
export const dockerProvider = defineProvider({
  kind: "docker",
  fields: {
    socket: pathField.default("/var/run/docker.sock").describe("Docker Engine API Unix socket (podman: /run/podman/podman.sock)"),
    all: z.boolean().default(false).describe("Also list stopped containers"),
    label: z.string().max(256).optional().describe("Only containers with this label (key or key=value)"),
  },
  overrides: {
    ...timeoutOverride,
    all: z.boolean().optional().describe("Also list stopped containers"),
    label: z.string().max(256).optional().describe("Only containers with this label"),
  },
});
