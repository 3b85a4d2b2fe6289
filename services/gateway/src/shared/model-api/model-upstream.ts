/**
 * The upstream model APIs behind the model-API doors, and the way each answer comes back: as
 * it was sent, byte for byte, streamed when asked, with `x-switchyard-tools: 240->6` saying what
 * was trimmed and a tool call for a tool that was not offered flagged
 * (`x-switchyard-unoffered-tools` on a whole answer, a warning in the log on a stream).
 */
import { pipeline, Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { defaultConfig } from "../../config.js";
import { GatewayError } from "../deps.js";
import { httpErrorOf } from "../errors.js";
import type { ErrorBody } from "../errors.js";

export interface ProxySettings {
  /** LLM_BASE_URL: the OpenAI-compatible API of /v1/chat/completions and /v1/responses, up to /v1; empty: OpenAI's when apiKey is set. */
  baseUrl: string;
  /** LLM_API_KEY. */
  apiKey: string;
  /** ANTHROPIC_BASE_URL: the Messages API of /v1/messages, without /v1; empty: Anthropic's when anthropicApiKey is set. @default "" */
  anthropicBaseUrl?: string;
  /** ANTHROPIC_API_KEY. @default "" */
  anthropicApiKey?: string;
  /** Tools routed to the model, besides those always kept. */
  topK: number;
  timeoutMs: number;
}

/** The settings' defaults (config.ts). */
export const DEFAULT_PROXY_SETTINGS: ProxySettings = {
  baseUrl: defaultConfig.LLM_BASE_URL,
  apiKey: defaultConfig.LLM_API_KEY,
  anthropicBaseUrl: defaultConfig.ANTHROPIC_BASE_URL,
  anthropicApiKey: defaultConfig.ANTHROPIC_API_KEY,
  topK: defaultConfig.PROXY_TOP_K,
  timeoutMs: defaultConfig.PROXY_TIMEOUT_MS,
};

export const TOOLS_HEADER = "x-switchyard-tools";
export const UNOFFERED_HEADER = "x-switchyard-unoffered-tools";

/** Where a door sends its request: a URL and the headers that authenticate it, or the setting that would name one. */
export type Upstream = { url: string; headers: Record<string, string> } | { unset: string };

const OPENAI_BASE_URL = "https://api.openai.com/v1";
const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The Messages API version asked for when the caller names none. */
const ANTHROPIC_VERSION = "2023-06-01";

/** The OpenAI-compatible upstream's `path` (/chat/completions, /responses): LLM_BASE_URL's, or OpenAI's when only LLM_API_KEY is set. */
export function openAiUpstream(settings: ProxySettings, path: string): Upstream {
  const base = settings.baseUrl || (settings.apiKey ? OPENAI_BASE_URL : "");
  if (!base) return { unset: "LLM_BASE_URL (or LLM_API_KEY for OpenAI's API)" };
  return { url: `${base.replace(/\/+$/, "")}${path}`, headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {} };
}

/**
 * The Messages API upstream: ANTHROPIC_BASE_URL's, or Anthropic's when only ANTHROPIC_API_KEY is
 * set, with that key and the caller's API version and beta flags (the caller's own key stays here).
 */
export function anthropicUpstream(settings: ProxySettings, caller: FastifyRequest["headers"] = {}): Upstream {
  const key = settings.anthropicApiKey ?? "";
  const base = settings.anthropicBaseUrl || (key ? ANTHROPIC_BASE_URL : "");
  if (!base) return { unset: "ANTHROPIC_BASE_URL (or ANTHROPIC_API_KEY for Anthropic's API)" };
  const version = caller["anthropic-version"];
  const beta = caller["anthropic-beta"];
  return {
    url: `${base.replace(/\/+$/, "")}/v1/messages`,
    headers: {
      "anthropic-version": typeof version === "string" ? version : ANTHROPIC_VERSION,
      ...(typeof beta === "string" ? { "anthropic-beta": beta } : {}),
      ...(key ? { "x-api-key": key } : {}),
    },
  };
}

/** Each model door's upstream URL, or the setting it waits for: said in the gateway's ready line. */
export function modelDoorUpstreams(settings: ProxySettings): Record<string, string> {
  const said = (upstream: Upstream) => ("unset" in upstream ? `none: set ${upstream.unset}` : upstream.url);
  return {
    "/v1/chat/completions": said(openAiUpstream(settings, "/chat/completions")),
    "/v1/responses": said(openAiUpstream(settings, "/responses")),
    "/v1/messages": said(anthropicUpstream(settings)),
  };
}

/** The upstream to call, or a 503 naming the setting that is missing (not a 502 from a host nobody chose). */
export function configuredUpstream(upstream: Upstream, door: string): { url: string; headers: Record<string, string> } {
  if ("unset" in upstream) throw new GatewayError("unavailable", `${door} has no upstream model: set ${upstream.unset}`);
  return upstream;
}

/** How a door finds the tool calls in its API's answers. */
export interface AnswerReader {
  /** The tools a whole (JSON) answer calls. */
  calls(answer: unknown): string[];
  /** The tools one server-sent event's data calls. */
  streamedCalls(event: unknown): string[];
  /** Sees each parsed answer or event before it goes on to the client (a door that remembers conversations). */
  seen?(answerOrEvent: unknown): Promise<void> | void;
}

/** One request to forward and what to watch for in its answer. */
export interface Forward {
  upstream: { url: string; headers: Record<string, string> };
  body: object;
  stream: boolean;
  timeoutMs: number;
  /** `x-switchyard-tools`: the request's tool count and the upstream's. */
  trimmed: { from: number; to: number };
  /** The names of the tools the upstream was offered. */
  offered: ReadonlySet<string>;
  reader: AnswerReader;
}

/** Sends the request upstream and its answer back as it came, status and bytes; a stream as it arrives. */
export async function forwardAnswer(request: FastifyRequest, reply: FastifyReply, forward: Forward): Promise<FastifyReply> {
  const { offered, reader } = forward;
  // A client that goes away takes its upstream request with it.
  const gone = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  const upstream = await callUpstream(forward, gone.signal);
  void reply.code(upstream.status).header(TOOLS_HEADER, `${forward.trimmed.from}->${forward.trimmed.to}`);
  const type = upstream.headers.get("content-type");
  if (type) void reply.type(type);
  const flag = (names: string[]) => request.log.warn({ tools: names, offered: [...offered] }, "the model called a tool that was not offered");
  if (forward.stream && upstream.ok && upstream.body) {
    // pipeline, not pipe: the upstream's end by abort (the client left) or failure closes the answer instead of going unhandled.
    const watched = eventWatch(offered, reader, flag);
    pipeline(Readable.fromWeb(upstream.body as WebReadableStream), watched, (error) => {
      if (error && !gone.signal.aborted) request.log.warn({ err: error }, "the upstream's stream failed");
    });
    return reply.send(watched);
  }
  const text = await upstream.text();
  const answer = upstream.ok ? parsed(text) : undefined;
  if (answer !== undefined) {
    const unoffered = reader.calls(answer).filter((name) => !offered.has(name));
    if (unoffered.length > 0) {
      flag(unoffered);
      void reply.header(UNOFFERED_HEADER, unoffered.join(","));
    }
    await reader.seen?.(answer);
  }
  return reply.send(text);
}

/** The upstream's answer; `gone` aborts the request (and a stream being read) when the client leaves. */
async function callUpstream({ upstream, body, timeoutMs }: Forward, gone: AbortSignal): Promise<Response> {
  try {
    return await fetch(upstream.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...upstream.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), gone]),
    });
  } catch (error) {
    throw new GatewayError("upstream", `the upstream model at ${upstream.url} did not answer: ${(error as Error).message}`);
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Passes a server-sent-events stream through unchanged, flagging each tool call for a tool that
 * was not offered; an event the reader wants to see holds its chunk until the reader is done.
 */
function eventWatch(offered: ReadonlySet<string>, reader: AnswerReader, flag: (names: string[]) => void): Transform {
  let pending = "";
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      const seen: (Promise<void> | void)[] = [];
      for (const line of lines) {
        // Anthropic's and OpenAI's events alike carry their JSON on "data: " lines; "[DONE]" and comments pass as they are.
        const event = line.startsWith("data: ") ? parsed(line.slice(6)) : undefined;
        if (event === undefined) continue;
        const unoffered = reader.streamedCalls(event).filter((name) => !offered.has(name));
        if (unoffered.length > 0) flag(unoffered);
        seen.push(reader.seen?.(event));
      }
      void Promise.all(seen).then(() => done(null, chunk), done);
    },
  });
}

/** Answers a model door's errors in its API's own shape, which the API's clients read the message from. */
export function modelApiErrors(app: FastifyInstance, shape: (body: ErrorBody) => object): void {
  app.setErrorHandler((error, request, reply) => {
    const body = httpErrorOf(error);
    if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(body.statusCode).send(shape(body));
  });
}

/** OpenAI's error shape (chat completions and responses). */
export function openAiError(body: ErrorBody): object {
  const type = body.statusCode === 400 ? "invalid_request_error" : body.statusCode >= 500 ? "api_error" : body.error.toLowerCase().replace(/ /g, "_");
  return { error: { message: body.message, type, param: body.field ?? null, code: null } };
}
