/**
 * `POST /v1/responses`: the OpenAI Responses API, which the OpenAI Agents SDK speaks by default.
 * A request's function tools are trimmed as on every model door (model-tools.ts) and the request
 * goes to LLM_BASE_URL's /responses; the answer comes back as it was sent, streamed when asked
 * (model-upstream.ts). A conversation continued by `previous_response_id` carries only the new
 * items, so the gateway remembers, per answered response, the tools its conversation used and
 * those it offered (in the MCP_SESSIONS bucket, with its TTL, so that every replica knows): the
 * used ones stay offered, and a request with only tool results goes on with the same tools.
 */
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { Type } from "@fastify/type-provider-typebox";
import type { Static } from "@fastify/type-provider-typebox";
import type { FunctionTool, Response, ResponseInputItem, ResponseStreamEvent, Tool, ToolChoiceFunction } from "openai/resources/responses/responses";
import type { GatewayDeps } from "../../shared/deps.js";
import { GatewayError } from "../../shared/deps.js";
import { offeredToolNames, textOf, toolsUsed } from "../../shared/model-api/model-tools.js";
import type { Conversation, MessageLimits, RoutableTool } from "../../shared/model-api/model-tools.js";
import { modelDoor } from "../../shared/model-api/model-door.js";
import { openAiError, openAiUpstream } from "../../shared/model-api/model-upstream.js";
import type { AnswerReader, ProxySettings } from "../../shared/model-api/model-upstream.js";

/** The most tools one remembered response lists; the oldest go first. */
const REMEMBERED_TOOLS = 128;

const ToolEntry = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });
/** What the door reads of a Responses request; everything else goes upstream untouched. */
const ResponsesRequest = Type.Object(
  {
    input: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))])),
    previous_response_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    tools: Type.Optional(Type.Array(ToolEntry)),
    tool_choice: Type.Optional(Type.Unknown()),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
type ResponsesRequestBody = Static<typeof ResponsesRequest>;

/** The route; register it inside the guarded API context (app.ts), so keys, tenants and limits apply. */
export function openAiResponses(deps: GatewayDeps, settings: ProxySettings, limits: MessageLimits): FastifyPluginAsync {
  return modelDoor({
    path: "/v1/responses",
    operationId: "responses",
    protocol: { name: "The OpenAI Responses API", url: "https://platform.openai.com/docs/api-reference/responses" },
    setting: "LLM_BASE_URL",
    errors: { name: "OpenAI's", shape: openAiError },
    body: ResponsesRequest,
    example: {
      model: "gpt-4.1-mini",
      input: "Weather in Paris?",
      tools: [{ type: "function", name: "get_weather", description: "Current weather in a city", strict: false, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }],
    },
    timeoutMs: settings.timeoutMs,
    upstream: () => openAiUpstream(settings, "/responses"),
    async trim(request, untyped) {
      const body = untyped as ResponsesRequestBody;
      const tools = (body.tools ?? []) as Tool[];
      const functions = tools.flatMap((tool, i) => (tool.type === "function" ? [named(tool, i)] : []));
      const conversation = conversationOf(body.input as string | ResponseInputItem[] | undefined, body.tool_choice);
      const earlier = body.previous_response_id ? await remembered(deps, request.tenant, body.previous_response_id) : undefined;
      const route = { tools: functions.map(routableTool), conversation, keep: earlier?.used ?? [], ...(earlier ? { carried: earlier.offered } : {}) };
      const offered = await offeredToolNames(deps, request.tenant, route, limits, settings.topK);
      // The provider's own tools go as they came.
      const sent = tools.flatMap<Tool>((t) => (t.type !== "function" ? [t] : offered.has(t.name) ? [undeferred(t)] : []));
      const used = [...(earlier?.used ?? []), ...toolsUsed(conversation)];
      return { sent, offered, reader: { ...responsesAnswers, seen: remember(deps, request, used, [...offered]) } };
    },
  });
}

/** A function tool with its name, or a 400 naming the tool that has none. */
function named(tool: FunctionTool, index: number): FunctionTool {
  if (typeof tool.name !== "string" || tool.name === "" || tool.name.length > 128) {
    throw new GatewayError("invalid", "a function tool needs a name of 1 to 128 characters", `tools/${index}/name`);
  }
  return tool;
}

function routableTool(tool: FunctionTool): RoutableTool {
  return { name: tool.name, description: tool.description ?? "", parameters: tool.parameters ?? {}, deferred: tool.defer_loading === true };
}

/** A tool as the upstream gets it: one routing picked is shown to the model, not left to the provider's tool search. */
function undeferred(tool: FunctionTool): FunctionTool {
  if (tool.defer_loading === undefined) return tool;
  const { defer_loading: _deferred, ...shown } = tool;
  return shown;
}

/** The input as routing reads it: text (one user message) or items, function calls among them. */
function conversationOf(input: string | readonly ResponseInputItem[] | undefined, choice: unknown): Conversation {
  const chosen = (choice as ToolChoiceFunction | undefined)?.type === "function" ? (choice as ToolChoiceFunction).name : "";
  if (typeof input === "string") return { field: "input", chosen, messages: [{ role: "user", text: input, calls: [], field: "input" }] };
  return {
    field: "input",
    chosen,
    messages: (input ?? []).map((item, i) => {
      const field = `input/${i}/content`;
      if (item.type === "function_call") return { role: "assistant" as const, text: "", calls: [item.name], field };
      if (!("role" in item) || (item.type !== undefined && item.type !== "message")) return { role: "other" as const, text: "", calls: [], field };
      return { role: item.role === "user" || item.role === "assistant" ? item.role : ("other" as const), text: textOf(item.content), calls: [], field };
    }),
  };
}

/** Tool calls in a response (its function_call items) and in a stream (each function_call item as it is added). */
const responsesAnswers: AnswerReader = {
  calls: (answer) => functionCalls((answer as Partial<Response>).output),
  streamedCalls: (event) => {
    const added = event as ResponseStreamEvent;
    return added.type === "response.output_item.added" ? functionCalls([added.item]) : [];
  },
};

function functionCalls(output: unknown): string[] {
  if (!Array.isArray(output)) return [];
  return (output as Response["output"]).flatMap((item) => (item?.type === "function_call" && typeof item.name === "string" ? [item.name] : []));
}

/** A remembered response's conversation: the tools it used, those it offered. */
interface Remembered {
  used: string[];
  offered: string[];
}

/** Session keys in the MCP_SESSIONS bucket; a response id's are its tenant's (the store hashes both). */
const usedKey = (id: string) => `responses/used/${id}`;
const offeredKey = (id: string) => `responses/offered/${id}`;

async function remembered(deps: GatewayDeps, tenant: string, id: string): Promise<Remembered> {
  const [used, offered] = await Promise.all([deps.sessionTools(tenant, usedKey(id)), deps.sessionTools(tenant, offeredKey(id))]);
  return { used, offered };
}

/**
 * Remembers a finished response's conversation under its id (a whole answer, or a stream's
 * response.completed event): before the answer goes on, so a continuation that follows at once
 * finds it. A store that fails costs the next turn its memory, not this answer.
 */
function remember(deps: GatewayDeps, request: FastifyRequest, used: readonly string[], offered: readonly string[]) {
  return async (answerOrEvent: unknown): Promise<void> => {
    const event = answerOrEvent as Partial<ResponseStreamEvent> & Partial<Response>;
    const response = event.object === "response" ? (event as Response) : event.type === "response.completed" ? event.response : undefined;
    if (!response?.id) return;
    const conversation = [...new Set([...used, ...functionCalls(response.output)])];
    try {
      await Promise.all([
        deps.exposeInSession(request.tenant, usedKey(response.id), conversation, REMEMBERED_TOOLS),
        deps.exposeInSession(request.tenant, offeredKey(response.id), offered, REMEMBERED_TOOLS),
      ]);
    } catch (error) {
      request.log.warn({ err: error, response: response.id }, "a response's tools could not be remembered for its conversation");
    }
  };
}
