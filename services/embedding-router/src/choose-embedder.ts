import { endpointOf, outageOf, probeEndpoint } from "@switchyard/llm";
import { LocalEmbedder, OpenAIEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import type { DependencyHealth, DependencyReporter } from "@switchyard/telemetry";
import type { Config } from "./config.js";

export type EmbedderSettings = Pick<
  Config,
  | "EMBEDDINGS_BASE_URL"
  | "EMBEDDINGS_API_KEY"
  | "EMBEDDINGS_MODEL"
  | "EMBEDDINGS_DIMENSIONS"
  | "EMBEDDINGS_BATCH_SIZE"
  | "EMBEDDINGS_TIMEOUT_MS"
> & {
  /** The HTTP client's fetch; `pnpm eval` caches and meters the requests with it. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
};

/**
 * The embedder the settings ask for: the local one when EMBEDDINGS_BASE_URL is
 * unset, else the OpenAI-compatible endpoint. The endpoint's embedder keeps an
 * in-memory content-hash cache (tool texts and queries); what survives a
 * restart is the index's vector cache in ROUTER_DATA_DIR (choose-index.ts),
 * keyed the same way, so an unchanged tool is not embedded again either.
 * With `health` (`watchEmbeddings`), every request to the endpoint says whether it answered.
 */
export function chooseEmbedder(settings: EmbedderSettings, health?: DependencyReporter): Embedder {
  const baseURL = settings.EMBEDDINGS_BASE_URL;
  if (!baseURL) return new LocalEmbedder();
  if (!settings.EMBEDDINGS_MODEL) throw new Error("EMBEDDINGS_MODEL: must be set with EMBEDDINGS_BASE_URL");
  return new OpenAIEmbedder({
    baseURL,
    model: settings.EMBEDDINGS_MODEL,
    batchSize: settings.EMBEDDINGS_BATCH_SIZE,
    timeoutMs: settings.EMBEDDINGS_TIMEOUT_MS,
    ...(settings.EMBEDDINGS_API_KEY ? { apiKey: settings.EMBEDDINGS_API_KEY } : {}),
    ...(settings.EMBEDDINGS_DIMENSIONS ? { dimensions: settings.EMBEDDINGS_DIMENSIONS } : {}),
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
    ...(health ? { onOutcome: (error?: unknown) => (error === undefined ? health.answered() : health.failed(outageOf(error, settings.EMBEDDINGS_TIMEOUT_MS))) } : {}),
  });
}

/**
 * The embeddings endpoint as one of the router's dependencies ("embeddings endpoint" on
 * `/readyz`), checked at start; undefined with the built-in embedder, which cannot fail.
 */
export function watchEmbeddings(settings: EmbedderSettings, health: DependencyHealth): DependencyReporter | undefined {
  const baseURL = settings.EMBEDDINGS_BASE_URL;
  if (!baseURL) return undefined;
  const dependency = { name: "embeddings endpoint", model: settings.EMBEDDINGS_MODEL ?? "", endpoint: endpointOf(baseURL) };
  return health.watch(dependency, () => probeEndpoint({ baseURL, apiKey: settings.EMBEDDINGS_API_KEY, timeoutMs: settings.EMBEDDINGS_TIMEOUT_MS }));
}
