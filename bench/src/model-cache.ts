/**
 * Model answers on disk, by request: the key is sha256 of the endpoint's URL and the request's
 * JSON body in canonical form (RFC 8785; the body names the model), so the same request to the
 * same model at the same endpoint is asked once, and a rerun of `pnpm eval` with models costs
 * nothing. One file per answer, `<dir>/<key[0..2]>/<key>.json`, holding the request (never its
 * credentials), the answer, and the usage and latency it had when it was asked. Clear the cache
 * by deleting the folder.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonValue } from "@bufbuild/protobuf";
import { canonicalJson } from "@switchyard/packet";
import type { UsageMeter } from "./model-usage.js";

/** bench/results/model-cache beside this package's dist/ (or src/ under tsx). */
export const DEFAULT_MODEL_CACHE = fileURLToPath(new URL("../results/model-cache/", import.meta.url));

/** One cached answer. */
export interface CachedAnswer {
  url: string;
  request: JsonValue;
  /** The answer's body, as the endpoint sent it. */
  body: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** When it was asked (ISO 8601). */
  askedAt: string;
}

/** The answers in a folder, by request. */
export class ModelAnswerCache {
  private ready: Promise<void> | undefined;

  constructor(readonly dir: string) {}

  /** The key of a request: sha256 (hex) of its URL and canonical JSON body. */
  static keyOf(url: string, body: JsonValue): string {
    return createHash("sha256").update(canonicalJson({ url, body })).digest("hex");
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      return JSON.parse(await readFile(this.fileOf(key), "utf8")) as CachedAnswer;
    } catch (error) {
      // a missing file is a miss; a torn one (a run killed mid-write cannot leave one: see put) is asked again
      if ((error as NodeJS.ErrnoException).code === "ENOENT" || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  /** Stores an answer: written beside its place and renamed, so a reader sees all of it or nothing. */
  async put(key: string, answer: CachedAnswer): Promise<void> {
    await (this.ready ??= this.create());
    const file = this.fileOf(key);
    await mkdir(join(file, ".."), { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, `${JSON.stringify(answer, null, 1)}\n`);
    await rename(partial, file);
  }

  private fileOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The folder, with a .gitignore of everything in it: answers are the user's, not the repository's. */
  private async create(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(join(this.dir, ".gitignore"), "*\n");
  }
}

type Fetch = typeof globalThis.fetch;

/**
 * A fetch for the model clients (ModelClient, OpenAIEmbedder) that answers a JSON POST from
 * `cache` when it can, asks `upstream` otherwise and keeps a successful answer, and tells
 * `meter` of every request with the API's token usage and its latency. Anything else (a
 * stream, a GET) goes to `upstream` as it is. Without a cache it only meters.
 */
export function meteredFetch(meter: UsageMeter, cache?: ModelAnswerCache, upstream: Fetch = globalThis.fetch): Fetch {
  return async (input, init) => {
    const request = jsonPost(input, init);
    if (!request) return upstream(input, init);
    const key = ModelAnswerCache.keyOf(request.url, request.body);
    const cached = await cache?.get(key);
    if (cached) {
      meter.record({ cached: true, ok: true, promptTokens: cached.promptTokens, completionTokens: cached.completionTokens, latencyMs: cached.latencyMs });
      return new Response(cached.body, { status: 200, headers: { "content-type": "application/json" } });
    }

    const started = performance.now();
    let response: Response;
    let body: string;
    try {
      response = await upstream(input, init);
      body = await response.text();
    } catch (error) {
      meter.record({ cached: false, ok: false, promptTokens: 0, completionTokens: 0, latencyMs: performance.now() - started });
      throw error;
    }
    const latencyMs = performance.now() - started;
    const usage = usageOf(body);
    meter.record({ cached: false, ok: response.ok, ...usage, latencyMs });
    if (response.ok && cache) await cache.put(key, { url: request.url, request: request.body, body, ...usage, latencyMs, askedAt: new Date().toISOString() });
    // the body is read (and decoded): hand the client a fresh response without the transfer headers
    const headers = new Headers(response.headers);
    headers.delete("content-encoding");
    headers.delete("content-length");
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The URL and JSON body of a POST that is not a stream; undefined for anything else. */
function jsonPost(input: Parameters<Fetch>[0], init: Parameters<Fetch>[1]): { url: string; body: JsonValue } | undefined {
  if (input instanceof Request || (init?.method ?? "GET").toUpperCase() !== "POST" || typeof init?.body !== "string") return undefined;
  let body: JsonValue;
  try {
    body = JSON.parse(init.body) as JsonValue;
  } catch {
    return undefined;
  }
  if (typeof body === "object" && body !== null && !Array.isArray(body) && body["stream"] === true) return undefined;
  return { url: String(input), body };
}

/** The answer's `usage` (chat: prompt and completion tokens; embeddings: prompt tokens). */
function usageOf(body: string): { promptTokens: number; completionTokens: number } {
  let usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
  try {
    usage = (JSON.parse(body) as { usage?: typeof usage }).usage;
  } catch {
    usage = undefined;
  }
  const count = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { promptTokens: count(usage?.prompt_tokens), completionTokens: count(usage?.completion_tokens) };
}
