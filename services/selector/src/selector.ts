/**
 * What any selector implementation answers to: the built-in heuristic (heuristic-selector.ts)
 * or a model behind an OpenAI-compatible API (model-selector.ts). The stage (select.ts) owns everything that must
 * hold whatever the implementation: only candidates may be chosen, arguments are validated
 * against the tool's schema, and the packet is updated the same way.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ModelFailure } from "@switchyard/llm";
import type { RoutingCandidate } from "@switchyard/packet";
import type { EarlierStep } from "./earlier-steps.js";

/** What a selector is asked. */
export interface SelectionRequest {
  /** The text to act on: the current step, else the intent's query, else the original prompt. */
  text: string;
  /** Texts to take missing required arguments from, most specific first (the query, the turns it points back at, the original prompt; for "the other one?", the other file the recent results showed). */
  fallbackTexts: string[];
  /** The only tools that may be chosen. */
  candidates: RoutingCandidate[];
  /**
   * The router's offline verdict that the message needs none of the candidates, or that it
   * could not read the message's language, when it gave one (the packet's ToolNeedVerdict
   * reason): a selector without a model takes it, a model decides for itself.
   */
  notNeeded?: string;
  /** The packet's earlier steps that ran in a folder: a bare file name the chosen call names may be in one of them. */
  earlier?: EarlierStep[];
}

/** One tool call the selector proposes. */
export interface Choice {
  /** The candidate's catalog name (ToolDefinition.name). */
  toolName: string;
  params: JsonObject;
  /** 0–1: how sure the selector is that this is the right call. */
  confidence: number;
  reasoning: string;
}

/** The selector's answer: choices best first (empty when no tool fits), and why. */
export interface Selection {
  choices: Choice[];
  reasoning: string;
  /** Who answered, when not the selector itself: "heuristic, because the model …" (a model selector's fallback). */
  answeredBy?: string;
  /** The model's failure that the fallback answered for: the packet records it (`addFallback`). */
  fallback?: ModelFailure;
  /** With no choices: the packet's state reason as is, when it is not "no tool selected among the candidates". */
  noToolReason?: string;
}

export interface Selector {
  /** "heuristic", "model", …: recorded in the reflection log. */
  readonly kind: string;
  select(request: SelectionRequest): Selection | Promise<Selection>;
}
