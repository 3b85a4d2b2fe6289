import type { ScoredTool } from "./tool-index.js";

/** What the "no tool" decision needs to know. */
export interface NoToolSettings {
  /** The relevance a tool needs to count as a match (the router's ROUTER_MIN_SCORE or ROUTER_SCORE_THRESHOLD). */
  minScore: number;
}

/** The router's default minimum relevance in topk mode (ROUTER_MIN_SCORE). */
export const DEFAULT_MIN_SCORE = 0.1;

/**
 * Whether a query needs no tool from this catalog: no search result reaches
 * the minimum relevance. The one place this is decided, so that the router
 * and the evaluation (bench/) always agree on it.
 */
export function isNoTool(results: readonly ScoredTool[], settings: NoToolSettings): boolean {
  return !results.some((r) => r.score >= settings.minScore);
}
