/**
 * A Selector backed by a model behind any OpenAI-compatible chat API (seed 000 §4.1
 * select_tool): low temperature, a prompt that holds only the routed candidates with their
 * JSON schemas, and a JSON answer { tool, arguments, reasoning, confidence, alternatives }.
 *
 * Defences (the stage, select.ts, adds its own on top: only candidates can be selected):
 * - a reply that is not JSON gets one repair attempt (ModelClient); still not JSON, or the
 *   model timing out or failing (5xx, unreachable): the heuristic selects, and the packet
 *   says why (`answeredBy`);
 * - a tool that is not a candidate, or arguments that fail the tool's inputSchema (unknown
 *   properties, wrong types, missing required), get one repair attempt; a tool still not
 *   among the candidates is rejected by the stage, never executed, and arguments still
 *   invalid reach the packet with the fields at fault named (the reviewer refuses the call);
 * - `tool: null` is the model's "no tool": the packet ends normally, nothing selected.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ModelClient } from "@switchyard/llm";
import type { RoutingCandidate } from "@switchyard/packet";
import { describeErrors, validateArguments } from "@switchyard/tool-schema";
import type { Config } from "./config.js";
import type { Choice, Selection, SelectionRequest, Selector } from "./selector.js";

const SYSTEM = [
  "You pick the one tool call that serves the user's request, from the candidate tools listed, or no tool.",
  "Rules: name a candidate exactly as listed; fill its arguments as its JSON schema asks, with values the request gives (never invent a value it does not give, such as a path or an id); leave out optional arguments the request does not mention;",
  'answer "tool": null when no candidate serves the request.',
  "confidence is how sure you are (0 to 1) that this call is what the user wants; alternatives are other candidates that could serve, best first.",
].join(" ");

/** The model's selector; `fallback` (the heuristic) answers when the model cannot. */
export function modelSelector(client: ModelClient, config: Pick<Config, "SELECTOR_MODEL" | "SELECTOR_TEMPERATURE">, fallback: Selector): Selector {
  const kind = `model ${config.SELECTOR_MODEL}`;
  return {
    kind,
    async select(request: SelectionRequest): Promise<Selection> {
      const byName = new Map(request.candidates.map((c) => [c.tool?.name ?? "", c]));
      const answer = await client.completeJson({
        model: config.SELECTOR_MODEL,
        temperature: config.SELECTOR_TEMPERATURE,
        system: SYSTEM,
        user: promptOf(request),
        schemaName: "tool_selection",
        schema: answerSchema([...byName.keys()]),
        check: (value) => problemsOf(value, byName),
      });
      if (!answer.ok || !isAnswer(answer.value)) {
        const failure = answer.ok
          ? client.unusableAnswer(config.SELECTOR_MODEL, "the model's answer does not have the selection's shape, after one repair attempt")
          : answer.failure;
        const selection = await fallback.select(request);
        return { ...selection, answeredBy: `${fallback.kind}, because ${failure.message}`, fallback: failure };
      }
      return selectionOf(answer.value, answer.repaired, byName);
    },
  };
}

/** The answer's JSON schema; the tool is one of the candidates' names or null. */
export function answerSchema(names: string[]): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    required: ["tool", "arguments", "reasoning", "confidence", "alternatives"],
    properties: {
      tool: { anyOf: [{ type: "string", enum: names }, { type: "null" }] },
      arguments: { type: "object" },
      reasoning: { type: "string" },
      confidence: { type: "number", minimum: 0, maximum: 1 },
      alternatives: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["tool", "confidence"],
          properties: { tool: { type: "string", enum: names }, confidence: { type: "number", minimum: 0, maximum: 1 } },
        },
      },
    },
  };
}

/** The request and only the routed candidates, each with its description and input schema. */
function promptOf(request: SelectionRequest): string {
  const tools = request.candidates.map((c) => ({ name: c.tool?.name ?? "", description: c.tool?.description ?? "", inputSchema: c.tool?.inputSchema ?? {} }));
  const context = request.fallbackTexts.filter((t) => t !== request.text);
  return [
    `Request: ${request.text}`,
    ...(context.length > 0 ? [`Earlier in the conversation: ${context.join(" | ")}`] : []),
    `Candidate tools (JSON):\n${JSON.stringify(tools)}`,
  ].join("\n\n");
}

interface Answer {
  tool: string | null;
  arguments: JsonObject;
  reasoning: string;
  confidence: number;
  alternatives: { tool: string; confidence: number }[];
}

function isAnswer(value: Record<string, unknown>): value is Record<string, unknown> & Answer {
  return shapeProblems(value).length === 0;
}

function shapeProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (value["tool"] !== null && typeof value["tool"] !== "string") problems.push('"tool" must be a tool name or null.');
  if (!isObject(value["arguments"])) problems.push('"arguments" must be a JSON object.');
  if (typeof value["confidence"] !== "number") problems.push('"confidence" must be a number from 0 to 1.');
  if (value["alternatives"] !== undefined && !Array.isArray(value["alternatives"])) problems.push('"alternatives" must be a list.');
  return problems;
}

/** What the repair attempt is told: the answer's shape, a tool outside the candidates, invalid arguments. */
function problemsOf(value: Record<string, unknown>, byName: Map<string, RoutingCandidate>): string[] {
  const shape = shapeProblems(value);
  if (shape.length > 0 || value["tool"] === null) return shape;
  const tool = value["tool"] as string;
  const candidate = byName.get(tool);
  if (!candidate) return [`"${tool}" is not one of the candidate tools (${[...byName.keys()].join(", ")}).`];
  const result = validateArguments(candidate.tool?.inputSchema ?? {}, value["arguments"] as JsonObject);
  return result.ok ? [] : [`The arguments for ${tool} do not fit its inputSchema: ${describeErrors(result.errors)}.`];
}

/**
 * The model's call first, then its alternatives (by name only: the stage keeps them as
 * runners-up, never runs them). A call naming a tool outside the candidates stays first,
 * alone, so that the stage rejects it rather than promoting an alternative nobody filled in.
 */
function selectionOf(answer: Answer, repaired: boolean, byName: Map<string, RoutingCandidate>): Selection {
  const note = repaired ? " (after one repair attempt)" : "";
  if (answer.tool === null) return { choices: [], reasoning: `The model found no candidate that serves the request${note}: ${answer.reasoning}` };
  const main: Choice = { toolName: answer.tool, params: answer.arguments, confidence: answer.confidence, reasoning: `${answer.reasoning}${note}` };
  if (!byName.has(main.toolName)) return { choices: [main], reasoning: main.reasoning };
  const alternatives = (answer.alternatives ?? [])
    .filter((a) => isObject(a) && typeof a.tool === "string" && a.tool !== answer.tool)
    .map((a): Choice => ({ toolName: a.tool, params: {}, confidence: typeof a.confidence === "number" ? a.confidence : 0, reasoning: "An alternative the model named." }));
  return { choices: [main, ...alternatives], reasoning: main.reasoning };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
