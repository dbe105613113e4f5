import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";

const iface = z.object({
  name: z.string(),
  mac: z.string().nullable(),
  mtu: z.number().nullable(),
  operstate: z.string().nullable(),
  addresses: z.array(z.object({ family: z.enum(["IPv4", "IPv6"]), address: z.string(), cidr: z.string().nullable() })),
  rx_bytes: z.number().nullable(),
  tx_bytes: z.number().nullable(),
  rx_packets: z.number().nullable(),
  tx_packets: z.number().nullable(),
  rx_errors: z.number().nullable(),
  tx_errors: z.number().nullable(),
});

async function sysValue(ctx: ActionContext, name: string, file: string): Promise<string | null> {
  try {
    return (await ctx.host.readText(`/sys/class/net/${name}/${file}`)).trim();
  } catch {
    return null;
  }
}

const num = (v: string | null): number | null => (v === null || v === "" || Number.isNaN(Number(v)) ? null : Number(v));

/** GetNetworkInterfaces: /sys/class/net attributes and counters plus the kernel's addresses per interface. */
export default defineReadOnlyAction({
  name: "GetNetworkInterfaces",
  title: "Interfaces",
  description: "Addresses, state and counters per interface.",
  params: z.object({}).strict(),
  output: z.object({ interfaces: z.array(iface) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(_params, ctx) {
    const addresses = await ctx.host.networkAddresses();
    let names: string[];
    try {
      names = await ctx.host.readDir("/sys/class/net");
    } catch {
      names = Object.keys(addresses);
    }
    const interfaces = await Promise.all(names.sort().map(async (name) => ({
      name,
      mac: await sysValue(ctx, name, "address"),
      mtu: num(await sysValue(ctx, name, "mtu")),
      operstate: await sysValue(ctx, name, "operstate"),
      addresses: (addresses[name] ?? []).map((a) => ({ family: a.family, address: a.address, cidr: a.cidr })),
      rx_bytes: num(await sysValue(ctx, name, "statistics/rx_bytes")),
      tx_bytes: num(await sysValue(ctx, name, "statistics/tx_bytes")),
      rx_packets: num(await sysValue(ctx, name, "statistics/rx_packets")),
      tx_packets: num(await sysValue(ctx, name, "statistics/tx_packets")),
      rx_errors: num(await sysValue(ctx, name, "statistics/rx_errors")),
      tx_errors: num(await sysValue(ctx, name, "statistics/tx_errors")),
    })));
    return { interfaces };
  },
});
