import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** Longest wait a caller may ask for, milliseconds: one probe stays short and cannot hold a connection open. */
export const TCP_CONNECT_MAX_TIMEOUT_MS = 5000;

/**
 * CheckTcpConnect: whether this host can open a TCP connection to target:port (handshake only; nothing is sent or
 * read, the socket is closed at once). It reaches what the host reaches, loopback-only admin ports and private
 * networks included, so it is an operator's tool (min_role operator), one port per call, timeout capped at 5 s.
 */
export default defineReadOnlyAction({
  name: "CheckTcpConnect",
  title: "TCP connect check",
  description: "Can this host open a TCP connection to target:port? Handshake only, nothing sent; reaches the host's private networks and loopback. Timeout ≤ 5 s.",
  params: z.object({
    // not `host`: every direct tool's `host` names the machine the check runs from
    target: z.string().min(1).max(253).regex(/^[A-Za-z0-9.:_-]+$/, "a host name or an IPv4/IPv6 address to connect to"),
    port: z.number().int().min(1).max(65535),
    timeout_ms: z.number().int().min(100).max(TCP_CONNECT_MAX_TIMEOUT_MS).default(2000),
  }).strict(),
  output: z.object({ target: z.string(), port: z.number(), address: z.string().nullable().describe("Address reached"), connected: z.boolean(), duration_ms: z.number(), error: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "operator",
  toolsets: ["network"],
  host_derived: false,
  async run(params, ctx) {
    if (ctx.host.tcpConnect === undefined) {
      throw new HostgateError("unavailable", "This host's probe cannot open a connection from the host itself (SSH hosts do not offer it yet).", { hint: "Run the check on a host where hostgate's daemon runs, or exec_on_host with a command such as nc -z (when an admin has set exec.enabled: true)." });
    }
    const r = await ctx.host.tcpConnect(params.target, params.port, params.timeout_ms);
    return { target: params.target, port: params.port, ...r };
  },
});
