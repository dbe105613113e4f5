import { z } from "zod";
import type { StepProposer } from "../ports/step-proposer.ts";
import type { Action } from "../core/catalogue/action.ts";
import { HostgateError } from "../core/errors.ts";

/** Settings of an OpenAI-compatible chat-completions endpoint (config `planner.llm`). */
export interface OpenAiPlannerOptions {
  base_url: string;
  model: string;
  api_key?: string | undefined;
  timeout_ms: number;
}

const Proposal = z.object({ steps: z.array(z.object({ action: z.string(), params: z.record(z.string(), z.unknown()).default({}) })).max(20) });

/** The catalogue as the model sees it: names, access, risk and params schema, nothing else. */
function catalogueText(catalogue: readonly Action[]): string {
  return catalogue.map((a) => `- ${a.name} (${a.access}, risk ${a.risk_level}): ${a.title}. Params: ${JSON.stringify(z.toJSONSchema(a.params, { io: "input", unrepresentable: "any" }).properties ?? {})}`).join("\n");
}

/**
 * The optional LLM planner: asks any OpenAI-compatible `/chat/completions` endpoint for catalogue steps as
 * JSON. Its answer is only a proposal: plan() validates every step against the catalogue and its params
 * schema exactly like explicit steps, and nothing the model writes is ever run as text. A failure is
 * `planner_error` (never a silent switch to the deterministic planner).
 */
export function openAiPlanner(opts: OpenAiPlannerOptions): StepProposer {
  return {
    name: `${opts.model} at ${opts.base_url}`,
    async propose(intent, catalogue) {
      const body = {
        model: opts.model,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: `You turn a system administrator's intent into steps from this catalogue only. Answer with JSON {"steps":[{"action":"<Name>","params":{...}}]} and nothing else. Use the fewest steps. Catalogue:\n${catalogueText(catalogue)}` },
          { role: "user", content: intent },
        ],
      };
      let response: Response;
      try {
        response = await fetch(`${opts.base_url.replace(/\/$/, "")}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(opts.api_key ? { authorization: `Bearer ${opts.api_key}` } : {}) },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(opts.timeout_ms),
        });
      } catch (err) {
        throw new HostgateError("planner_error", `The LLM planner at ${opts.base_url} did not answer: ${(err as Error).message}.`, { hint: "Call plan with explicit steps instead, or fix planner.llm." });
      }
      if (!response.ok) throw new HostgateError("planner_error", `The LLM planner answered HTTP ${response.status}.`, { hint: "Call plan with explicit steps instead." });
      const data = (await response.json().catch(() => null)) as { choices?: { message?: { content?: string } }[] } | null;
      const content = data?.choices?.[0]?.message?.content ?? "";
      let parsed: unknown;
      try {
        parsed = JSON.parse(content);
      } catch {
        throw new HostgateError("planner_error", "The LLM planner did not answer with JSON steps.", { hint: "Call plan with explicit steps instead." });
      }
      const proposal = Proposal.safeParse(parsed);
      if (!proposal.success) throw new HostgateError("planner_error", "The LLM planner's answer is not a list of catalogue steps.", { hint: "Call plan with explicit steps instead." });
      return proposal.data.steps;
    },
  };
}
