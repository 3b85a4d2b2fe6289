// A scripted OpenAI-compatible HTTP server: the test double of a remote model API
// (DESIGN.md, Tests), so that the real `openai` client and the product's model code run
// against HTTP. It serves POST /v1/embeddings (vectors from the test's `embed` function),
// POST /v1/chat/completions (answers from the test's `chat` script) and POST /v1/responses
// (answers from its `responses` script), records every request, and fails, stalls or
// answers with the wrong dimension when a test says so.
import type { IncomingMessage, ServerResponse } from "node:http";
import { replyJson as reply, sleep, startScriptedHttp } from "./scripted-http.js";
import { respond } from "./scripted-responses.js";
import type { RecordedResponsesRequest, ResponsesScript } from "./scripted-responses.js";

/** One embeddings request as the server received it. */
export interface RecordedRequest {
  model: string;
  input: string[];
  dimensions: number | undefined;
  encodingFormat: string | undefined;
  authorization: string | undefined;
}

/** One chat request as the server received it. */
export interface RecordedChatRequest {
  model: string;
  temperature: number | undefined;
  messages: { role: string; content: string }[];
  /** The request's `response_format`, as sent. */
  responseFormat: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean } } | undefined;
  authorization: string | undefined;
  /** The names of the request's `tools`, in order ([] without tools). */
  tools: string[];
  /** The request asked for a stream of server-sent events. */
  stream: boolean;
}

/** What the server answers to one chat request. */
export type ChatAnswer =
  /**
   * A completion whose message content is this text (use JSON.stringify for JSON), with these
   * tool calls and this token usage (default: 1 prompt, 1 completion token); streamed as
   * chat.completion.chunk events when the request asks for a stream.
   */
  | { content: string; toolCalls?: { name: string; arguments: string }[]; delayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } }
  /** An OpenAI-style error with this HTTP status. */
  | { status: number; message?: string; delayMs?: number };

/** Answers chat request number `index` (0-based, over the server's life). */
export type ChatScript = (request: RecordedChatRequest, index: number) => ChatAnswer;

/** What the server does with the next embeddings requests; tests change it between calls. */
export interface Script {
  /** Answer every request with this HTTP status and an OpenAI-style error body. */
  failWith?: number;
  /** Answer vectors of this length, whatever the model's dimension or the request asks. */
  wrongDimension?: number;
  /** Wait this long before answering (to run into the client's timeout). */
  delayMs?: number;
}

export interface ScriptedOpenAIServerOptions {
  /** The embedding model's own vector length (a request's `dimensions` overrides it). @default 64 */
  dimensions?: number;
  /** The model's vector of `text`, `length` long (the request's `dimensions`, else the model's); absent: /v1/embeddings answers 404. */
  embed?: (text: string, length: number) => number[];
  /** Chat answers; absent: /v1/chat/completions answers 404. */
  chat?: ChatScript;
  /** Responses API answers; absent: /v1/responses answers 404. */
  responses?: ResponsesScript;
}

export interface ScriptedOpenAIServer {
  /** Base URL for the client, ending in /v1. */
  readonly url: string;
  readonly dimensions: number;
  readonly requests: RecordedRequest[];
  readonly chatRequests: RecordedChatRequest[];
  /** The /v1/responses requests, in order. */
  readonly responsesRequests: RecordedResponsesRequest[];
  /** The text of each /v1/responses answer as sent (JSON or the events of a stream), in order. */
  readonly responsesAnswers: string[];
  script: Script;
  chat: ChatScript | undefined;
  /** Every text embedded so far, in order, over all requests. */
  inputs(): string[];
  close(): Promise<void>;
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startScriptedOpenAIServer(options: ScriptedOpenAIServerOptions = {}): Promise<ScriptedOpenAIServer> {
  const dimensions = options.dimensions ?? 64;
  const requests: RecordedRequest[] = [];
  const chatRequests: RecordedChatRequest[] = [];
  const responsesRequests: RecordedResponsesRequest[] = [];
  const responsesAnswers: string[] = [];
  const state: { script: Script; chat: ChatScript | undefined } = { script: {}, chat: options.chat };

  const embeddings = async (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!options.embed) return void reply(res, 404, error("this scripted server has no embedding model"));
    const input = typeof body["input"] === "string" ? [body["input"]] : ((body["input"] as string[] | undefined) ?? []);
    requests.push({
      model: String(body["model"] ?? ""),
      input,
      dimensions: body["dimensions"] as number | undefined,
      encodingFormat: body["encoding_format"] as string | undefined,
      authorization: req.headers.authorization,
    });
    const { failWith, wrongDimension, delayMs } = state.script;
    if (delayMs) await sleep(delayMs);
    if (failWith) return void reply(res, failWith, error("scripted failure"));
    if (input.some((t) => t === "")) return void reply(res, 400, error("input cannot be an empty string"));
    const length = (body["dimensions"] as number | undefined) ?? dimensions;
    const embed = options.embed;
    const vectorOf = (text: string): number[] => {
      const vector = embed(text, length);
      return wrongDimension === undefined ? vector : Array.from({ length: wrongDimension }, (_, i) => vector[i] ?? 0);
    };
    reply(res, 200, {
      object: "list",
      model: body["model"],
      // answered in reverse order: the index, not the position, says which input a vector belongs to
      data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text) })).reverse(),
      usage: { prompt_tokens: input.length, total_tokens: input.length },
    });
  };

  const chat = async (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!state.chat) return void reply(res, 404, error("this scripted server has no chat model"));
    const recorded: RecordedChatRequest = {
      model: String(body["model"] ?? ""),
      temperature: body["temperature"] as number | undefined,
      messages: ((body["messages"] as { role: string; content: unknown }[] | undefined) ?? []).map((m) => ({ role: m.role, content: String(m.content ?? "") })),
      responseFormat: body["response_format"] as RecordedChatRequest["responseFormat"],
      authorization: req.headers.authorization,
      tools: ((body["tools"] as { function?: { name?: string } }[] | undefined) ?? []).map((t) => String(t.function?.name ?? "")),
      stream: body["stream"] === true,
    };
    chatRequests.push(recorded);
    const answer = state.chat(recorded, chatRequests.length - 1);
    if (answer.delayMs) await sleep(answer.delayMs);
    if ("status" in answer) return void reply(res, answer.status, error(answer.message ?? "scripted failure"));
    const id = `chatcmpl-scripted-${chatRequests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = (answer.toolCalls ?? []).map((call, index) => ({ index, id: `call_${index}`, type: "function", function: call }));
    const finish = toolCalls.length > 0 ? "tool_calls" : "stop";
    if (recorded.stream) return streamChunks(res, { id, object: "chat.completion.chunk", created, model: recorded.model }, answer.content, toolCalls, finish);
    const message = { role: "assistant", content: answer.content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) } : {}) };
    reply(res, 200, {
      id,
      object: "chat.completion",
      created,
      model: recorded.model,
      choices: [{ index: 0, finish_reason: finish, message }],
      usage: answer.usage ? { ...answer.usage, total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens } : { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  };

  const responses = async (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!options.responses) return void reply(res, 404, error("this scripted server has no responses model"));
    responsesAnswers.push(await respond(options.responses, responsesRequests, body, req, res));
  };

  const routes = { "/v1/embeddings": embeddings, "/v1/chat/completions": chat, "/v1/responses": responses };
  const { port, close } = await startScriptedHttp(routes, error);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    dimensions,
    requests,
    chatRequests,
    responsesRequests,
    responsesAnswers,
    get script() {
      return state.script;
    },
    set script(script: Script) {
      state.script = script;
    },
    get chat() {
      return state.chat;
    },
    set chat(script: ChatScript | undefined) {
      state.chat = script;
    },
    inputs: () => requests.flatMap((r) => r.input),
    close,
  };
}

/** A completion as server-sent events: the content a word at a time, then the tool calls, the finish reason and [DONE]. */
function streamChunks(res: ServerResponse, head: object, content: string, toolCalls: object[], finish: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (delta: object, finishReason: string | null = null) =>
    res.write(`data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`);
  send({ role: "assistant", content: "" });
  for (const piece of content.match(/\S+\s*/g) ?? []) send({ content: piece });
  if (toolCalls.length > 0) send({ tool_calls: toolCalls });
  send({}, finish);
  res.end("data: [DONE]\n\n");
}

function error(message: string) {
  return { error: { message, type: "scripted", code: null } };
}
