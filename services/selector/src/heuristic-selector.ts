/**
 * The built-in selector: no model, only the router's scores, the request's words and each
 * candidate's schema.
 *
 * Candidate score (0–1), weights from config and normalised by their sum:
 *   score = (wR·retrieval + wA·argumentFit + wX·actionFit) / (wR + wA + wX), × 0.8 when the
 *   tool's description says it is deprecated (MCP servers keep deprecated aliases such as
 *   filesystem's read_file beside read_text_file, with the same schema).
 *   - retrieval: the embedding-router's score, clamped to 0–1 (if any score exceeds 1, all
 *     are divided by the largest, so a router with another scale still ranks correctly).
 *   - argumentFit = requiredFound × pathUse × plural:
 *     requiredFound = required properties filled / required properties (1 when none);
 *     pathUse = 0.5 + 0.5 · (paths in the request the arguments use / paths in the request)
 *     (1 when the request names no path), so a tool that ignores the file the user named fits worse;
 *     plural = 0.8 when an array argument got a single item (a many-files tool for one file).
 *   - actionFit: 1 when the request's verb matches the verb in the tool's name, 0 when both
 *     have verbs and they differ, 0.5 when either has none.
 *
 * Confidence of the best candidate (0–1):
 *   confidence = (0.5·s1 + 0.5·min(1, (s1 − s2) / decisiveMargin)) × (0.5 + 0.5·requiredFound)
 *   where s1 is its score, s2 the runner-up's (0 when alone), and decisiveMargin
 *   SELECTOR_DECISIVE_MARGIN (0.15). A strong candidate that clearly leads and has all its
 *   required arguments lands near 0.9; close runners-up pull it towards 0.5·s1, and each
 *   missing required argument halves its share (all missing: at most 0.5).
 *   Alternatives get the same formula with no margin term: 0.5·s × (0.5 + 0.5·requiredFound).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { RoutingCandidate } from "@switchyard/packet";
import { requestActions, toolActions } from "./actions.js";
import type { Action } from "./actions.js";
import type { Config } from "./config.js";
import { extractFromScan } from "./extract-args.js";
import type { Extraction } from "./extract-args.js";
import { scanMessage } from "./scan-message.js";
import type { Choice, Selection, SelectionRequest, Selector } from "./selector.js";

export interface ScoredCandidate {
  candidate: RoutingCandidate;
  toolName: string;
  extraction: Extraction;
  /** Required properties in the schema. */
  requiredCount: number;
  retrieval: number;
  argumentFit: number;
  actionFit: number;
  deprecated: boolean;
  score: number;
  confidence: number;
}

/** Multiplier for tools whose description calls them deprecated. */
const DEPRECATED_PENALTY = 0.8;
/** Multiplier for argument fit when an array argument got a single item. */
const SINGLE_ITEM_PENALTY = 0.8;

// "deprecated" as a word in a tool description ("DEPRECATED: Use read_text_file instead").
const DEPRECATED = /\bdeprecated\b/i;

/** The heuristic as a Selector, for the stage and for comparison with a model selector. */
export function heuristicSelector(config: Config): Selector {
  return { kind: "heuristic", select: (request) => heuristicSelect(request, config) };
}

export function heuristicSelect(request: SelectionRequest, config: Config): Selection {
  const ranked = scoreCandidates(request, config);
  const best = ranked[0];
  if (!best) return { choices: [], reasoning: "No candidate tools to choose from." };
  const choices = ranked.map((s): Choice => ({
    toolName: s.toolName,
    params: s.extraction.args,
    confidence: s.confidence,
    reasoning: explain(s, ranked),
  }));
  return { choices, reasoning: choices[0]!.reasoning };
}

/** Every candidate scored and ranked, best first (ties: higher retrieval score, then router order). */
export function scoreCandidates(request: SelectionRequest, config: Config): ScoredCandidate[] {
  const scan = scanMessage(request.text);
  const fallbackScans = request.fallbackTexts.filter((t) => t && t !== request.text).map(scanMessage);
  const wanted = requestActions(request.text);
  const maxScore = Math.max(0, ...request.candidates.map((c) => c.score));
  const weights = {
    retrieval: config.SELECTOR_WEIGHT_RETRIEVAL,
    arguments: config.SELECTOR_WEIGHT_ARGUMENTS,
    action: config.SELECTOR_WEIGHT_ACTION,
  };
  const weightSum = weights.retrieval + weights.arguments + weights.action || 1;

  const scored = request.candidates.map((candidate, order) => {
    const tool = candidate.tool;
    const toolName = tool?.name ?? "";
    const schema: JsonObject = tool?.inputSchema ?? {};
    const extraction = extractWithFallback(scan, fallbackScans, schema);
    const requiredCount = requiredOf(schema).length;
    const retrieval = maxScore > 1 ? candidate.score / maxScore : clamp01(candidate.score);
    const argumentFit = argumentFitOf(extraction, requiredCount, scan.paths.filter((p) => p.strong).length);
    const actionFit = actionFitOf(wanted, toolActions(tool?.serverToolName || toolName));
    const deprecated = DEPRECATED.test(tool?.description ?? "");
    const raw = (weights.retrieval * retrieval + weights.arguments * argumentFit + weights.action * actionFit) / weightSum;
    const score = round(raw * (deprecated ? DEPRECATED_PENALTY : 1));
    return { candidate, toolName, extraction, requiredCount, retrieval, argumentFit, actionFit, deprecated, score, confidence: 0, order };
  });

  scored.sort((a, b) => b.score - a.score || b.retrieval - a.retrieval || a.order - b.order);
  const runnerUp = scored[1]?.score ?? 0;
  return scored.map(({ order: _order, ...s }, index) => {
    const found = requiredFound(s.extraction, s.requiredCount);
    const margin = index === 0 ? Math.min(1, Math.max(0, s.score - runnerUp) / config.SELECTOR_DECISIVE_MARGIN) : 0;
    return { ...s, confidence: round((0.5 * s.score + 0.5 * margin) * (0.5 + 0.5 * found)) };
  });
}

/** Extracts from the request; required properties it lacks are taken from the fallback texts, in order. */
function extractWithFallback(scan: ReturnType<typeof scanMessage>, fallbacks: ReturnType<typeof scanMessage>[], schema: JsonObject): Extraction {
  const primary = extractFromScan(scan, schema);
  if (primary.missing.length === 0) return primary;
  const args: JsonObject = { ...primary.args };
  for (const fallback of fallbacks) {
    const more = extractFromScan(fallback, schema);
    for (const name of primary.missing) {
      const value = more.args[name];
      if (!(name in args) && value !== undefined) args[name] = value;
    }
  }
  const order = Object.keys(asObject(schema["properties"]) ?? {});
  return {
    args,
    filled: order.filter((name) => name in args),
    missing: primary.missing.filter((name) => !(name in args)),
    unusedPaths: primary.unusedPaths,
  };
}

function argumentFitOf(extraction: Extraction, requiredCount: number, pathsInRequest: number): number {
  const found = requiredFound(extraction, requiredCount);
  const pathUse = pathsInRequest === 0 ? 1 : 0.5 + 0.5 * ((pathsInRequest - extraction.unusedPaths.length) / pathsInRequest);
  const singleItem = Object.values(extraction.args).some((v) => Array.isArray(v) && v.length === 1);
  return found * pathUse * (singleItem ? SINGLE_ITEM_PENALTY : 1);
}

function requiredFound(extraction: Extraction, requiredCount: number): number {
  return requiredCount === 0 ? 1 : (requiredCount - extraction.missing.length) / requiredCount;
}

function actionFitOf(wanted: Set<Action>, offered: Set<Action>): number {
  if (wanted.size === 0 || offered.size === 0) return 0.5;
  return [...offered].some((a) => wanted.has(a)) ? 1 : 0;
}

function explain(s: ScoredCandidate, ranked: ScoredCandidate[]): string {
  const found = s.requiredCount - s.extraction.missing.length;
  const parts = [
    `${s.toolName}: score ${s.score.toFixed(2)} (retrieval ${s.retrieval.toFixed(2)}, argument fit ${s.argumentFit.toFixed(2)}, action fit ${s.actionFit.toFixed(2)}${s.deprecated ? ", deprecated" : ""})`,
    `required arguments ${found}/${s.requiredCount}${s.extraction.missing.length > 0 ? `, missing ${s.extraction.missing.join(", ")}` : ""}`,
  ];
  if (s.extraction.filled.length > 0) parts.push(`from the request: ${JSON.stringify(s.extraction.args)}`);
  if (s.extraction.unusedPaths.length > 0) parts.push(`unused paths: ${s.extraction.unusedPaths.join(", ")}`);
  const runnerUp = ranked[1];
  if (ranked[0] === s && runnerUp) parts.push(`${(s.score - runnerUp.score).toFixed(2)} ahead of ${runnerUp.toolName}`);
  return `${parts.join("; ")}.`;
}

function requiredOf(schema: JsonObject): string[] {
  const required = schema["required"];
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : [];
}

function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
