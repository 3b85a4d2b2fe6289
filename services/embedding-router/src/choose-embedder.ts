import { LocalEmbedder, OpenAIEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import type { Config } from "./config.js";

export type EmbedderSettings = Pick<
  Config,
  | "EMBEDDINGS_BASE_URL"
  | "EMBEDDINGS_API_KEY"
  | "EMBEDDINGS_MODEL"
  | "EMBEDDINGS_DIMENSIONS"
  | "EMBEDDINGS_BATCH_SIZE"
  | "EMBEDDINGS_TIMEOUT_MS"
>;

/**
 * The embedder the settings ask for: the local one when EMBEDDINGS_BASE_URL is
 * unset, else the OpenAI-compatible endpoint. The endpoint's embedder keeps an
 * in-memory content-hash cache (tool texts and queries); what survives a
 * restart is the index's vector cache in ROUTER_DATA_DIR (choose-index.ts),
 * keyed the same way, so an unchanged tool is not embedded again either.
 */
export function chooseEmbedder(settings: EmbedderSettings): Embedder {
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
  });
}
