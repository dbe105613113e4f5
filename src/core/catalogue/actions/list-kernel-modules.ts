import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";

const mod = z.object({
  name: z.string(),
  size_bytes: z.number(),
  /** Reference count ("Used by" count in lsmod). */
  used_by_count: z.number(),
  /** Modules that use this one. */
  used_by: z.array(z.string()),
  /** Live, Loading or Unloading. */
  state: z.string(),
});

/** Parses /proc/modules (`name size refcount deps state address`; deps `-` for none, comma-terminated). */
export function parseModules(text: string): z.infer<typeof mod>[] {
  return text.split("\n").filter((l) => l.trim() !== "").map((l) => {
    const f = l.split(" ");
    return { name: f[0]!, size_bytes: Number(f[1]), used_by_count: Number(f[2]), used_by: f[3] === "-" ? [] : f[3]!.split(",").filter((d) => d !== ""), state: f[4] ?? "" };
  });
}

/** ListKernelModules: loaded kernel modules (/proc/modules, what `lsmod` prints). */
export default defineReadOnlyAction({
  name: "ListKernelModules",
  title: "Kernel modules",
  description: "Loaded kernel modules (/proc/modules): size, use count, users, state.",
  params: z.object({ name: z.string().max(64).optional().describe("substring of the module name") }).strict(),
  output: z.object({ modules: z.array(mod) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["kernel"],
  host_derived: false,
  needs: ["files"],
  async run(params, ctx) {
    let text: string;
    try {
      text = await ctx.host.readText("/proc/modules");
    } catch (err) {
      if ((err as { code?: string }).code !== "not_found") throw err;
      throw new HostgateError("unavailable", "This kernel has no /proc/modules: it was built without loadable modules (or this is a sandboxed kernel).", { hint: "Nothing to list; get_system_info shows the kernel." });
    }
    const mods = parseModules(text);
    return { modules: params.name === undefined ? mods : mods.filter((m) => m.name.includes(params.name!)) };
  },
});
