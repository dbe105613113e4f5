/**
 * A fixture action that reverts unless confirmed (issue 24): `SetMarker` sets a real file's content through the real
 * HostMutator (capture / apply / restore), so confirm-or-auto-revert is tested without touching the host's network.
 * Used by test/integration/confirm-revert.test.ts and the console's browser test (Confirm button).
 */
import { join } from "node:path";
import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../../src/core/catalogue/action.ts";
import { HostgateError } from "../../src/core/errors.ts";

/** The file's content, or null when absent. */
export async function readMarker(ctx: ActionContext, path: string): Promise<string | null> {
  try {
    return await ctx.host.readText(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  }
}

/** A fixture action that reverts unless confirmed: sets a real file's content through the real mutator. */
export const setMarker = defineMutatingAction({
  name: "SetMarker",
  title: "Set a marker file",
  description: "test fixture",
  params: z.object({ path: z.string(), value: z.string(), revert: z.boolean().default(true) }).strict(),
  output: z.object({ value: z.string() }),
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: [],
  host_derived: false,
  async preview(p, ctx) {
    const current = await readMarker(ctx, p.path);
    return { summary: current === p.value ? "Nothing to do" : `Set ${p.path} to ${p.value}`, text: `${p.path}: ${current ?? "(absent)"} → ${p.value}\n`, current, intended: p.value };
  },
  async apply(p, ctx) {
    await ctx.mutator.writeFileAtomic(p.path, p.value, {});
    return { value: p.value };
  },
  revert: {
    applies: (p) => p.revert,
    capture: async (p, ctx) => ({ content: await readMarker(ctx, p.path) }),
    async restore(p, ctx, prior) {
      const { content } = prior as { content: string | null };
      if (content === null) {
        const st = await ctx.host.stat(p.path);
        await ctx.mutator.removeFile(p.path, { how: "delete", expectedRealDir: await ctx.host.realPath(join(p.path, "..")), expectedDev: st.dev!, expectedIno: st.ino! });
      } else {
        await ctx.mutator.writeFileAtomic(p.path, content, {});
      }
    },
  },
});
