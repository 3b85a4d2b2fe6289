/**
 * The product's own pipeline, in process: intent → route → select → review on
 * a packet built with `newPacket`, each stage the service's own stage
 * function with its default settings, and with the models the fleet's
 * settings name where `deps.models` has them (model-settings.ts). The
 * benchmark's "no tool" answer is what this pipeline decides for a case
 * (`PipelineOutcome.noTool`).
 */
import type { BenchCase } from "@switchyard/bench-data";
import { defaultConfig as routerDefaults, routeStage, routeWithFallback } from "@switchyard/embedding-router";
import type { Config as RouterConfig, RouterCatalog } from "@switchyard/embedding-router";
import { defaultConfig as intentDefaults, decideIntent, intentStage } from "@switchyard/intent";
import type { Config as IntentConfig } from "@switchyard/intent";
import type { ModelClient } from "@switchyard/llm";
import { newPacket, Packet_State, resolveCandidates, routingOf, turnOf } from "@switchyard/packet";
import type { Packet, StageOutcome, ToolDefinition } from "@switchyard/packet";
import { catalogStats } from "@switchyard/retrieval";
import type { ToolIndex, ToolNeedInput, ToolNeedScorer } from "@switchyard/retrieval";
import { defaultConfig as reviewerDefaults, prepareReview, reviewStage } from "@switchyard/reviewer";
import type { Config as ReviewerConfig, Reviewer } from "@switchyard/reviewer";
import { defaultConfig as selectorDefaults, selectStage } from "@switchyard/selector";
import type { Config as SelectorConfig, Selector } from "@switchyard/selector";
import type { ModelUsage, UsageMeter } from "./model-usage.js";

export interface PipelineDeps {
  /** The router's index, holding `tools`. */
  index: ToolIndex;
  /** The catalog. */
  tools: readonly ToolDefinition[];
  /** The index's embedder reads English only (the offline LocalEmbedder, the evaluation's). @default true */
  englishOnly?: boolean;
  /** The route stage's tool-need model; absent: the built-in one. */
  toolNeed?: ToolNeedScorer;
  /** Settings of each stage; absent: the service's defaults. */
  intent?: IntentConfig;
  router?: RouterConfig;
  selector?: SelectorConfig;
  reviewer?: ReviewerConfig;
  /** The stages' models; absent: the offline pipeline. */
  models?: PipelineModels;
}

/** The models the fleet's settings name (model-settings.ts); a stage without one runs offline. */
export interface PipelineModels {
  /** INTENT_MODEL: its client, and the intent settings it is asked with. */
  intent?: { client: ModelClient; config: IntentConfig };
  /** SELECTOR_MODEL's selector, the heuristic its fallback. */
  selector?: Selector;
  /** REVIEWER_MODEL's reviewer, the heuristic its fallback. */
  reviewer?: Reviewer;
  /** Counts each case's model requests (`PipelineOutcome.model`). */
  meter: UsageMeter;
}

export type PipelineStage = "intent" | "route" | "select" | "review";

/**
 * How a case ended, for the outcome table: `call` (a call approved to run, dry-run or waiting
 * for approval), `skipped` (the reviewer's confidence was below its threshold), `refused` (the
 * reviewer's code checks refused the call), `noToolIntent` (intent's rules settled the turn as
 * chat), `noToolRoute` (the router: nothing above its floor, or its tool-need gate said no),
 * `noToolSelect` (the selector chose none of the candidates), `language` (written in a language the
 * offline router cannot read: not a "no tool" answer, a request the offline pipeline could not route).
 */
export const PIPELINE_ENDS = ["call", "skipped", "refused", "noToolIntent", "noToolRoute", "noToolSelect", "language"] as const;
export type PipelineEnd = (typeof PIPELINE_ENDS)[number];

export interface PipelineOutcome {
  /**
   * The product's "no tool" answer: the packet ended because no tool is needed (intent's
   * rules, the router's floor and tool-need gate, no selection), or because the selected call
   * cannot be made as asked (the reviewer's code checks: required arguments missing or
   * invalid, the tool contradicting the request). A call the reviewer skipped only for a
   * confidence below its threshold is not a "no tool" answer: a tool was needed, the pipeline
   * was not sure enough of the call (`toolCall` is false for it).
   */
  noTool: boolean;
  /** True when the packet ended with a tool call approved to run (run, dry-run, or waiting for the user's approval). */
  toolCall: boolean;
  /** The stage that ended the packet (review when a call was approved). */
  endedAt: PipelineStage;
  /** How it ended. */
  end: PipelineEnd;
  /** The selected tool, when one was. */
  tool?: string;
  packet: Packet;
  /** With `deps.models`: what the case asked of them. */
  model?: ModelUsage;
}

/**
 * Runs one case through the pipeline. Its `candidates`, where it has them
 * (BFCL), are the request's allow-list: BFCL's labels hold within them.
 */
export async function runPipeline(c: Pick<BenchCase, "query" | "candidates" | "history">, deps: PipelineDeps): Promise<PipelineOutcome> {
  if (!deps.models) return runStages(c, deps);
  const { value, usage } = await deps.models.meter.measure(() => runStages(c, deps));
  return { ...value, model: usage };
}

async function runStages(c: Pick<BenchCase, "query" | "candidates" | "history">, deps: PipelineDeps): Promise<PipelineOutcome> {
  const { packet, endedAt, end: early } = await runToSelection(c, deps);
  if (endedAt) return { noTool: early !== "language", toolCall: false, endedAt, end: early!, tool: routingOf(packet).selectedTool?.toolName, packet };

  const checked = prepareReview(packet);
  const refused = "rejected" in checked || checked.findings.length > 0;
  const reviewer = deps.models?.reviewer;
  const reviewed = await reviewStage(packet, { config: deps.reviewer ?? reviewerDefaults, ...(reviewer ? { reviewer } : {}) });
  const toolCall = !isDone(reviewed) || packet.state === Packet_State.AWAITING_APPROVAL;
  const end = toolCall ? "call" : refused ? "refused" : "skipped";
  return { noTool: !toolCall && refused, toolCall, endedAt: "review", end, tool: routingOf(packet).selectedTool?.toolName, packet };
}

/** Where `runToSelection` left the packet: `endedAt` names the stage that ended it; absent, a tool was selected. */
export interface SelectionRun {
  packet: Packet;
  endedAt?: Exclude<PipelineStage, "review">;
  /** How it ended, when it did. */
  end?: Exclude<PipelineEnd, "call" | "skipped" | "refused">;
}

/**
 * Runs one case through intent → route → select, the select stage with
 * `selector` (default: the selection model of `deps.models`, else the built-in
 * heuristic with `deps.selector`'s settings). The case's `candidates` are the
 * allow-list, as in `runPipeline`.
 */
export async function runToSelection(c: Pick<BenchCase, "query" | "candidates" | "history">, deps: PipelineDeps, selector?: Selector): Promise<SelectionRun> {
  const packet = newPacket({ message: c.query, scope: { tools: c.candidates ?? [] }, history: (c.history ?? []).map((turn) => turnOf(turn.role, turn.content)) });

  const names = deps.tools.map((t) => t.name);
  const catalogNames = { toolNames: () => names };
  const intentModel = deps.models?.intent;
  const intent = intentModel
    ? await intentStage(packet, { config: intentModel.config, catalog: catalogNames, model: intentModel.client })
    : decideIntent(packet, deps.intent ?? intentDefaults, catalogNames);
  if (isDone(intent)) return { packet, endedAt: "intent", end: "noToolIntent" };

  const routerConfig = deps.router ?? routerDefaults();
  const catalog: RouterCatalog = { core: () => deps.tools.filter((t) => t.core), all: () => [...deps.tools] };
  const route = (req: Parameters<typeof routeWithFallback>[2]) => routeWithFallback(deps.index, catalog, req, routerConfig);
  const toolNeed = { threshold: routerConfig.ROUTER_TOOL_NEED_THRESHOLD, ...(deps.toolNeed ? { model: deps.toolNeed } : {}) };
  if (isDone(await routeStage(packet, { route, catalogStats: () => catalogStats(deps.tools), englishOnly: deps.englishOnly ?? true, toolNeed, correctSpelling: deps.index.correctSpelling?.bind(deps.index) }))) {
    return { packet, endedAt: "route", end: routingOf(packet).toolNeed?.unreadLanguage ? "language" : "noToolRoute" };
  }
  // The router hands candidates on by reference; the selector and reviewer services look them up in their copy of the catalog.
  const byName = new Map(deps.tools.map((t) => [t.name, t]));
  resolveCandidates(packet, (name) => byName.get(name));

  const selectorConfig = deps.selector ?? selectorDefaults;
  const chosen = selector ?? deps.models?.selector;
  if (isDone(await selectStage(packet, { config: selectorConfig, ...(chosen ? { selector: chosen } : {}) }))) {
    // the heuristic selector ends a packet the router's gate found no need for: that "no tool" is the route stage's
    const verdict = routingOf(packet).toolNeed;
    const end = verdict?.unreadLanguage ? "language" : verdict?.needed !== false ? "noToolSelect" : "noToolRoute";
    return { packet, endedAt: "select", end };
  }
  return { packet };
}

/**
 * A tool-need model that lets every message through the route stage's gate
 * (probability 1), telling `onInput` what the gate was shown: for measuring
 * what comes after the gate as if it had said a tool is needed.
 */
export function passEveryMessage(onInput?: (input: ToolNeedInput) => void): ToolNeedScorer {
  return {
    probability: (input) => (onInput?.(input), 1),
    relevance: () => ({ top: 0, coverage: 0, bestCoverage: 0, name: 0, unexplained: 0, words: 0, gap: 0 }),
  };
}

function isDone(outcome: StageOutcome): boolean {
  return "done" in outcome && outcome.done === true;
}
