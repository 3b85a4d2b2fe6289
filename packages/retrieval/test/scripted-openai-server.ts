// A scripted OpenAI-compatible HTTP server: the test double of a remote
// embedding model API (DESIGN.md, Tests), so that the real `openai` client and
// OpenAIEmbedder code run against HTTP. It serves POST /v1/embeddings, counts
// requests, records their inputs, and fails, stalls or answers with the wrong
// dimension when a test says so.
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LocalEmbedder } from "../src/embedder.js";

/** One request as the server received it. */
export interface RecordedRequest {
  model: string;
  input: string[];
  dimensions: number | undefined;
  encodingFormat: string | undefined;
  authorization: string | undefined;
}

/** What the server does with the next requests; tests change it between calls. */
export interface Script {
  /** Answer every request with this HTTP status and an OpenAI-style error body. */
  failWith?: number;
  /** Answer vectors of this length, whatever the model's dimension or the request asks. */
  wrongDimension?: number;
  /** Wait this long before answering (to run into the client's timeout). */
  delayMs?: number;
}

export interface ScriptedOpenAIServer {
  /** Base URL for the client, ending in /v1. */
  readonly url: string;
  /** The model's own vector length (a request's `dimensions` overrides it). */
  readonly dimensions: number;
  readonly requests: RecordedRequest[];
  script: Script;
  /** Every text embedded so far, in order, over all requests. */
  inputs(): string[];
  close(): Promise<void>;
}

/**
 * Starts the server on a free port. Vectors are the local embedder's, so they
 * are deterministic and similar texts are close, scaled by 3 so that a client
 * that forgets to normalise is caught.
 */
export async function startScriptedOpenAIServer(options: { dimensions?: number } = {}): Promise<ScriptedOpenAIServer> {
  const dimensions = options.dimensions ?? 64;
  const requests: RecordedRequest[] = [];
  const embedders = new Map<number, LocalEmbedder>();
  const vectorOf = (text: string, length: number): number[] => {
    let embedder = embedders.get(length);
    if (!embedder) embedders.set(length, (embedder = new LocalEmbedder({ dimensions: Math.max(16, length) })));
    return Array.from(embedder.embedOne(text).subarray(0, length), (x) => x * 3);
  };

  const state: { script: Script } = { script: {} };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST" || req.url !== "/v1/embeddings") return reply(res, 404, error(`no route ${req.method} ${req.url}`));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      model?: string;
      input?: string | string[];
      dimensions?: number;
      encoding_format?: string;
    };
    const input = typeof body.input === "string" ? [body.input] : (body.input ?? []);
    requests.push({
      model: body.model ?? "",
      input,
      dimensions: body.dimensions,
      encodingFormat: body.encoding_format,
      authorization: req.headers.authorization,
    });
    const { failWith, wrongDimension, delayMs } = state.script;
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (failWith) return reply(res, failWith, error("scripted failure"));
    if (input.some((t) => t === "")) return reply(res, 400, error("input cannot be an empty string"));
    const length = wrongDimension ?? body.dimensions ?? dimensions;
    reply(res, 200, {
      object: "list",
      model: body.model,
      // answered in reverse order: the index, not the position, says which input a vector belongs to
      data: input.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text, length) })).reverse(),
      usage: { prompt_tokens: input.length, total_tokens: input.length },
    });
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
    get script() {
      return state.script;
    },
    set script(script: Script) {
      state.script = script;
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

function error(message: string) {
  return { error: { message, type: "scripted", code: null } };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
