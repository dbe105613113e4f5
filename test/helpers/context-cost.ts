/**
 * How the context cost of the tool surface is measured (issue 14), shared by bench/context-cost.ts and
 * test/e2e/context-cost.test.ts so the budget the test enforces is the figure the bench prints.
 */

/**
 * Budget of the default toolsets' model-visible tools/list, in bytes: 12 KiB from issue 14, plus 512 bytes for
 * issue 22's get_largest_directories (≈ 300 bytes at its smallest: the 12 KiB were spent to 10 bytes when it came,
 * and the disk-full runbook needs it as a direct tool), plus 512 bytes for issue 20's `host` argument, which the
 * issue requires on every direct read-only tool (`{"type":"string"}`, ≈ 25 bytes on each of ≈ 19 tools: ≈ 470
 * bytes; no per-tool description, search_hosts says once what a host name is), plus 512 bytes for issue 20's
 * read_on_hosts (the fan-out the issue asks for, ≈ 470 bytes; the alternative, a `hosts` argument on every direct
 * tool, would cost ≈ 50 bytes on each of ≈ 19 tools: docs/hosts.md). Any other addition pays for itself.
 */
export const CONTEXT_BUDGET_BYTES = 12 * 1024 + 512 + 512 + 512;

/** The fields of a tools/list entry that a model reads; outputSchema and annotations are left out. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
}

/** UTF-8 bytes of one tool's name, title, description and inputSchema, serialised as JSON. */
export function modelVisibleBytes(t: ListedTool): number {
  return Buffer.byteLength(JSON.stringify({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema }));
}
