import OpenAI from "openai";
import { EmbeddingCache } from "./embedding-cache.js";
import { normalize } from "./embedder.js";
import type { Embedder } from "./embedder.js";

export interface OpenAIEmbedderOptions {
  /** The API's base URL up to `/v1`: `http://localhost:11434/v1` (Ollama), `http://tei:80/v1`, `https://api.openai.com/v1`. */
  baseURL: string;
  /** Bearer token. Local servers (Ollama, TEI, vLLM) need none, but the client insists on one. @default "none" */
  apiKey?: string;
  /** The HTTP client's fetch; `pnpm eval` passes one that caches and meters requests. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** The model name the server knows, e.g. `nomic-embed-text`, `text-embedding-3-small`. */
  model: string;
  /**
   * Vector length: sent as `dimensions` (models that can shorten their
   * vectors honour it) and checked on every answer. Absent: the model's own
   * length, learned from the first answer and checked from then on.
   */
  dimensions?: number;
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** Limit of one request. @default 10000 */
  timeoutMs?: number;
  /** Retries of a failed request (connection error, 408, 409, 429, 5xx) by the client, with backoff. @default 1 */
  maxRetries?: number;
  /**
   * After a failed request, calls fail at once for this long instead of
   * waiting on a dead endpoint again: the router falls back to lexical
   * search meanwhile, and answers in time. @default 5000
   */
  cooldownMs?: number;
  /**
   * Vectors by content hash (sha256 of the model id and text). Absent: an
   * in-memory cache of the 10,000 most recently used texts (tool texts and
   * queries; about 30 MB at 768 dimensions).
   */
  cache?: EmbeddingCache;
  /** Told after every request to the endpoint: with its error when it failed, bare when it answered. */
  onOutcome?: (error?: unknown) => void;
}

/**
 * A request to the endpoint failed, or was not made because one failed moments ago
 * (`cooldownMs`); `cause` holds the client's error, down to the socket's.
 */
export class EmbeddingRequestError extends Error {
  override readonly name = "EmbeddingRequestError";
}

/** An answer's vector is not as long as the model's others (or as configured). */
export class EmbeddingDimensionError extends Error {
  override readonly name = "EmbeddingDimensionError";

  constructor(
    readonly model: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`embedding model ${model} returned a vector of ${actual} dimensions, expected ${expected}`);
  }
}

/**
 * An `Embedder` over any OpenAI-compatible `/v1/embeddings` endpoint (Ollama,
 * TEI, vLLM, OpenAI) through the `openai` client: texts go in batches of
 * `batchSize`, vectors come back L2-normalised as Float32Arrays, and every
 * vector is checked for length. Texts already embedded by the same model are
 * served from the content-hash cache, so an unchanged tool is never embedded
 * twice (and with a persisted cache, not after a restart either).
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly cache: EmbeddingCache;
  private readonly client: OpenAI;
  private readonly configured: number | undefined;
  private learned: number | undefined;
  private readonly batchSize: number;
  private readonly cooldownMs: number;
  private downUntil = 0;
  private lastFailure = "";
  private lastError: unknown;
  private readonly onOutcome: ((error?: unknown) => void) | undefined;

  constructor(options: OpenAIEmbedderOptions) {
    const baseURL = options.baseURL.replace(/\/+$/, ""); // trailing slashes: one URL, one cache id
    this.model = options.model;
    this.configured = options.dimensions;
    this.batchSize = options.batchSize ?? 64;
    this.cooldownMs = options.cooldownMs ?? 5000;
    this.onOutcome = options.onOutcome;
    for (const [option, value, min] of [
      ["dimensions", this.configured ?? 1, 1],
      ["batchSize", this.batchSize, 1],
      ["timeoutMs", options.timeoutMs ?? 1, 1],
      ["maxRetries", options.maxRetries ?? 0, 0],
      ["cooldownMs", this.cooldownMs, 0],
    ] as const) {
      if (!Number.isInteger(value) || value < min) throw new RangeError(`${option} must be an integer >= ${min}, got ${value}`);
    }
    if (!this.model) throw new RangeError("model must be named");
    this.id = `openai:${this.model}@${baseURL}${this.configured ? `:d${this.configured}` : ""}`;
    this.cache = options.cache ?? new EmbeddingCache({ maxEntries: 10_000 });
    this.client = new OpenAI({
      baseURL,
      apiKey: options.apiKey || "none",
      timeout: options.timeoutMs ?? 10_000,
      maxRetries: options.maxRetries ?? 1,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      // failures surface as thrown errors the router logs; the client's own console logging would bypass our logger
      logLevel: "off",
    });
  }

  /** The vector length: configured, or learned from the first answer (0 until then). */
  get dimensions(): number {
    return this.configured ?? this.learned ?? 0;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // the API rejects empty input, and a blank text matches nothing anyway
    const filled = texts.filter((t) => t.trim().length > 0);
    const { vectors } = await this.cache.through(this.id, filled, (missing) => this.request(missing), this.dimensions || undefined);
    for (const v of vectors) this.checkLength(v.length);
    const byText = new Map(filled.map((t, i) => [t, vectors[i]!]));
    return texts.map((t) => byText.get(t) ?? new Float32Array(this.dimensions));
  }

  private async request(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += this.batchSize) out.push(...(await this.requestBatch(texts.slice(at, at + this.batchSize))));
    return out;
  }

  private async requestBatch(input: string[]): Promise<Float32Array[]> {
    const wait = this.downUntil - Date.now();
    if (wait > 0) throw new EmbeddingRequestError(`embeddings endpoint unavailable for ${wait} ms more, after: ${this.lastFailure}`, { cause: this.lastError });
    let response;
    try {
      response = await this.client.embeddings.create({
        model: this.model,
        input,
        // float: what every compatible server speaks (the client would ask for base64 otherwise)
        encoding_format: "float",
        ...(this.configured ? { dimensions: this.configured } : {}),
      });
    } catch (error) {
      this.lastFailure = `${this.model} at ${this.client.baseURL}: ${error instanceof Error ? error.message : String(error)}`;
      this.lastError = error;
      this.downUntil = Date.now() + this.cooldownMs;
      this.onOutcome?.(error);
      throw new EmbeddingRequestError(`embeddings request failed: ${this.lastFailure}`, { cause: error });
    }
    this.onOutcome?.();
    const data = Array.isArray(response.data) ? response.data : [];
    if (data.length !== input.length) throw new Error(`embedding model ${this.model} returned ${data.length} vectors for ${input.length} texts`);
    const vectors: Float32Array[] = [];
    for (const item of data) {
      const { index, embedding } = item as { index: unknown; embedding: unknown };
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= input.length || vectors[index]) {
        throw new Error(`embedding model ${this.model} answered with a bad or repeated index ${String(index)}`);
      }
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw new Error(`embedding model ${this.model} answered with a vector that is not a non-empty list of finite numbers`);
      }
      this.checkLength(embedding.length);
      vectors[index] = normalize(Float32Array.from(embedding as number[]));
    }
    return vectors;
  }

  /** The first length seen becomes the model's when none is configured; any other is an error. */
  private checkLength(actual: number): void {
    const expected = this.dimensions || (this.learned = actual);
    if (actual !== expected) throw new EmbeddingDimensionError(this.model, expected, actual);
  }
}
