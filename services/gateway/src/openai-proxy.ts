/**
 * `POST /v1/chat/completions`: an OpenAI-compatible proxy for agents that already speak the chat
 * API with `tools`. A request with more tools than the model should see is routed on its latest
 * user turn by the embedding-routers (the caller's own tools, ranked as the catalog's are); the
 * upstream model (LLM_BASE_URL) gets only the best PROXY_TOP_K, the catalog's core tools among
 * them, the tool `tool_choice` names and those already called since the user's turn. Its answer
 * comes back as it was sent, streamed when asked; `x-switchyard-tools: 240->6` says what was
 * trimmed, and a tool call naming a tool that was not offered is flagged
 * (`x-switchyard-unoffered-tools` on a whole answer, a warning in the log on a stream).
 */
import { pipeline, Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { Type } from "@fastify/type-provider-typebox";
import type { Static } from "@fastify/type-provider-typebox";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { RankToolsRequestSchema, ToolDefinitionSchema, turnOf } from "@switchyard/packet";
import type { ToolDefinition, Turn } from "@switchyard/packet";
import { defaultConfig } from "./config.js";
import { httpErrorOf } from "./errors.js";
import type { GatewayDeps } from "./deps.js";
import { GatewayError } from "./deps.js";
import { clientSafe } from "./mcp-tools.js";
import { textOverLimit } from "./requests.js";
import type { GatewayLimits } from "./requests.js";

/** The limits of every door this one applies to the turn it routes on. */
type MessageLimits = Pick<GatewayLimits, "maxMessageChars" | "maxHistoryTurns">;

export interface ProxySettings {
  /** The upstream chat API, up to /v1; empty: OpenAI's. */
  baseUrl: string;
  apiKey: string;
  /** Tools routed to the model, besides those always kept. */
  topK: number;
  timeoutMs: number;
}

/** The settings' defaults (config.ts). */
export const DEFAULT_PROXY_SETTINGS: ProxySettings = {
  baseUrl: defaultConfig.LLM_BASE_URL,
  apiKey: defaultConfig.LLM_API_KEY,
  topK: defaultConfig.PROXY_TOP_K,
  timeoutMs: defaultConfig.PROXY_TIMEOUT_MS,
};

const OPENAI_BASE_URL = "https://api.openai.com/v1";
export const TOOLS_HEADER = "x-switchyard-tools";
export const UNOFFERED_HEADER = "x-switchyard-unoffered-tools";

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
type MessageBody = Static<typeof Message>;

/** The route; register it inside the guarded API context (app.ts), so keys, tenants and limits apply. */
export function openAiProxy(deps: GatewayDeps, settings: ProxySettings, limits: MessageLimits): FastifyPluginAsync {
  return async (app) => {
    // The chat API's own error shape, which OpenAI clients read the message from.
    app.setErrorHandler((error, request, reply) => {
      const body = httpErrorOf(error);
      if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
      const type = body.statusCode === 400 ? "invalid_request_error" : body.statusCode >= 500 ? "api_error" : body.error.toLowerCase().replace(/ /g, "_");
      return reply.code(body.statusCode).send({ error: { message: body.message, type, param: body.field ?? null, code: null } });
    });
    app.post(
      "/v1/chat/completions",
      {
        schema: {
          operationId: "chatCompletions",
          summary: "OpenAI-compatible chat completions: the request's tools trimmed to the turn's best, then the upstream model's answer as is",
          tags: ["route"],
          body: ChatRequest,
          response: {
            200: Type.Unsafe({ description: "The upstream model's answer as it was sent: JSON, or server-sent events with stream: true" }),
            400: Type.Unsafe({ description: "The request is invalid (OpenAI's error shape)" }),
            502: Type.Unsafe({ description: "The upstream model did not answer" }),
          },
        },
      },
      async (request, typedReply) => {
        // The upstream's status goes back as it is, whichever it is: the schema above only documents the usual ones.
        const reply = typedReply as FastifyReply;
        const body = request.body as ChatRequestBody;
        const tools = body.tools ?? [];
        const offered = await offeredTools(deps, request.tenant, body, settings.topK, limits);
        // A client that goes away takes its upstream request with it.
        const gone = new AbortController();
        reply.raw.on("close", () => {
          if (!reply.raw.writableFinished) gone.abort();
        });
        const upstream = await callUpstream(settings, offered === tools ? body : { ...body, tools: offered }, gone.signal);
        const names = new Set(offered.map((t) => t.function.name));
        void reply.code(upstream.status).header(TOOLS_HEADER, `${tools.length}->${offered.length}`);
        const type = upstream.headers.get("content-type");
        if (type) void reply.type(type);
        if (body.stream && upstream.ok && upstream.body) {
          const flag = (name: string) => request.log.warn({ tool: name, offered: [...names] }, "the model called a tool that was not offered");
          // pipeline, not pipe: the upstream's end by abort (the client left) or failure closes the answer instead of going unhandled.
          const watched = unofferedCallWatch(names, flag);
          pipeline(Readable.fromWeb(upstream.body as WebReadableStream), watched, (error) => {
            if (error && !gone.signal.aborted) request.log.warn({ err: error }, "the upstream's stream failed");
          });
          return reply.send(watched);
        }
        const text = await upstream.text();
        const unoffered = unofferedCalls(text, names);
        if (unoffered.length > 0) {
          request.log.warn({ tools: unoffered, offered: [...names] }, "the model called a tool that was not offered");
          void reply.header(UNOFFERED_HEADER, unoffered.join(","));
        }
        return reply.send(text);
      },
    );
  };
}

/**
 * The tools the model gets: all of them when there are no more than `topK`; else the routed
 * best, the catalog's core tools, the one `tool_choice` names and those called since the
 * user's latest turn, in the caller's order.
 */
async function offeredTools(deps: GatewayDeps, tenant: string, body: ChatRequestBody, topK: number, limits: MessageLimits): Promise<FunctionToolBody[]> {
  const tools = body.tools ?? [];
  refuseLongUserTurn(body.messages, limits);
  if (tools.length <= topK) return tools;
  const { message, history } = latestUserTurn(body.messages, limits);
  const ranked = await deps.rankTools(tenant, create(RankToolsRequestSchema, { message, history, topK, tools: tools.map(toolDefinition) }));
  // A core tool may come by its catalog name, its client-safe one (core_clarify) or its server's name for it.
  const core = new Set((await deps.listTools(tenant)).filter((t) => t.core).flatMap((t) => [t.name, clientSafe(t.name), t.serverToolName]));
  const keep = new Set([...ranked.map((c) => c.tool?.name ?? ""), ...calledSinceUserTurn(body.messages), chosenTool(body.tool_choice)]);
  return tools.filter((t) => keep.has(t.function.name) || core.has(t.function.name));
}

function toolDefinition(tool: FunctionToolBody): ToolDefinition {
  return create(ToolDefinitionSchema, {
    name: tool.function.name,
    description: tool.function.description ?? "",
    inputSchema: (tool.function.parameters ?? {}) as JsonObject,
  });
}

/** The latest user message longer than MAX_MESSAGE_CHARS is refused, as a message is on every door. */
function refuseLongUserTurn(messages: readonly MessageBody[], limits: MessageLimits): void {
  const at = messages.findLastIndex((m) => m.role === "user");
  const failure = at >= 0 ? textOverLimit(textOf(messages[at]!.content), limits.maxMessageChars, `messages/${at}/content`, "body") : undefined;
  if (failure) throw new GatewayError("invalid", failure.message, failure.field);
}

/**
 * The latest user message's text, and the user and assistant turns before it: at most
 * MAX_HISTORY_TURNS of them, the latest (an agent's conversation may run long; routing reads
 * its last few turns).
 */
function latestUserTurn(messages: readonly MessageBody[], limits: MessageLimits): { message: string; history: Turn[] } {
  const at = messages.findLastIndex((m) => m.role === "user");
  if (at < 0) throw new GatewayError("invalid", "messages has no user message to route on", "messages");
  const message = textOf(messages[at]!.content);
  const turns = messages
    .slice(0, at)
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => turnOf(m.role, textOf(m.content)))
    .filter((t) => t.content !== "");
  return { message, history: limits.maxHistoryTurns === 0 ? [] : turns.slice(-limits.maxHistoryTurns) };
}

/** A message's text: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((part: { type?: string; text?: unknown }) => (part?.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}

/** Tools the assistant called after the latest user message: the model is mid-way through using them. */
function calledSinceUserTurn(messages: readonly MessageBody[]): string[] {
  const at = messages.findLastIndex((m) => m.role === "user");
  return messages.slice(at + 1).flatMap((m) => toolCallNames((m as { tool_calls?: unknown }).tool_calls));
}

function chosenTool(choice: unknown): string {
  const name = (choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  return typeof name === "string" ? name : "";
}

/** The upstream's answer; `gone` aborts the request (and a stream being read) when the client leaves. */
async function callUpstream(settings: ProxySettings, body: object, gone: AbortSignal): Promise<Response> {
  const url = `${(settings.baseUrl || OPENAI_BASE_URL).replace(/\/+$/, "")}/chat/completions`;
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.any([AbortSignal.timeout(settings.timeoutMs), gone]),
    });
  } catch (error) {
    throw new GatewayError("upstream", `the upstream model at ${url} did not answer: ${(error as Error).message}`);
  }
}

function toolCallNames(calls: unknown): string[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: { function?: { name?: unknown } }) => (typeof call?.function?.name === "string" ? [call.function.name] : []));
}

/** Names of the tool calls in a whole answer that were not offered. */
function unofferedCalls(text: string, offered: ReadonlySet<string>): string[] {
  let answer: { choices?: { message?: { tool_calls?: unknown } }[] };
  try {
    answer = JSON.parse(text);
  } catch {
    return [];
  }
  return (answer.choices ?? []).flatMap((c) => toolCallNames(c.message?.tool_calls)).filter((name) => !offered.has(name));
}

/** Passes a server-sent-events stream through unchanged, telling `flag` of each tool call name that was not offered. */
function unofferedCallWatch(offered: ReadonlySet<string>, flag: (name: string) => void): Transform {
  let pending = "";
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
        try {
          const event = JSON.parse(line.slice(6)) as { choices?: { delta?: { tool_calls?: unknown } }[] };
          for (const name of (event.choices ?? []).flatMap((c) => toolCallNames(c.delta?.tool_calls))) if (!offered.has(name)) flag(name);
        } catch {
          // not JSON: passed on all the same
        }
      }
      done(null, chunk);
    },
  });
}
