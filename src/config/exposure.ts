import type { ExposureSettings } from "../core/toolsets.ts";
import type { Config } from "./schema.ts";

/** The exposure rule's settings (core/toolsets.ts `exposureOf`) from a loaded config: `tools.*` plus `exec.enabled`. */
export function exposureSettings(config: Pick<Config, "tools" | "exec">): ExposureSettings {
  return { ...config.tools, switches: { "exec.enabled": config.exec.enabled } };
}
