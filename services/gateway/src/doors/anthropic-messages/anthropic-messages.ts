/**
 * `POST /v1/messages`: the Anthropic Messages API, for agents built on Claude. A request's tools
 * are trimmed as on every model door (model-tools.ts): routed on the latest user turn, the best
 * PROXY_TOP_K, the catalog's core tools, the tool `tool_choice` names and those already used
 * in the conversation; a tool with `defer_loading: true` only when routing picks it. The request
 * goes to ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY (never the caller's key) and the answer
 * comes back as it was sent, streamed when asked (model-upstream.ts). The provider's own tools
 * (web search, its tool search, …) have no schema to route on and go as they came.
 */
import type { FastifyPluginAsync } from "fastify";
import { Type } from "@fastify/type-provider-typebox";
import type { Static } from "@fastify/type-provider-typebox";
import type { ContentBlock, MessageParam, RawMessageStreamEvent, Tool, ToolChoice, ToolUnion } from "@anthropic-ai/sdk/resources/messages";
import type { GatewayDeps } from "../../shared/deps.js";
import type { ErrorBody } from "../../shared/errors.js";
import { offeredToolNames, textOf } from "../../shared/model-api/model-tools.js";
import type { Conversation, MessageLimits, RoutableTool } from "../../shared/model-api/model-tools.js";
import { modelDoor } from "../../shared/model-api/model-door.js";
import { anthropicUpstream } from "../../shared/model-api/model-upstream.js";
import type { AnswerReader, ProxySettings } from "../../shared/model-api/model-upstream.js";

const ToolEntry = Type.Object({ name: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: true });
const Message = Type.Object({ role: Type.String({ minLength: 1 }), content: Type.Unknown() }, { additionalProperties: true });
/** What the door reads of a Messages request; everything else goes upstream untouched. */
const MessagesRequest = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: Type.Array(Message, { minItems: 1 }),
    tools: Type.Optional(Type.Array(ToolEntry)),
    tool_choice: Type.Optional(Type.Unknown()),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
type MessagesRequestBody = Static<typeof MessagesRequest>;

/** The route; register it inside the guarded API context (app.ts), so keys, tenants and limits apply. */
export function anthropicMessages(deps: GatewayDeps, settings: ProxySettings, limits: MessageLimits): FastifyPluginAsync {
  return modelDoor({
    path: "/v1/messages",
    operationId: "messages",
    protocol: { name: "The Anthropic Messages API", url: "https://docs.anthropic.com/en/api/messages" },
    setting: "ANTHROPIC_BASE_URL",
    errors: { name: "Anthropic's", shape: anthropicError },
    body: MessagesRequest,
    example: {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [{ name: "get_weather", description: "Current weather in a city", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }],
    },
    timeoutMs: settings.timeoutMs,
    upstream: (request) => anthropicUpstream(settings, request.headers),
    async trim(request, untyped) {
      const body = untyped as MessagesRequestBody;
      const tools = (body.tools ?? []) as ToolUnion[];
      const conversation = conversationOf(body.messages as MessageParam[], body.tool_choice as ToolChoice | undefined);
      const offered = await offeredToolNames(deps, request.tenant, { tools: tools.filter(isCustomTool).map(routableTool), conversation }, limits, settings.topK);
      // The provider's own tools go as they came.
      const sent = tools.flatMap<ToolUnion>((t) => (!isCustomTool(t) ? [t] : offered.has(t.name) ? [undeferred(t)] : []));
      return { sent, offered, reader: messagesAnswers };
    },
  });
}

/** A tool of the caller's own (a name, a description, an input schema), not one the provider runs. */
function isCustomTool(tool: ToolUnion): tool is Tool {
  return "input_schema" in tool && (tool.type === undefined || tool.type === null || tool.type === "custom");
}

function routableTool(tool: Tool): RoutableTool {
  return { name: tool.name, description: tool.description ?? "", parameters: tool.input_schema, deferred: tool.defer_loading === true };
}

/** A tool as the upstream gets it: one routing picked is shown to the model, not left to the provider's tool search. */
function undeferred(tool: Tool): Tool {
  if (tool.defer_loading === undefined) return tool;
  const { defer_loading: _deferred, ...shown } = tool;
  return shown;
}

/** The conversation as routing reads it: a user message is a turn when it has text, not only tool results. */
function conversationOf(messages: readonly MessageParam[], choice: ToolChoice | undefined): Conversation {
  return {
    field: "messages",
    chosen: choice?.type === "tool" ? choice.name : "",
    messages: messages.map((m, i) => ({
      role: m.role === "user" || m.role === "assistant" ? m.role : "other",
      text: textOf(m.content),
      calls: Array.isArray(m.content) ? m.content.flatMap((block) => (block.type === "tool_use" ? [block.name] : [])) : [],
      field: `messages/${i}/content`,
    })),
  };
}

/** Tool calls in a message (its tool_use blocks) and in a stream (each tool_use block as it starts). */
const messagesAnswers: AnswerReader = {
  calls: (answer) => toolUses((answer as { content?: unknown }).content),
  streamedCalls: (event) => {
    const started = event as RawMessageStreamEvent;
    return started.type === "content_block_start" ? toolUses([started.content_block]) : [];
  },
};

function toolUses(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return (content as ContentBlock[]).flatMap((block) => (block?.type === "tool_use" && typeof block.name === "string" ? [block.name] : []));
}

/** The Messages API's error types by status. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
};

/** Anthropic's error shape, which its clients read the message from. */
function anthropicError(body: ErrorBody): object {
  const message = body.field && !body.message.includes(body.field) ? `${body.field}: ${body.message}` : body.message;
  return { type: "error", error: { type: ERROR_TYPES[body.statusCode] ?? "api_error", message } };
}
