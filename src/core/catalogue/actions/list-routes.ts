import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { parseProcNetIpv6Route, parseProcNetRoute } from "../../host/routes.ts";

const route = z.object({
  family: z.enum(["IPv4", "IPv6"]),
  destination: z.string(),
  gateway: z.string().nullable(),
  dev: z.string(),
  metric: z.number(),
  type: z.enum(["unicast", "local", "multicast"]),
});

/**
 * ListRoutes: the kernel's routing tables from /proc/net/route (IPv4 main table) and /proc/net/ipv6_route (IPv6,
 * every table): no tool is spawned. A host without IPv6 answers its IPv4 routes alone.
 */
export default defineReadOnlyAction({
  name: "ListRoutes",
  title: "Routes",
  description: "Routing table (IPv4 main table, IPv6 all), from /proc/net.",
  params: z.object({ family: z.enum(["IPv4", "IPv6"]).optional() }).strict(),
  output: z.object({ routes: z.array(route) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["network"],
  host_derived: true,
  async run(params, ctx) {
    const routes = [];
    if (params.family !== "IPv6") routes.push(...parseProcNetRoute(await ctx.host.readText("/proc/net/route")));
    if (params.family !== "IPv4") {
      try {
        routes.push(...parseProcNetIpv6Route(await ctx.host.readText("/proc/net/ipv6_route")));
      } catch (err) {
        if (!(err instanceof HostgateError && err.code === "not_found")) throw err; // IPv6 disabled: no file
      }
    }
    return { routes };
  },
});
