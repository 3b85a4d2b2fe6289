import { defaultsOf } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";
import { DEFAULT_DENSE_WEIGHT, DEFAULT_QDRANT_COLLECTION, DEFAULT_QDRANT_TIMEOUT_MS, DEFAULT_TOOL_NEED_THRESHOLD } from "@switchyard/retrieval";

/**
 * The embedding-router's settings, read from the environment by
 * `@switchyard/config` (`readConfig(configSchema, process.env)` applies the
 * defaults and names a bad variable).
 */
export const configSchema = Type.Object(
  {
    ROUTER_MODE: Type.Enum(["topk", "threshold"], {
      default: "topk",
      description: "topk: the ROUTER_TOP_K best tools scoring at least ROUTER_MIN_SCORE; threshold: every tool scoring at least ROUTER_SCORE_THRESHOLD, at most ROUTER_MAX_CANDIDATES",
    }),
    ROUTER_TOP_K: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 5,
      description: "Semantic candidates in topk mode, unless the request asks for another number",
    }),
    ROUTER_MIN_SCORE: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.1,
      description: "In topk mode, tools scoring below this are dropped even when fewer than K remain",
    }),
    ROUTER_SCORE_THRESHOLD: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.35,
      description: "In threshold mode, the score a tool needs to be a candidate",
    }),
    ROUTER_MAX_CANDIDATES: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 10,
      description: "In threshold mode, the most semantic candidates returned",
    }),
    ROUTER_TOOL_NEED_THRESHOLD: Type.Number({
      minimum: 0,
      maximum: 1,
      default: DEFAULT_TOOL_NEED_THRESHOLD,
      description: "Without a selection model, a packet the rules left undecided ends with no tool when the tool-need model gives its message less than this probability of wanting one of the candidates; a selection model decides for itself",
    }),
    ROUTER_TOOL_NEED_MODEL: Type.Optional(Type.String({
      minLength: 1,
      description: "A tool-need model file written by `pnpm train` (JSON); unset: the model shipped in @switchyard/retrieval",
    })),
    ROUTER_DENSE_WEIGHT: Type.Number({
      minimum: 0,
      maximum: 1,
      default: DEFAULT_DENSE_WEIGHT,
      description: "Share of the dense cosine in the fused score; the rest is normalised BM25",
    }),
    ROUTER_HELPER_THREAD: Type.Boolean({
      default: true,
      description: "The embedded index shares each search's dense dot products with a helper thread once the catalog passes 16,384 tools, on a machine with more than one core; false: one thread (a pod held to one CPU)",
    }),
    QDRANT_URL: Type.Optional(Type.String({
      // an http(s) URL, checked at start rather than at the first request
      pattern: "^https?://",
      description: "Qdrant's REST endpoint (http://localhost:6333): the tool index lives there; unset: the embedded in-process index",
    })),
    QDRANT_API_KEY: Type.Optional(Type.String({ description: "API key for QDRANT_URL; a local Qdrant needs none" })),
    QDRANT_COLLECTION: Type.String({
      // Qdrant collection names: no slashes or spaces; generations are <name>-<n>
      pattern: "^[A-Za-z0-9_.-]+$",
      default: DEFAULT_QDRANT_COLLECTION,
      description: "The alias the router reads and writes; each re-index builds a collection <alias>-<n> and moves the alias to it",
    }),
    QDRANT_TIMEOUT_MS: Type.Integer({
      minimum: 1,
      default: DEFAULT_QDRANT_TIMEOUT_MS,
      description: "Limit of every request to Qdrant",
    }),
    QDRANT_REPLICATION_FACTOR: Type.Integer({
      minimum: 1,
      default: 1,
      description: "Copies of each shard of a collection the router creates, on a Qdrant cluster (replication_factor); a collection made before keeps its own",
    }),
    ROUTER_DATA_DIR: Type.String({
      minLength: 1,
      default: ".switchyard/router",
      description: "Where the embedded index keeps its tool vectors (by embedder and text), so a restart embeds only what changed; relative to the working directory",
    }),
    ROUTER_MAX_QUERY_TURNS: Type.Integer({
      minimum: 1,
      maximum: 10,
      default: 2,
      description: "User turns a route-only query may span, the message included: a short message that points back (\"turn it off\") gets the latest earlier user turn(s) in front of it, as the intent stage does",
    }),
    LEARN_FROM_USE: Type.Boolean({
      default: true,
      description: "A finished packet whose tool ran (not a dry run, not denied) teaches its query to that tool as an example; false: nothing is learned (stored examples still count)",
    }),
    LEARN_MAX_EXAMPLES_PER_TOOL: Type.Integer({
      minimum: 0,
      maximum: 1000,
      default: 20,
      description: "Learned examples kept per tool; beyond it the oldest learned one goes (hand-added ones do not count)",
    }),
    EMBEDDINGS_BASE_URL: Type.Optional(Type.String({
      // an http(s) URL: a typo like "localhost:11434/v1" would otherwise fail only at the first request
      pattern: "^https?://",
      description: "An OpenAI-compatible embeddings API up to /v1 (Ollama http://localhost:11434/v1, TEI, vLLM, OpenAI); unset: the offline local embedder",
    })),
    EMBEDDINGS_API_KEY: Type.Optional(Type.String({ description: "Bearer token for EMBEDDINGS_BASE_URL; local servers need none" })),
    EMBEDDINGS_MODEL: Type.Optional(Type.String({ minLength: 1, description: "The embedding model's name; required with EMBEDDINGS_BASE_URL" })),
    EMBEDDINGS_DIMENSIONS: Type.Optional(Type.Integer({
      minimum: 1,
      description: "Vector length, asked of the model and checked; unset: the model's own, learned from its first answer",
    })),
    EMBEDDINGS_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 2048, default: 64, description: "Texts per embeddings request" }),
    EMBEDDINGS_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10000, description: "Limit of one embeddings request" }),
  },
  // an embeddings endpoint needs its model's name
  { additionalProperties: false, dependencies: { EMBEDDINGS_BASE_URL: ["EMBEDDINGS_MODEL"] } },
);

export type Config = Static<typeof configSchema>;

export type RouterMode = Config["ROUTER_MODE"];

/** The settings with every default applied; for tests and tools that run without an environment. */
export function defaultConfig(): Config {
  return defaultsOf(configSchema);
}
