/**
 * The built-in selector: no model, only the router's scores, the request's words and each
 * candidate's schema.
 *
 * Candidate score (0–1), weights from config and normalised by their sum:
 *   score = (wR·retrieval + wA·argumentFit + wN·nameFit) / (wR + wA + wN), × 0.8 when the
 *   tool's description says it is deprecated (MCP servers keep deprecated aliases such as
 *   filesystem's read_file beside read_text_file, with the same schema).
 *   - retrieval: the embedding-router's score, clamped to 0–1 (if any score exceeds 1, all
 *     are divided by the largest, so a router with another scale still ranks correctly).
 *   - argumentFit = (0.5 + 0.5·requiredFound) × (0.5 + 0.5·pathUse) × plural × fileKind:
 *     requiredFound = required properties filled / required properties (1 when none); a tool
 *     missing arguments is incomplete rather than wrong, so it keeps half (confidence, below,
 *     is what pays for the gap);
 *     pathUse = share of the paths the request names that the arguments use (Extraction.pathUse),
 *     so a tool that ignores the file the user named fits worse;
 *     plural = 0.5 when an array argument got a single item (a many-files tool for one file);
 *     fileKind = 0.5 when the tool's name says text or media and a file argument is of the other kind.
 *   - nameFit = verbFit × nounFit: verbFit is 1 when the request's verb matches the verb in the
 *     tool's name, 0 when both have verbs and they differ, 0.5 when either has none; nounFit is
 *     0.5 when the tool's name speaks of things the request does not mention while another
 *     candidate's name does ("read the file": read_graph), else 1.
 *
 * Confidence of a candidate (0–1): its share of the candidates' scores, temperature-scaled
 * (a softmax), the best one pooled with the candidates that would do the same thing, times
 * its arguments:
 *   confidence = Σ_{j ≡ i} e^(s_j/T) / Σ_j e^(s_j/T) × (0.5 + 0.5·requiredFound)
 *   (for an alternative, j ≡ i is itself only)
 *   - s_j: each candidate's score; a lone candidate, or one far ahead, takes almost all of it;
 *   - j ≡ i: equivalent candidates (same side effect, same verbs in the name, the same
 *     arguments) count as one: hesitating between read_text_file and its deprecated alias
 *     read_file, or list_directory and list_directory_with_sizes, is no doubt about the outcome;
 *   - T: SELECTOR_CONFIDENCE_TEMPERATURE (0.06). Scores are not probabilities: how far apart
 *     they need to be to make one candidate sure is what the temperature says, fitted on the
 *     cases with known answers (temperature scaling; `pnpm eval` reports the reliability
 *     diagram and the temperature fitted leave-one-catalog-out, bench/README.md).
 *   - requiredFound: a call missing required arguments is less likely what the user meant.
 *     A tool that requires none, but takes some, gets NO_ARGUMENTS_FOUND (0.7), not 1: the
 *     request gave no evidence for it, and a tool is no likelier right for taking nothing
 *     (issue 37: argument-free tools made 19 of 36 wrong calls on a catalog where they were 20
 *     of 94 tools). On `pnpm eval`, MetaTool (argument-free tools only): ECE 0.064 → 0.035,
 *     calls at ≥ 0.7 right 75 % → 79 %, no-tool messages called 19 % → 13 %; BFCL 1,010 →
 *     1,008 right calls, API-Bank 63 → 63. (0.5 made MetaTool 84 % right but cost BFCL 13.)
 *   - A tool that takes no argument at all has only its text to show for it: requiredFound is
 *     √(share of the things the request speaks of that its name or description says)
 *     (actions.ts `requestThings`, `thingsSaid`). "what's on my to-do list?" names nothing
 *     list_allowed_directories says (0.85 → 0.50, skipped); "which directories can you access?"
 *     names only what it says (1.00). `pnpm eval --json`, 0.7 → √share: MetaTool calls at ≥ 0.7
 *     347 → 226, right 79 % → 88 %, no-tool messages called 13 % → 4 %, ECE 0.035 → 0.092
 *     (under-confident now: right calls that name little of their tool fall below 0.7); BFCL
 *     1,008 right calls and API-Bank 63 unchanged, LiveMCPBench 11 of 20 → 11 of 19 right. The
 *     share itself (no root) made MetaTool 91 % right on 114 calls, but ECE 0.154.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { canonicalJson, clamp01, ownToolName } from "@switchyard/packet";
import type { RoutingCandidate } from "@switchyard/packet";
import { asksForAnother, requestActions, scanMessage, toolActions } from "@switchyard/request-text";
import type { Action, MessageScan } from "@switchyard/request-text";
import { requiredProperties } from "@switchyard/tool-schema";
import { requestThings, requestWords, thingsSaid, toolNouns } from "./actions.js";
import type { Config } from "./config.js";
import { extractFromScan, propertiesOf } from "./extract-args.js";
import type { Extraction } from "./extract-args.js";
import { fileKindConflict } from "./file-kinds.js";
import type { Choice, Selection, SelectionRequest, Selector } from "./selector.js";

export interface ScoredCandidate {
  candidate: RoutingCandidate;
  toolName: string;
  extraction: Extraction;
  /** Required properties in the schema. */
  requiredCount: number;
  /** For a tool that takes no argument: the share of the request's things its name or description says (`thingsSaid`). */
  thingsSaid?: number;
  retrieval: number;
  argumentFit: number;
  nameFit: number;
  /** The verbs of the tool's name, for telling equivalent runners-up apart. */
  actions: Set<Action>;
  deprecated: boolean;
  score: number;
  confidence: number;
}

/** Multiplier for tools whose description calls them deprecated. */
const DEPRECATED_PENALTY = 0.8;
/** Multiplier for argument fit when an array argument got a single item. */
const SINGLE_ITEM_PENALTY = 0.5;
/** Multiplier for argument fit when a file argument is of the kind the tool's name rules out. */
const FILE_KIND_PENALTY = 0.5;
/** Multiplier for name fit when the tool's name speaks of other things than the request. */
const NOUN_MISMATCH_PENALTY = 0.5;
/** requiredFound of a tool that requires no argument but takes some: neither found nor missing (see the module comment). */
const NO_ARGUMENTS_FOUND = 0.7;
/** Multiplier for argument fit when the request asks for another object ("the other one?") and the tool takes none. */
const NO_OBJECT_PENALTY = 0.5;

// "deprecated" as a word in a tool description ("DEPRECATED: Use read_text_file instead").
const DEPRECATED = /\bdeprecated\b/i;

/** The heuristic as a Selector: the select stage's default, and the baseline a model selector is compared with. */
export function heuristicSelector(config: Config): Selector {
  return { kind: "heuristic", select: (request) => heuristicSelect(request, config) };
}

/** Every candidate as a choice, best first, each with its own arguments, confidence and reasoning. */
export function heuristicSelect(request: SelectionRequest, config: Config): Selection {
  if (request.notNeeded) return { choices: [], reasoning: `The router found no need for a tool: ${request.notNeeded}.`, noToolReason: request.notNeeded };
  const ranked = scoreCandidates(request, config);
  if (ranked.length === 0) return { choices: [], reasoning: "No candidate tools to choose from." };
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
  const words = requestWords(request.text);
  const wanted = requestActions(words);
  const maxScore = Math.max(0, ...request.candidates.map((c) => c.score));
  const weights = [config.SELECTOR_WEIGHT_RETRIEVAL, config.SELECTOR_WEIGHT_ARGUMENTS, config.SELECTOR_WEIGHT_NAME] as const;
  const weightSum = weights[0] + weights[1] + weights[2] || 1;

  const named = request.candidates.map((c) => toolNouns(ownNameOf(c)));
  const someNounMentioned = named.some((nouns) => intersects(nouns, words));
  // "and the other one?" is the same action on another object: a tool that takes no argument has none to change.
  const wantsObject = asksForAnother(request.text);
  const things = requestThings(request.text);

  const scored = request.candidates.map((candidate, order) => {
    const tool = candidate.tool;
    const toolName = tool?.name ?? "";
    const schema: JsonObject = tool?.inputSchema ?? {};
    const extraction = extractWithFallback(scan, fallbackScans, schema);
    const requiredCount = requiredProperties(schema).length;
    const retrieval = maxScore > 1 ? candidate.score / maxScore : clamp01(candidate.score);
    const takesNothing = propertiesOf(schema).length === 0;
    const argumentFit = argumentFitOf(extraction, requiredCount, toolName) * (wantsObject && takesNothing ? NO_OBJECT_PENALTY : 1);
    const actions = toolActions(ownNameOf(candidate));
    const nouns = named[order]!;
    const nounMismatch = someNounMentioned && nouns.size > 0 && !intersects(nouns, words);
    const nameFit = verbFit(wanted, actions) * (nounMismatch ? NOUN_MISMATCH_PENALTY : 1);
    const deprecated = DEPRECATED.test(tool?.description ?? "");
    const raw = (weights[0] * retrieval + weights[1] * argumentFit + weights[2] * nameFit) / weightSum;
    const score = round(raw * (deprecated ? DEPRECATED_PENALTY : 1));
    const said = takesNothing ? { thingsSaid: thingsSaid(things, ownNameOf(candidate), tool?.description ?? "") } : {};
    return { candidate, toolName, extraction, requiredCount, ...said, retrieval, argumentFit, nameFit, actions, deprecated, score, confidence: 0, order };
  });

  scored.sort((a, b) => b.score - a.score || b.retrieval - a.retrieval || a.order - b.order);
  const ranked: ScoredCandidate[] = scored.map(({ order: _order, ...s }) => s);
  return withConfidence(ranked, config.SELECTOR_CONFIDENCE_TEMPERATURE);
}

/** Each candidate's confidence at temperature `temperature` (see the module comment). */
export function withConfidence(ranked: readonly ScoredCandidate[], temperature: number): ScoredCandidate[] {
  const top = Math.max(0, ...ranked.map((s) => s.score));
  // shifted by the top score, so that no exponent overflows
  const weights = ranked.map((s) => Math.exp((s.score - top) / temperature));
  const total = weights.reduce((sum, w) => sum + w, 0);
  const best = ranked[0];
  return ranked.map((s, i) => {
    // the best is pooled with the candidates that would do the same; an alternative stands alone
    const share = s === best ? ranked.reduce((sum, other, j) => sum + (j === 0 || equivalent(s, other) ? weights[j]! : 0), 0) : weights[i]!;
    return { ...s, confidence: round((total > 0 ? share / total : 0) * (0.5 + 0.5 * evidenceFound(s))) };
  });
}

/** requiredFound as confidence counts it: what the request supplied, or for a tool that takes nothing, what it names of it. */
function evidenceFound(s: ScoredCandidate): number {
  if (s.thingsSaid !== undefined) return Math.sqrt(s.thingsSaid);
  return s.requiredCount === 0 ? NO_ARGUMENTS_FOUND : requiredFound(s.extraction, s.requiredCount);
}

/** The best runner-up that would do something different from the best (see the module comment). */
export function rivalOf(ranked: ScoredCandidate[]): ScoredCandidate | undefined {
  const best = ranked[0];
  return best ? ranked.slice(1).find((other) => !equivalent(best, other)) : undefined;
}

/** Same side effect, same verbs in the name, same arguments: choosing either gives the same outcome. */
function equivalent(a: ScoredCandidate, b: ScoredCandidate): boolean {
  if (a.candidate.tool?.sideEffect !== b.candidate.tool?.sideEffect) return false;
  if (a.actions.size === 0 || a.actions.size !== b.actions.size || [...a.actions].some((x) => !b.actions.has(x))) return false;
  return canonicalJson(a.extraction.args) === canonicalJson(b.extraction.args);
}

/** Extracts from the request; required properties it lacks are taken from the fallback texts, in order. */
function extractWithFallback(scan: MessageScan, fallbacks: MessageScan[], schema: JsonObject): Extraction {
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
    pathUse: primary.pathUse,
  };
}

function argumentFitOf(extraction: Extraction, requiredCount: number, toolName: string): number {
  const found = requiredFound(extraction, requiredCount);
  const values = Object.values(extraction.args);
  const singleItem = values.some((v) => Array.isArray(v) && v.length === 1);
  const strings = values.flatMap((v) => (typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []));
  const kindConflict = fileKindConflict(toolName, strings);
  return (
    (0.5 + 0.5 * found) *
    (0.5 + 0.5 * extraction.pathUse) *
    (singleItem ? SINGLE_ITEM_PENALTY : 1) *
    (kindConflict ? FILE_KIND_PENALTY : 1)
  );
}

function requiredFound(extraction: Extraction, requiredCount: number): number {
  return requiredCount === 0 ? 1 : (requiredCount - extraction.missing.length) / requiredCount;
}

function verbFit(wanted: Set<Action>, offered: Set<Action>): number {
  if (wanted.size === 0 || offered.size === 0) return 0.5;
  return intersects(offered, wanted) ? 1 : 0;
}

function explain(s: ScoredCandidate, ranked: ScoredCandidate[]): string {
  const found = s.requiredCount - s.extraction.missing.length;
  const parts = [
    `${s.toolName}: score ${s.score.toFixed(2)} (retrieval ${s.retrieval.toFixed(2)}, argument fit ${s.argumentFit.toFixed(2)}, name fit ${s.nameFit.toFixed(2)}${s.deprecated ? ", deprecated" : ""})`,
    s.thingsSaid !== undefined
      ? `takes no argument; its name and description say ${Math.round(s.thingsSaid * 100)} % of what the request speaks of`
      : `required arguments ${found}/${s.requiredCount}${s.extraction.missing.length > 0 ? `, missing ${s.extraction.missing.join(", ")}` : ""}`,
  ];
  if (s.extraction.filled.length > 0) parts.push(`from the request: ${JSON.stringify(s.extraction.args)}`);
  if (s.extraction.unusedPaths.length > 0) parts.push(`unused paths: ${s.extraction.unusedPaths.join(", ")}`);
  const rival = rivalOf(ranked);
  if (ranked[0] === s) {
    parts.push(rival ? `${(s.score - rival.score).toFixed(2)} ahead of ${rival.toolName}, the best candidate that would do something else` : "no candidate that would do something else");
  }
  return `${parts.join("; ")}.`;
}


function intersects<T>(a: Set<T>, b: Set<T>): boolean {
  for (const x of a) if (b.has(x)) return true;
  return false;
}


function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined;
}


function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The candidate's own tool name ("read_text_file"), which carries its verbs and nouns. */
function ownNameOf(candidate: RoutingCandidate): string {
  return candidate.tool ? ownToolName(candidate.tool) : "";
}
