import { describe, expect, it } from "vitest";
import { inProcessCaller, type Caller } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import { createDispatcher, inProcessClient, type Handlers } from "./dispatch.ts";
import { METHODS, type AgentMethod } from "./methods.ts";

const seen: { method: string; caller: Caller }[] = [];
const handlers = Object.fromEntries(Object.keys(METHODS).map((m) => [m, (_p: unknown, caller: Caller) => {
  seen.push({ method: m, caller });
  if (m === "doctor") throw new HostgateError("unavailable", "down", { hint: "start it" });
  return { checks: [] };
}])) as unknown as Handlers;
const dispatcher = createDispatcher(handlers);
const sock = (socket: Caller["socket"], role: Caller["role"]): Caller => ({ role, socket, peer: null, client_name: null, label: "t" });

describe("the method table's dispatcher", () => {
  it("declares socket and min_role on every method", () => {
    for (const [name, def] of Object.entries(METHODS)) {
      expect(["agent", "admin"], name).toContain(def.socket);
      expect(["observer", "operator", "admin"], name).toContain(def.min_role);
      if (def.socket === "admin") expect(def.min_role, name).toBe("admin");
    }
  });

  it("refuses admin methods on the agent socket and tcp://, and agent methods on the admin socket", async () => {
    for (const socket of ["agent", "tcp"] as const) {
      expect(await dispatcher.dispatch("approve", { transaction_id: "x" }, sock(socket, "admin"))).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
    }
    expect(await dispatcher.dispatch("plan", { intent: "x" }, sock("admin", "admin"))).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
  });

  it("enforces min_role: an observer may query but not plan", async () => {
    const observer = sock("agent", "observer");
    expect(await dispatcher.dispatch("plan", { intent: "restart nginx" }, observer)).toMatchObject({ ok: false, error: { code: "insufficient_role" } });
    expect(await dispatcher.dispatch("history", {}, observer)).toMatchObject({ ok: true });
    expect(await dispatcher.dispatch("approve", { transaction_id: "x" }, sock("in_process", "operator"))).toMatchObject({ ok: false, error: { code: "insufficient_role" } });
  });

  it("answers unknown methods, prototype names and bad params before any handler runs", async () => {
    const before = seen.length;
    expect(await dispatcher.dispatch("format_disk", {}, sock("agent", "operator"))).toMatchObject({ ok: false, error: { code: "protocol_error" } });
    expect(await dispatcher.dispatch("__proto__", {}, sock("agent", "operator"))).toMatchObject({ ok: false, error: { code: "protocol_error" } });
    const bad = await dispatcher.dispatch("execute", { steps: "all" }, sock("agent", "operator"));
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(!bad.ok && bad.error.message).toContain("steps");
    expect(await dispatcher.dispatch("query", { action: "GetLoad", args: {}, host: "../etc" }, sock("agent", "operator"))).toMatchObject({ ok: false, error: { code: "invalid_params" } });
    expect(seen.length).toBe(before);
  });

  it("passes the caller to the handler and turns a thrown HostgateError into a domain error", async () => {
    const client = inProcessClient<AgentMethod>(dispatcher, inProcessCaller("operator", "mcp"));
    expect(await client.call("doctor", {}, { client_name: "x".repeat(100) })).toEqual({ ok: false, error: { code: "unavailable", message: "down", hint: "start it" } });
    expect(seen.at(-1)?.caller).toEqual({ role: "operator", socket: "in_process", peer: null, client_name: "x".repeat(64), label: "mcp" });
  });
});
