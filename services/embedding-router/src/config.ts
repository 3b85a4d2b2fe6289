import { DEFAULT_DENSE_WEIGHT } from "@switchyard/retrieval";

/**
 * The embedding-router's settings, read from the environment by
 * `@switchyard/config` (`readConfig(configSchema, process.env)` applies the
 * defaults and names a bad variable).
 */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    ROUTER_MODE: {
      type: "string",
      enum: ["topk", "threshold"],
      default: "topk",
      description:
        "topk: the ROUTER_TOP_K best tools scoring at least ROUTER_MIN_SCORE; threshold: every tool scoring at least ROUTER_SCORE_THRESHOLD, at most ROUTER_MAX_CANDIDATES",
    },
    ROUTER_TOP_K: {
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 5,
      description: "Semantic candidates in topk mode, unless the request asks for another number",
    },
    ROUTER_MIN_SCORE: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: 0.1,
      description: "In topk mode, tools scoring below this are dropped even when fewer than K remain",
    },
    ROUTER_SCORE_THRESHOLD: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: 0.35,
      description: "In threshold mode, the score a tool needs to be a candidate",
    },
    ROUTER_MAX_CANDIDATES: {
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 10,
      description: "In threshold mode, the most semantic candidates returned",
    },
    ROUTER_DENSE_WEIGHT: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: DEFAULT_DENSE_WEIGHT,
      description: "Share of the dense cosine in the fused score; the rest is normalised BM25",
    },
  },
} as const;

export type RouterMode = "topk" | "threshold";

export interface Config {
  /** @default "topk" */
  ROUTER_MODE: RouterMode;
  /** @default 5 */
  ROUTER_TOP_K: number;
  /** @default 0.1 */
  ROUTER_MIN_SCORE: number;
  /** @default 0.35 */
  ROUTER_SCORE_THRESHOLD: number;
  /** @default 10 */
  ROUTER_MAX_CANDIDATES: number;
  /** @default DEFAULT_DENSE_WEIGHT (0.4, see tool-index.ts) */
  ROUTER_DENSE_WEIGHT: number;
}

/** The settings with every default applied; for tests and tools that run without an environment. */
export function defaultConfig(): Config {
  const p = configSchema.properties;
  return {
    ROUTER_MODE: p.ROUTER_MODE.default,
    ROUTER_TOP_K: p.ROUTER_TOP_K.default,
    ROUTER_MIN_SCORE: p.ROUTER_MIN_SCORE.default,
    ROUTER_SCORE_THRESHOLD: p.ROUTER_SCORE_THRESHOLD.default,
    ROUTER_MAX_CANDIDATES: p.ROUTER_MAX_CANDIDATES.default,
    ROUTER_DENSE_WEIGHT: p.ROUTER_DENSE_WEIGHT.default,
  };
}
