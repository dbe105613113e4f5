import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseResolvConf, RESOLVED_STUB, type ResolvConf } from "../../host/resolv-conf.ts";

const conf = z.object({ nameservers: z.array(z.string()), search: z.array(z.string()), options: z.array(z.string()) });

/** systemd-resolved's list of the upstream servers it uses (systemd-resolved.service(8), "/etc/resolv.conf"). */
const RESOLVED_UPSTREAM = "/run/systemd/resolve/resolv.conf";

async function readConf(ctx: ActionContext, path: string): Promise<ResolvConf | null> {
  try {
    // realpath first: over SFTP a symlink is not followed (/etc/resolv.conf usually is one under resolved)
    return parseResolvConf(await ctx.host.readText(await ctx.host.realPath(path)));
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  }
}

/**
 * GetDnsConfig: /etc/resolv.conf parsed; when it points at systemd-resolved's stub (127.0.0.53), the upstream
 * servers resolved uses, from its own /run/systemd/resolve/resolv.conf. Files only: no D-Bus call, no tool.
 */
export default defineReadOnlyAction({
  name: "GetDnsConfig",
  title: "DNS configuration",
  description: "Resolvers and search domains (resolv.conf; resolved's upstreams when stubbed).",
  params: z.object({}).strict(),
  output: z.object({
    resolv_conf: conf.extend({ target: z.string().nullable().describe("Where /etc/resolv.conf links") }),
    resolved: z.object({ stub: z.boolean(), upstream: conf.nullable() }),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["network"],
  host_derived: true,
  async run(_params, ctx) {
    const main = await readConf(ctx, "/etc/resolv.conf");
    if (main === null) {
      throw new HostgateError("not_found", "/etc/resolv.conf does not exist on this host, so the resolver uses its built-in default (127.0.0.1).", {
        hint: "Check get_service_status for systemd-resolved, or whether the file is created by a network manager.",
      });
    }
    let target: string | null = null;
    try {
      if ((await ctx.host.stat("/etc/resolv.conf")).is_symlink) target = await ctx.host.readLink("/etc/resolv.conf");
    } catch {
      target = null;
    }
    const stub = main.nameservers.includes(RESOLVED_STUB);
    const upstream = stub || (target?.includes("systemd/resolve") ?? false) ? await readConf(ctx, RESOLVED_UPSTREAM) : null;
    return { resolv_conf: { ...main, target }, resolved: { stub, upstream } };
  },
});
