import { describe, expect, it } from "vitest";
import { hostAllowed, isLoopbackBind, isLoopbackHostname, originAllowed, parseHostHeader } from "./http-guards.ts";

describe("parseHostHeader", () => {
  it.each([
    ["localhost", { hostname: "localhost", port: null }],
    ["LocalHost:3000", { hostname: "localhost", port: "3000" }],
    ["127.0.0.1:48000", { hostname: "127.0.0.1", port: "48000" }],
    ["[::1]:3000", { hostname: "[::1]", port: "3000" }],
    ["[::1]", { hostname: "[::1]", port: null }],
    ["[::ffff:127.0.0.1]", { hostname: "[::ffff:127.0.0.1]", port: null }],
    [" example.com ", { hostname: "example.com", port: null }],
  ])("%j → %j", (value, parsed) => {
    expect(parseHostHeader(value)).toEqual(parsed);
  });

  it.each(["", "   ", "a b", "user@localhost", "localhost/x", "localhost?x", "localhost#x", "local\\host", "localhost:", "localhost:abc", "localhost:1:2", "::1", "[::1", "[::1]x", "[::1]:", "localhost:123456"])(
    "rejects %j",
    (value) => {
      expect(parseHostHeader(value)).toBeNull();
    },
  );
});

describe("isLoopbackHostname", () => {
  it.each(["localhost", "localhost.", "127.0.0.1", "127.255.255.254", "127.0.0.1.", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:127.1.2.3]"])("accepts %s", (h) => {
    expect(isLoopbackHostname(h)).toBe(true);
  });

  it.each(["127.1", "127.0.1", "127.0.0.1.nip.io", "localhost.evil.com", "evil.example.com", "128.0.0.1", "0.0.0.0", "127.0.0.01", "127.0.0.256", "0x7f.0.0.1", "[::2]", "[::ffff:10.0.0.1]", "[::ffff:127.1]", "localhost..", ""])(
    "rejects %s",
    (h) => {
      expect(isLoopbackHostname(h)).toBe(false);
    },
  );
});

describe("isLoopbackBind", () => {
  it("accepts loopback bind addresses only", () => {
    expect(["localhost", "127.0.0.1", "127.0.0.2", "::1"].map(isLoopbackBind)).toEqual([true, true, true, true]);
    expect(["0.0.0.0", "::", "192.168.1.10", "127.1"].map(isLoopbackBind)).toEqual([false, false, false, false]);
  });
});

describe("hostAllowed", () => {
  it.each(["localhost", "localhost:3000", "localhost.", "127.0.0.1:48000", "[::1]:3000", "[::ffff:127.0.0.1]"])("accepts loopback %s", (h) => {
    expect(hostAllowed(h, [])).toBe(true);
  });

  it.each(["127.1", "127.0.0.1.nip.io", "evil.example.com", "evil.example.com:80", "localhost@evil.com"])("rejects %s", (h) => {
    expect(hostAllowed(h, [])).toBe(false);
  });

  it("rejects a missing Host header", () => {
    expect(hostAllowed(undefined, [])).toBe(false);
  });

  it("accepts listed names case-insensitively, ignoring the port", () => {
    expect(hostAllowed("Gate.Example.com:8443", ["gate.example.com"])).toBe(true);
    expect(hostAllowed("gate.example.com", ["GATE.example.COM"])).toBe(true);
    expect(hostAllowed("other.example.com", ["gate.example.com"])).toBe(false);
  });
});

describe("originAllowed", () => {
  it("accepts an absent Origin (non-browser clients)", () => {
    expect(originAllowed(undefined, [])).toBe(true);
  });

  it.each(["http://localhost", "http://localhost:3000", "https://127.0.0.1:8443", "http://[::1]:3000", "http://localhost.:5173", "HTTP://LOCALHOST:3000"])("accepts loopback %s", (o) => {
    expect(originAllowed(o, [])).toBe(true);
  });

  it.each(["https://evil.example.com", "http://127.0.0.1.nip.io", "http://localhost.evil.com", "file://", "file:///etc/passwd", "chrome-extension://abc", "not a url", ""])("rejects %j", (o) => {
    expect(originAllowed(o, [])).toBe(false);
  });

  it("rejects Origin null unless it is listed", () => {
    expect(originAllowed("null", [])).toBe(false);
    expect(originAllowed("null", ["null"])).toBe(true);
  });

  it("rejects duplicate or comma-joined origins even when each is loopback", () => {
    expect(originAllowed(["http://localhost", "http://localhost"], [])).toBe(false);
    expect(originAllowed(["http://localhost", "https://evil.example.com"], [])).toBe(false);
    expect(originAllowed("http://localhost, https://evil.example.com", [])).toBe(false);
    expect(originAllowed(["http://localhost"], [])).toBe(true);
  });

  it("accepts an exactly listed non-loopback origin and nothing similar", () => {
    const allowed = ["https://app.example.com"];
    expect(originAllowed("https://app.example.com", allowed)).toBe(true);
    expect(originAllowed("https://app.example.com:444", allowed)).toBe(false);
    expect(originAllowed("http://app.example.com", allowed)).toBe(false);
  });
});

describe("follow-ups from review", () => {
  it("rejects ports above 65535", () => {
    expect(parseHostHeader("localhost:99999")).toBeNull();
    expect(parseHostHeader("[::1]:70000")).toBeNull();
    expect(hostAllowed("localhost:65535", [])).toBe(true);
  });
  it("accepts an IPv4-mapped loopback Origin as the URL parser spells it, like the Host check does", () => {
    expect(originAllowed("http://[::ffff:127.0.0.1]:3000", [])).toBe(true);
    expect(originAllowed("http://[::ffff:10.0.0.1]:3000", [])).toBe(false);
  });
});

describe("tokenEquals and readLimitedBody (shared by the MCP HTTP front, the console and tcp:// listeners)", () => {
  it("tokenEquals compares whole tokens of any length", async () => {
    const { tokenEquals } = await import("./http-guards.ts");
    expect(tokenEquals("a".repeat(40), "a".repeat(40))).toBe(true);
    expect(tokenEquals("a".repeat(40), "a".repeat(39))).toBe(false);
    expect(tokenEquals("", "x")).toBe(false);
  });

  it("readLimitedBody reads up to the limit and refuses a larger declared or chunked body", async () => {
    const { createServer, request } = await import("node:http");
    const { readLimitedBody } = await import("./http-guards.ts");
    const seen: unknown[] = [];
    const server = createServer((req, res) => { void readLimitedBody(req, 10).then((r) => { seen.push(r); res.end(); }); });
    await new Promise<void>((r) => { server.listen(0, "127.0.0.1", r); });
    const port = (server.address() as { port: number }).port;
    const send = (body: string, chunked: boolean) => new Promise<void>((resolve) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", headers: chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(Buffer.byteLength(body)) } }, (res) => { res.resume(); res.on("end", resolve); });
      req.on("error", () => { resolve(); });
      req.end(body);
    });
    await send("\uFEFFhello", false);
    await send("x".repeat(11), false);
    await send("y".repeat(20), true);
    server.close();
    expect(seen).toEqual([{ ok: true, text: "hello" }, { ok: false, reason: "too_large" }, { ok: false, reason: "too_large" }]);
  });
});
