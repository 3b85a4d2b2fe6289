import type { ScoredTool } from "./tool-index.js";
import { DEFAULT_TOOL_NEED_THRESHOLD, ToolNeedModel } from "./tool-need.js";
import type { Relevance, ToolNeedInput, ToolNeedScorer } from "./tool-need.js";

/** What the "no tool" decision needs to know. */
export interface NoToolSettings {
  /** The relevance a tool needs to count as a match (the router's ROUTER_MIN_SCORE or ROUTER_SCORE_THRESHOLD). */
  minScore: number;
}

/** The router's default minimum relevance in topk mode (ROUTER_MIN_SCORE). */
export const DEFAULT_MIN_SCORE = 0.1;

/**
 * Whether no search result reaches the minimum relevance: the floor under
 * every routing, route-only requests included. The router and the evaluation
 * (bench/) both take it from here, so that they always agree on it.
 */
export function isNoTool(results: readonly ScoredTool[], settings: NoToolSettings): boolean {
  return !results.some((r) => r.score >= settings.minScore);
}

/** The tool-need gate's answer for one message. */
export interface ToolNeedVerdict {
  /** True: a routed tool should be selected; false: the message needs no tool from these. */
  needed: boolean;
  /** The tool-need model's probability. */
  probability: number;
  /** How the routed tools relate to the message (what the model saw of them). */
  relevance: Relevance;
}

export interface ToolNeedGateSettings {
  /** The probability a message needs to go on to selection. @default DEFAULT_TOOL_NEED_THRESHOLD */
  threshold?: number;
  /** @default ToolNeedModel.builtIn() */
  model?: ToolNeedScorer;
}

/**
 * The router's tool-need gate, for a packet whose message has candidates
 * above the floor. Rules come first: a message a rule recognised as a
 * request (`input.requested`, the intent stage's verdict) goes on to
 * selection. For any other message the tool-need model (tool-need.ts) weighs
 * its words and its relevance to the routed tools (their text's coverage of
 * the message, the router's score), and the message goes on when the
 * probability reaches the threshold.
 */
export function judgeToolNeed(input: ToolNeedInput, settings: ToolNeedGateSettings = {}): ToolNeedVerdict {
  const model = settings.model ?? ToolNeedModel.builtIn();
  if (input.requested) return { needed: true, probability: 1, relevance: model.relevance(input) };
  const probability = model.probability(input);
  return {
    needed: probability >= (settings.threshold ?? DEFAULT_TOOL_NEED_THRESHOLD),
    probability,
    relevance: model.relevance(input),
  };
}
