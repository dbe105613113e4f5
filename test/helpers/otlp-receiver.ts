/**
 * A loopback OTLP/HTTP trace receiver for tests (issue 25): a plain node:http server that accepts
 * `POST /v1/traces` with a JSON body (OTLP/HTTP JSON encoding: ExportTraceServiceRequest; trace and span ids are
 * hex strings in that encoding) and keeps every span with its resource's `service.name`. Answers 200 `{}`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One received span, flattened: ids as hex, attributes as a plain object, the exporting service's name. */
export interface ReceivedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT (set as OTEL_EXPORTER_OTLP_ENDPOINT). */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body as received (for "this string never appears anywhere" checks). */
  bodies: string[];
  /** Resolves once `pred` holds over the spans, or rejects after `ms`. */
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: AnyValue): string | number | boolean => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue ?? v.doubleValue ?? "");
const attrs = (list: { key: string; value: AnyValue }[] | undefined): Record<string, string | number | boolean> => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      bodies.push(body);
      if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end();
        return;
      }
      const parsed = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };
      for (const rs of parsed.resourceSpans ?? []) {
        const service = String(attrs(rs.resource?.attributes)["service.name"] ?? "");
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service, name: s.name as string, kind: s.kind as number, traceId: s.traceId as string, spanId: s.spanId as string,
              parentSpanId: (s.parentSpanId as string | undefined) ?? "", attributes: attrs(s.attributes as { key: string; value: AnyValue }[]),
              status: (s.status as { code?: number; message?: string } | undefined) ?? {},
            });
          }
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    waitFor: async (pred, ms = 15_000) => {
      const until = Date.now() + ms;
      while (!pred(spans)) {
        if (Date.now() > until) throw new Error(`spans not received in ${ms} ms; got: ${spans.map((s) => `${s.service}:${s.name}`).join(", ")}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => { r(); }); }),
  };
}
