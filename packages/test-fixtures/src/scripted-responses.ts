// POST /v1/responses of the scripted OpenAI-compatible server: the OpenAI Responses API's
// answers (a response object, or its stream of events) from a test's script.
import type { IncomingMessage, ServerResponse } from "node:http";
import { replyEvents, replyJson, sleep } from "./scripted-http.js";

/** One Responses API request as the server received it. */
export interface RecordedResponsesRequest {
  model: string;
  /** The names of the request's function tools, in order ([] without tools). */
  tools: string[];
  /** The request's tools as sent. */
  toolEntries: Record<string, unknown>[];
  input: unknown;
  previousResponseId: string | undefined;
  authorization: string | undefined;
  stream: boolean;
}

/** What the server answers to one Responses request. */
export type ResponsesAnswer =
  /** A response whose output is a message with this text, then these function calls. */
  | { text: string; functionCalls?: { name: string; arguments: string }[]; delayMs?: number }
  /** An OpenAI-style error with this HTTP status. */
  | { status: number; message?: string };

/** Answers Responses request number `index` (0-based, over the server's life). */
export type ResponsesScript = (request: RecordedResponsesRequest, index: number) => ResponsesAnswer;

/** Records the request in `recorded`, answers it by `script`; resolves to the text sent. */
export async function respond(script: ResponsesScript, recorded: RecordedResponsesRequest[], body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): Promise<string> {
  const toolEntries = (body["tools"] as Record<string, unknown>[] | undefined) ?? [];
  const request: RecordedResponsesRequest = {
    model: String(body["model"] ?? ""),
    tools: toolEntries.filter((t) => t["type"] === "function").map((t) => String(t["name"])),
    toolEntries,
    input: body["input"],
    previousResponseId: body["previous_response_id"] as string | undefined,
    authorization: req.headers.authorization,
    stream: body["stream"] === true,
  };
  recorded.push(request);
  const answer = script(request, recorded.length - 1);
  if ("status" in answer) return replyJson(res, answer.status, { error: { message: answer.message ?? "scripted failure", type: "scripted", param: null, code: null } });
  if (answer.delayMs) await sleep(answer.delayMs);
  const n = recorded.length;
  const message = { type: "message", id: `msg_scripted_${n}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: answer.text, annotations: [] }] };
  const calls = (answer.functionCalls ?? []).map((call, i) => ({ type: "function_call", id: `fc_scripted_${n}_${i}`, call_id: `call_${n}_${i}`, status: "completed", ...call }));
  const output = [message, ...calls];
  const response = {
    id: `resp_scripted_${n}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model: request.model,
    output,
    usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 },
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    previous_response_id: request.previousResponseId ?? null,
  };
  if (!request.stream) return replyJson(res, 200, response);
  // The events a streamed response sends: created, each item added (the text a word at a time), done, completed.
  const events: { type: string; [field: string]: unknown }[] = [{ type: "response.created", response: { ...response, status: "in_progress", output: [] } }];
  output.forEach((item, output_index) => {
    events.push({ type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", ...(item.type === "message" ? { content: [] } : { arguments: "" }) } });
    if (item.type === "message") {
      for (const delta of answer.text.match(/\S+\s*/g) ?? []) events.push({ type: "response.output_text.delta", item_id: item.id, output_index, content_index: 0, delta, logprobs: [] });
    }
    events.push({ type: "response.output_item.done", output_index, item });
  });
  events.push({ type: "response.completed", response });
  return replyEvents(res, events.map((event, sequence_number) => ({ ...event, sequence_number })));
}
