/**
 * Toolsets (exposure groups, DESIGN.md Words): the one list. A tool file and a catalogue action name their
 * groups with {@link Toolset}, so a misspelt group is a type error; config `tools.groups` keys follow this
 * list (config/schema.ts). Add a group here and nowhere else.
 */
export const TOOLSETS = ["host", "logs", "packages", "systemd", "resource_api_fallback", "approval", "risk", "audit", "hosts", "skills"] as const;

/** One exposure group name. */
export type Toolset = (typeof TOOLSETS)[number];

/** Whether `name` is a known toolset. */
export function isToolset(name: string): name is Toolset {
  return (TOOLSETS as readonly string[]).includes(name);
}
