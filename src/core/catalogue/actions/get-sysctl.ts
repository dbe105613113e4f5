import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { sysctlKeyPath } from "../../host/sysctl-key.ts";

const MAX_KEYS = 2000;
/** Keys whose read(2) does something: vm.stat_refresh flushes the per-CPU VM statistics (Documentation/admin-guide/sysctl/vm.rst). */
const SIDE_EFFECT_ON_READ = new Set(["/proc/sys/vm/stat_refresh"]);

function pathToKey(path: string): string {
  return path.slice("/proc/sys/".length).split("/").map((p) => p.replace(/\./g, "/")).join(".");
}

async function walk(ctx: ActionContext, path: string, out: { key: string; value: string }[], skipped: { key: string; reason: string }[]): Promise<void> {
  const st = await ctx.host.stat(path);
  if (st.is_directory) {
    for (const name of (await ctx.host.readDir(path)).sort()) {
      if (out.length >= MAX_KEYS) return;
      await walk(ctx, `${path}/${name}`, out, skipped);
    }
    return;
  }
  if (((st.mode ?? 0o444) & 0o444) === 0) { skipped.push({ key: pathToKey(path), reason: "write-only" }); return; }
  if (SIDE_EFFECT_ON_READ.has(path)) { skipped.push({ key: pathToKey(path), reason: "reading it changes kernel state" }); return; }
  try {
    const value = (await ctx.host.readText(path, { maxBytes: 64 * 1024 })).replace(/\n$/, "");
    // sysctl(8) prints nothing for a key that reads empty; so do we
    if (value === "") skipped.push({ key: pathToKey(path), reason: "empty" });
    else out.push({ key: pathToKey(path), value });
  } catch (err) {
    skipped.push({ key: pathToKey(path), reason: (err as { code?: string }).code ?? "unreadable" });
  }
}

/** GetSysctl: kernel parameters from /proc/sys, one key or every key under a prefix (what `sysctl -n KEY` / `sysctl -a -r PREFIX` print). */
export default defineReadOnlyAction({
  name: "GetSysctl",
  title: "Sysctl values",
  description: "Kernel parameters (/proc/sys): one key (net.ipv4.ip_forward) or all under a prefix (net.ipv4.tcp_).",
  params: z.object({ key: z.string().min(1).max(256).describe("a key, or a prefix ending in . for a subtree") }).strict(),
  output: z.object({ values: z.array(z.object({ key: z.string(), value: z.string() })), skipped: z.array(z.object({ key: z.string(), reason: z.string() })), truncated: z.boolean() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["kernel"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const values: { key: string; value: string }[] = [];
    const skipped: { key: string; reason: string }[] = [];
    const path = sysctlKeyPath(params.key, "read");
    try {
      await walk(ctx, path, values, skipped);
    } catch (err) {
      if ((err as { code?: string }).code === "not_found") {
        // a partial name: every key starting with it in its directory (net.ipv4.tcp_ → tcp_*)
        const dir = path.slice(0, path.lastIndexOf("/"));
        const stem = path.slice(path.lastIndexOf("/") + 1);
        const names = await ctx.host.readDir(dir).catch(() => [] as string[]);
        const hits = names.filter((n) => n.startsWith(stem)).sort();
        if (hits.length === 0) throw new HostgateError("not_found", `No sysctl key ${params.key} on this host.`, { hint: "Pass a prefix (e.g. net.ipv4.) to list what exists." });
        for (const n of hits) await walk(ctx, `${dir}/${n}`, values, skipped);
      } else throw err;
    }
    return { values, skipped, truncated: values.length >= MAX_KEYS };
  },
});
