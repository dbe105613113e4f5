import type { ExposureSettings } from "../core/toolsets.ts";
import type { Config } from "./schema.ts";

/**
 * The exposure rule's settings (core/toolsets.ts `exposureOf`) from a loaded config: `tools.*` plus `exec.enabled`
 * (a switch the config does not set is left out, so the settings compare equal to their wire form, ipc/protocol.ts
 * ExposureSettingsSchema).
 */
export function exposureSettings(config: Pick<Config, "tools" | "exec">): ExposureSettings {
  const { exposure, groups, enable, disable } = config.tools;
  return { exposure, groups, enable, disable, switches: config.exec.enabled === undefined ? {} : { "exec.enabled": config.exec.enabled } };
}
