import { describe, expect, it } from "vitest";
import type { ActionContext } from "../core/catalogue/action.ts";
import { HostgateError } from "../core/errors.ts";
import { HostRegistry } from "./hosts.ts";
import { ResourceRegistry, type ResourceProvider } from "./resources.ts";

const ctx = { family: "debian" } as unknown as ActionContext;

describe("HostRegistry", () => {
  it("maps host ids to action contexts and says unknown_host with the known ids", () => {
    const hosts = new HostRegistry();
    hosts.register({ id: "local", hostname: "box", ctx, simulated_systemd: false });
    hosts.register({ id: "web-1", hostname: "web-1", ctx, simulated_systemd: false });
    expect(hosts.get().id).toBe("local");
    expect(hosts.get("web-1").hostname).toBe("web-1");
    expect(hosts.ids()).toEqual(["local", "web-1"]);
    let err: unknown;
    try { hosts.get("db-9"); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(HostgateError);
    expect(err).toMatchObject({ code: "unknown_host" });
    expect((err as HostgateError).hint).toContain("local, web-1");
  });

  it("refuses malformed and duplicate ids, and unregistering local", () => {
    const hosts = new HostRegistry();
    hosts.register({ id: "local", hostname: "box", ctx, simulated_systemd: false });
    expect(() => { hosts.register({ id: "local", hostname: "x", ctx, simulated_systemd: false }); }).toThrow(/already registered/);
    expect(() => { hosts.register({ id: "-rm -rf", hostname: "x", ctx, simulated_systemd: false }); }).toThrow(/not a host id/);
    expect(() => hosts.unregister("local")).toThrow(/cannot be unregistered/);
  });
});

const provider = (scheme: string): ResourceProvider => ({
  scheme,
  list: () => Promise.resolve([{ uri: `${scheme}://a`, name: `${scheme}-a`, mimeType: "text/plain" }]),
  templates: () => [{ uriTemplate: `${scheme}://{name}`, name: `${scheme}-t`, mimeType: "text/plain" }],
  read: (uri) => Promise.resolve({ uri, mimeType: "text/plain", text: `read by ${scheme}` }),
});

describe("ResourceRegistry", () => {
  it("lists every scheme's resources and templates and dispatches reads by scheme", async () => {
    const r = new ResourceRegistry();
    r.register(provider("systemd"));
    r.register(provider("skill"));
    expect((await r.list()).map((e) => e.uri)).toEqual(["systemd://a", "skill://a"]);
    expect(r.templates().map((t) => t.uriTemplate)).toEqual(["systemd://{name}", "skill://{name}"]);
    expect((await r.read("skill://pdf/SKILL.md")).text).toBe("read by skill");
    expect((await r.read("systemd://system/unit/service/x")).text).toBe("read by systemd");
  });

  it("answers invalid_uri for an unknown or missing scheme, naming the known ones; refuses a second provider for one scheme", () => {
    const r = new ResourceRegistry();
    r.register(provider("systemd"));
    let err: unknown;
    try { void r.read("file:///etc/shadow"); } catch (e) { err = e; }
    expect(err).toMatchObject({ code: "invalid_uri" });
    expect((err as HostgateError).hint).toContain("systemd://");
    expect(() => r.read("no scheme")).toThrow(expect.objectContaining({ code: "invalid_uri" }));
    expect(() => { r.register(provider("systemd")); }).toThrow(/already registered/);
    expect(() => { r.register(provider("Bad Scheme")); }).toThrow(/not a URI scheme/);
  });
});
