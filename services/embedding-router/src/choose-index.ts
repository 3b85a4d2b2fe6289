import { join } from "node:path";
import { EmbeddedIndex, EmbeddingCache, QdrantIndex } from "@switchyard/retrieval";
import type { Embedder, ToolIndex } from "@switchyard/retrieval";
import type { Config } from "./config.js";

export type IndexSettings = Pick<
  Config,
  "QDRANT_URL" | "QDRANT_API_KEY" | "QDRANT_COLLECTION" | "QDRANT_TIMEOUT_MS" | "QDRANT_REPLICATION_FACTOR" | "ROUTER_DATA_DIR" | "ROUTER_DENSE_WEIGHT" | "ROUTER_HELPER_THREAD"
>;

/** Where the embedded index keeps its tool vectors under the data dir. */
export function indexVectorsFile(dataDir: string): string {
  return join(dataDir, "index-vectors.jsonl");
}

/**
 * The tool index the settings ask for: Qdrant when QDRANT_URL is set (its
 * alias made ready, see QdrantIndex.open), else the embedded index with its
 * vectors kept in ROUTER_DATA_DIR. A data dir that cannot be used (a
 * read-only filesystem) costs the persistence, not the router: `onStoreError`
 * hears of it, and of every later write that fails.
 */
export async function chooseIndex(
  settings: IndexSettings,
  embedder: Embedder,
  onStoreError: (error: unknown) => void,
): Promise<ToolIndex> {
  if (settings.QDRANT_URL) {
    return QdrantIndex.open(embedder, {
      url: settings.QDRANT_URL,
      collection: settings.QDRANT_COLLECTION,
      timeoutMs: settings.QDRANT_TIMEOUT_MS,
      replicationFactor: settings.QDRANT_REPLICATION_FACTOR,
      ...(settings.QDRANT_API_KEY ? { apiKey: settings.QDRANT_API_KEY } : {}),
    });
  }
  let vectorCache: EmbeddingCache | undefined;
  try {
    vectorCache = await EmbeddingCache.open(indexVectorsFile(settings.ROUTER_DATA_DIR), { onError: onStoreError });
  } catch (error) {
    onStoreError(error);
  }
  return new EmbeddedIndex(embedder, {
    denseWeight: settings.ROUTER_DENSE_WEIGHT,
    // true leaves it to the index: a helper thread only with a second core
    ...(!settings.ROUTER_HELPER_THREAD && { helperThread: false }),
    ...(vectorCache && { vectorCache }),
  });
}
