/** Extracts the JSON-RPC message(s) from an HTTP body that is either plain JSON or an SSE stream. */
export function rpcMessages(body: string): Record<string, unknown>[] {
  const trimmed = body.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) return [JSON.parse(trimmed) as Record<string, unknown>];
  return trimmed.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** The single JSON-RPC message of a body. */
export function rpcMessage(body: string): Record<string, unknown> {
  const all = rpcMessages(body);
  if (all.length !== 1) throw new Error(`expected one JSON-RPC message, got ${all.length}: ${body}`);
  return all[0]!;
}
