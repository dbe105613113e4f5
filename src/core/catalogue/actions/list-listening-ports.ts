import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { parseSocketTable, TCP_LISTEN, UDP_UNCONNECTED } from "../../host/proc-net.ts";
import { parsePasswd } from "../../host/proc-pid.ts";

const port = z.object({
  protocol: z.enum(["tcp", "udp"]),
  family: z.enum(["ipv4", "ipv6"]),
  address: z.string(),
  port: z.number(),
  pid: z.number().nullable(),
  process: z.string().nullable(),
  user: z.string().nullable(),
});

const TABLES = [
  { file: "/proc/net/tcp", protocol: "tcp", family: "ipv4", state: TCP_LISTEN },
  { file: "/proc/net/tcp6", protocol: "tcp", family: "ipv6", state: TCP_LISTEN },
  { file: "/proc/net/udp", protocol: "udp", family: "ipv4", state: UDP_UNCONNECTED },
  { file: "/proc/net/udp6", protocol: "udp", family: "ipv6", state: UDP_UNCONNECTED },
] as const;

/** Maps socket inode → owning pid and process name by reading /proc/[pid]/fd links (`socket:[inode]`). */
async function socketOwners(ctx: ActionContext): Promise<Map<number, { pid: number; name: string }>> {
  const owners = new Map<number, { pid: number; name: string }>();
  const pids = (await ctx.host.readDir("/proc")).filter((d) => /^\d+$/.test(d));
  await Promise.all(pids.map(async (pid) => {
    let fds: string[];
    try {
      fds = await ctx.host.readDir(`/proc/${pid}/fd`);
    } catch {
      return; // exited, or not ours to read
    }
    let name: string | null = null;
    for (const fd of fds) {
      let target: string;
      try {
        target = await ctx.host.readLink(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (!m) continue;
      name ??= (await ctx.host.readText(`/proc/${pid}/comm`).catch(() => "?")).trim();
      const inode = Number(m[1]);
      const known = owners.get(inode);
      if (!known || Number(pid) < known.pid) owners.set(inode, { pid: Number(pid), name });
    }
  }));
  return owners;
}

/** ListListeningPorts: listening TCP and bound UDP sockets from /proc/net, with owning process (as `ss -ltunp`). */
export default defineReadOnlyAction({
  name: "ListListeningPorts",
  title: "Ports",
  description: "Listening sockets and their processes.",
  params: z.object({ protocol: z.enum(["tcp", "udp", "all"]).default("all") }).strict(),
  output: z.object({ ports: z.array(port) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(params, ctx) {
    const owners = await socketOwners(ctx);
    const users = parsePasswd(await ctx.host.readText("/etc/passwd").catch(() => ""));
    const ports: z.infer<typeof port>[] = [];
    for (const t of TABLES) {
      if (params.protocol !== "all" && params.protocol !== t.protocol) continue;
      let text: string;
      try {
        text = await ctx.host.readText(t.file);
      } catch {
        continue; // e.g. IPv6 disabled
      }
      for (const row of parseSocketTable(text)) {
        if (row.state !== t.state) continue;
        const owner = owners.get(row.inode);
        ports.push({ protocol: t.protocol, family: t.family, address: row.address, port: row.port, pid: owner?.pid ?? null, process: owner?.name ?? null, user: users.get(row.uid) ?? null });
      }
    }
    ports.sort((a, b) => a.protocol.localeCompare(b.protocol) || a.port - b.port || a.address.localeCompare(b.address));
    return { ports };
  },
});
