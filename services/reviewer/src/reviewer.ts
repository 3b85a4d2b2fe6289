/**
 * What any reviewer implementation answers to: the built-in heuristic (heuristic-reviewer.ts)
 * or a model behind an OpenAI-compatible API (model-reviewer.ts), seed 000 §4.1 review_selection. The stage
 * (review.ts) owns everything that must hold whatever the implementation: the code checks
 * (findings) always refuse, "not approved" caps confidence at 0.5, the threshold, and policy.
 */
import type { ModelFailure } from "@switchyard/llm";
import type { SelectedTool, ToolDefinition, ToolDefinition_SideEffect } from "@switchyard/packet";

/** Something the code checks found wrong with the call; any finding means the call is not approved. */
export interface Finding {
  kind: "arguments" | "contradiction";
  /** A sentence saying what is wrong. */
  detail: string;
  /** For "arguments": the fields at fault. */
  fields?: string[];
}

/** What a reviewer is asked. */
export interface ReviewRequest {
  /** The request text the selection answers (current step, else query, else original prompt). */
  text: string;
  selected: SelectedTool;
  /** The selected tool's definition, from the routing candidates. */
  tool: ToolDefinition;
  /** The side-effect class policy applies (effectiveSideEffect). */
  sideEffect: ToolDefinition_SideEffect;
  findings: Finding[];
}

/** Seed 000 review_selection's answer. */
export interface Review {
  approved: boolean;
  /** 0–1. */
  confidence: number;
  reasoning: string;
  /** Who answered, when not the reviewer itself: "heuristic, because the model …" (a model reviewer's fallback). */
  answeredBy?: string;
  /** The model's failure that the fallback answered for: the packet records it (`addFallback`). */
  fallback?: ModelFailure;
}

export interface Reviewer {
  /** "heuristic", "model", …: recorded in the reflection log. */
  readonly kind: string;
  review(request: ReviewRequest): Review | Promise<Review>;
}
