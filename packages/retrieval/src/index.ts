export { Bm25Index, DEFAULT_BM25 } from "./bm25.js";
export type { Bm25Params, QueryTerm } from "./bm25.js";
export { CONCEPT_GROUPS, conceptsOf, relatedStems } from "./concepts.js";
export { EmbeddingCache } from "./embedding-cache.js";
export type { EmbeddingCacheOptions } from "./embedding-cache.js";
export { dot, LocalEmbedder, normalize } from "./embedder.js";
export type { Embedder, LocalEmbedderOptions } from "./embedder.js";
export { matchedWords, MAX_MATCHED_WORDS } from "./matched-words.js";
export { NameIndex } from "./name-match.js";
export { EmbeddingDimensionError, EmbeddingRequestError, OpenAIEmbedder } from "./openai-embedder.js";
export type { OpenAIEmbedderOptions } from "./openai-embedder.js";
export { DEFAULT_MIN_SCORE, isNoTool, judgeToolNeed } from "./relevance.js";
export type { NoToolSettings, ToolNeedGateSettings, ToolNeedVerdict } from "./relevance.js";
export { mulberry32, shuffleInPlace } from "./seeded-random.js";
export { catalogStats, DEFAULT_TOOL_NEED_THRESHOLD, ToolNeedModel, ToolNeedTrainingSet, trainToolNeedModel } from "./tool-need.js";
export type {
  CatalogStats,
  Relevance,
  ToolNeedExample,
  ToolNeedInput,
  ToolNeedModelJson,
  ToolNeedScorer,
  ToolNeedTrainOptions,
} from "./tool-need.js";
export { DEFAULT_QDRANT_COLLECTION, DEFAULT_QDRANT_TIMEOUT_MS, QdrantIndex } from "./qdrant-index.js";
export type { QdrantIndexOptions } from "./qdrant-index.js";
export { stem, tokenize, toolFields, toolText, withoutTenantExamples } from "./text.js";
export type { ToolFields } from "./text.js";
export {
  DEFAULT_DENSE_WEIGHT,
  DEFAULT_NAME_MATCH_WEIGHT,
  DEFAULT_NAME_WEIGHT,
  DEFAULT_RELATED_WEIGHT,
  EmbeddedIndex,
  matchesFilter,
  toolContentHash,
} from "./tool-index.js";
export type { EmbeddedIndexOptions, ScoredTool, SearchOptions, ToolFilter, ToolIndex } from "./tool-index.js";
