// A scripted Anthropic Messages API server: the test double of a remote model API (DESIGN.md,
// Tests), so that the real `@anthropic-ai/sdk` client and the gateway's /v1/messages door run
// against HTTP. It serves POST /v1/messages from the test's script, a message or its stream
// of events, and records every request and the exact text of every answer.
import type { IncomingMessage, ServerResponse } from "node:http";
import { replyEvents, replyJson, sleep, startScriptedHttp } from "./scripted-http.js";

/** One Messages request as the server received it. */
export interface RecordedMessagesRequest {
  model: string;
  /** The names of the request's tools, in order ([] without tools). */
  tools: string[];
  /** The request's tools as sent. */
  toolEntries: Record<string, unknown>[];
  messages: unknown[];
  /** The x-api-key header. */
  apiKey: string | undefined;
  authorization: string | undefined;
  /** The anthropic-version header. */
  version: string | undefined;
  stream: boolean;
}

/** What the server answers to one Messages request. */
export type MessagesAnswer =
  /** A message with this text, then these tool_use blocks. */
  | { text: string; toolUses?: { name: string; input: Record<string, unknown> }[]; delayMs?: number }
  /** An Anthropic-style error with this HTTP status. */
  | { status: number; message?: string };

/** Answers Messages request number `index` (0-based, over the server's life). */
export type MessagesScript = (request: RecordedMessagesRequest, index: number) => MessagesAnswer;

export interface ScriptedAnthropicServer {
  /** Base URL for the client and ANTHROPIC_BASE_URL (no /v1). */
  readonly url: string;
  readonly requests: RecordedMessagesRequest[];
  /** The text of each answer as sent (JSON or the events of a stream), in order. */
  readonly answers: string[];
  close(): Promise<void>;
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startScriptedAnthropicServer(script: MessagesScript): Promise<ScriptedAnthropicServer> {
  const requests: RecordedMessagesRequest[] = [];
  const answers: string[] = [];
  const messages = async (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const toolEntries = (body["tools"] as Record<string, unknown>[] | undefined) ?? [];
    const request: RecordedMessagesRequest = {
      model: String(body["model"] ?? ""),
      tools: toolEntries.map((t) => String(t["name"])),
      toolEntries,
      messages: (body["messages"] as unknown[] | undefined) ?? [],
      apiKey: header(req, "x-api-key"),
      authorization: header(req, "authorization"),
      version: header(req, "anthropic-version"),
      stream: body["stream"] === true,
    };
    requests.push(request);
    answers.push(await answer(script(request, requests.length - 1), request, requests.length, res));
  };
  const { port, close } = await startScriptedHttp({ "/v1/messages": messages }, error);
  return { url: `http://127.0.0.1:${port}`, requests, answers, close };
}

async function answer(scripted: MessagesAnswer, request: RecordedMessagesRequest, n: number, res: ServerResponse): Promise<string> {
  if ("status" in scripted) return replyJson(res, scripted.status, error(scripted.message ?? "scripted failure"));
  if (scripted.delayMs) await sleep(scripted.delayMs);
  const uses = (scripted.toolUses ?? []).map((use, i) => ({ type: "tool_use", id: `toolu_scripted_${n}_${i}`, ...use }));
  const message = {
    id: `msg_scripted_${n}`,
    type: "message",
    role: "assistant",
    model: request.model,
    content: [{ type: "text", text: scripted.text }, ...uses],
    stop_reason: uses.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!request.stream) return replyJson(res, 200, message);
  // A message's events: start, each block (the text a word at a time, a tool's input whole), the stop reason, stop.
  const events: object[] = [{ type: "message_start", message: { ...message, content: [], stop_reason: null } }];
  events.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  for (const text of scripted.text.match(/\S+\s*/g) ?? []) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
  events.push({ type: "content_block_stop", index: 0 });
  uses.forEach(({ input, ...use }, i) => {
    events.push({ type: "content_block_start", index: i + 1, content_block: { ...use, input: {} } });
    events.push({ type: "content_block_delta", index: i + 1, delta: { type: "input_json_delta", partial_json: JSON.stringify(input) } });
    events.push({ type: "content_block_stop", index: i + 1 });
  });
  events.push({ type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 1 } });
  events.push({ type: "message_stop" });
  return replyEvents(res, events);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

function error(message: string) {
  return { type: "error", error: { type: "scripted_error", message } };
}
