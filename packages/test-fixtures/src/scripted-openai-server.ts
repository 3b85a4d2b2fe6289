// A scripted OpenAI-compatible HTTP server: the test double of a remote model API
// (DESIGN.md, Tests), so that the real `openai` client and the product's model code run
// against HTTP. It serves POST /v1/embeddings (vectors from the test's `embed` function)
// and POST /v1/chat/completions (answers from the test's `chat` script), records every
// request, and fails, stalls or answers with the wrong dimension when a test says so.
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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
}

export interface ScriptedOpenAIServer {
  /** Base URL for the client, ending in /v1. */
  readonly url: string;
  readonly dimensions: number;
  readonly requests: RecordedRequest[];
  readonly chatRequests: RecordedChatRequest[];
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
  const state: { script: Script; chat: ChatScript | undefined } = { script: {}, chat: options.chat };

  const embeddings = async (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!options.embed) return reply(res, 404, error("this scripted server has no embedding model"));
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
    if (failWith) return reply(res, failWith, error("scripted failure"));
    if (input.some((t) => t === "")) return reply(res, 400, error("input cannot be an empty string"));
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
    if (!state.chat) return reply(res, 404, error("this scripted server has no chat model"));
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
    if ("status" in answer) return reply(res, answer.status, error(answer.message ?? "scripted failure"));
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

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const route = req.method === "POST" ? { "/v1/embeddings": embeddings, "/v1/chat/completions": chat }[req.url ?? ""] : undefined;
    if (!route) return reply(res, 404, error(`no route ${req.method} ${req.url}`));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await route(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>, req, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((failure: unknown) => reply(res, 500, error(String(failure))));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    dimensions,
    requests,
    chatRequests,
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
    close: () =>
      new Promise<void>((resolve) => {
        // stalled requests would keep close() waiting
        server.closeAllConnections();
        server.close(() => resolve());
      }),
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function error(message: string) {
  return { error: { message, type: "scripted", code: null } };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
