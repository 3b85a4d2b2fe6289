/**
 * `POST /v1/chat/completions`: an OpenAI-compatible proxy for agents that already speak the chat
 * API with `tools`. A request with more tools than the model should see is routed on its latest
 * user turn by the embedding-routers (the caller's own tools, ranked as the catalog's are); the
 * upstream model (LLM_BASE_URL) gets only the best PROXY_TOP_K, the catalog's core tools among
 * them, the tool `tool_choice` names and those already called in the conversation; a tool with
 * `defer_loading: true` only when routing picks it (model-tools.ts). Its answer comes back as it
 * was sent, streamed when asked (model-upstream.ts).
 */
import type { FastifyPluginAsync } from "fastify";
import { Type } from "@fastify/type-provider-typebox";
import type { Static } from "@fastify/type-provider-typebox";
import type { GatewayDeps } from "../../shared/deps.js";
import { offeredToolNames, textOf } from "../../shared/model-api/model-tools.js";
import type { Conversation, MessageLimits, RoutableTool } from "../../shared/model-api/model-tools.js";
import { modelDoor } from "../../shared/model-api/model-door.js";
import { openAiError, openAiUpstream } from "../../shared/model-api/model-upstream.js";
import type { AnswerReader, ProxySettings } from "../../shared/model-api/model-upstream.js";

const FunctionTool = Type.Object(
  {
    type: Type.Literal("function"),
    function: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 64 }),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
const Message = Type.Object({ role: Type.String({ minLength: 1 }), content: Type.Optional(Type.Unknown()) }, { additionalProperties: true });
/** What the proxy reads of a chat request; everything else goes upstream untouched. */
export const ChatRequest = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: Type.Array(Message, { minItems: 1 }),
    tools: Type.Optional(Type.Array(FunctionTool)),
    tool_choice: Type.Optional(Type.Unknown()),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
type ChatRequestBody = Static<typeof ChatRequest>;
type FunctionToolBody = Static<typeof FunctionTool>;

/** The route; register it inside the guarded API context (app.ts), so keys, tenants and limits apply. */
export function openAiProxy(deps: GatewayDeps, settings: ProxySettings, limits: MessageLimits): FastifyPluginAsync {
  return modelDoor({
    path: "/v1/chat/completions",
    operationId: "chatCompletions",
    protocol: { name: "The OpenAI Chat Completions API", url: "https://platform.openai.com/docs/api-reference/chat" },
    setting: "LLM_BASE_URL",
    errors: { name: "OpenAI's", shape: openAiError },
    body: ChatRequest,
    example: {
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [{ type: "function", function: { name: "get_weather", description: "Current weather in a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }],
    },
    timeoutMs: settings.timeoutMs,
    upstream: () => openAiUpstream(settings, "/chat/completions"),
    async trim(request, untyped) {
      const body = untyped as ChatRequestBody;
      const tools = body.tools ?? [];
      const route = { tools: tools.map(routableTool), conversation: conversationOf(body) };
      const offered = await offeredToolNames(deps, request.tenant, route, limits, settings.topK);
      return { sent: tools.filter((t) => offered.has(t.function.name)).map(undeferred), offered, reader: chatAnswers };
    },
  });
}

/** `defer_loading`, on the tool or on its function (the chat API has no place of its own for it). */
type Deferrable = { defer_loading?: unknown };

/** A chat tool as routing reads it. */
function routableTool(tool: FunctionToolBody): RoutableTool {
  const { name, description, parameters } = tool.function;
  const deferred = (tool as Deferrable).defer_loading === true || (tool.function as Deferrable).defer_loading === true;
  return { name, description: description ?? "", parameters: parameters ?? {}, deferred };
}

/** A tool as the upstream gets it: one routing picked is no longer deferred. */
function undeferred(tool: FunctionToolBody): FunctionToolBody {
  const { defer_loading: outer, ...rest } = tool as FunctionToolBody & Deferrable;
  const { defer_loading: inner, ...fn } = tool.function as FunctionToolBody["function"] & Deferrable;
  return outer === undefined && inner === undefined ? tool : { ...rest, function: fn };
}

function conversationOf(body: ChatRequestBody): Conversation {
  return {
    field: "messages",
    chosen: chosenTool(body.tool_choice),
    messages: body.messages.map((m, i) => ({
      role: m.role === "user" || m.role === "assistant" ? m.role : "other",
      text: textOf(m.content),
      calls: toolCallNames((m as { tool_calls?: unknown }).tool_calls),
      field: `messages/${i}/content`,
    })),
  };
}

function chosenTool(choice: unknown): string {
  const name = (choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  return typeof name === "string" ? name : "";
}

function toolCallNames(calls: unknown): string[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: { function?: { name?: unknown } }) => (typeof call?.function?.name === "string" ? [call.function.name] : []));
}

/** Tool calls in a chat completion (choices' messages) and in its chunks (choices' deltas). */
const chatAnswers: AnswerReader = {
  calls: (answer) => ((answer as { choices?: { message?: { tool_calls?: unknown } }[] }).choices ?? []).flatMap((c) => toolCallNames(c.message?.tool_calls)),
  streamedCalls: (event) => ((event as { choices?: { delta?: { tool_calls?: unknown } }[] }).choices ?? []).flatMap((c) => toolCallNames(c.delta?.tool_calls)),
};
