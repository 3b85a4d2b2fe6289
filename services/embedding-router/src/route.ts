import { create } from "@bufbuild/protobuf";
import {
  addFallback,
  addReflection,
  candidateByReference,
  contentOf,
  finish,
  intentOf,
  Packet_State,
  RoutingCandidate_Source,
  RoutingCandidateSchema,
  routingOf,
  scopeOf,
  SpellingCorrectionSchema,
  ToolNeedVerdictSchema,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { Fallback, Packet, RoutingCandidate, StageOutcome, ToolDefinition, ToolNeedVerdict } from "@switchyard/packet";
import type { Config } from "./config.js";
import { exampleId } from "@switchyard/learning";
import { DEFAULT_TOOL_NEED_THRESHOLD, isNoTool, judgeToolNeed, matchesFilter } from "@switchyard/retrieval";
import { foreignLanguage } from "@switchyard/request-text";
import type { CorrectedText } from "@switchyard/request-text";
import type { CatalogStats, ScoredTool, ToolFilter, ToolIndex, ToolNeedGateSettings } from "@switchyard/retrieval";

/** What the router is asked: the same for the route stage and the route-only API. */
export interface RouteQuery {
  query: string;
  /** Earlier turns the query points back at, oldest first (`SearchOptions.context`). */
  context?: readonly string[];
  /** Semantic candidates wanted; absent or 0 means the configured default (see `routeCandidates`). */
  topK?: number;
  /** Allow-list, pools and domains (empty or absent lists do not restrict), and the tenant whose tools alone may come back. */
  filter?: ToolFilter;
}

export type RoutingSettings = Pick<
  Config,
  "ROUTER_MODE" | "ROUTER_TOP_K" | "ROUTER_MIN_SCORE" | "ROUTER_SCORE_THRESHOLD" | "ROUTER_MAX_CANDIDATES"
>;

/**
 * The candidates for one query: semantic ones from the index, then the core
 * tools not already among them.
 *
 * - `topk` mode: the K best tools (K = `req.topK` or ROUTER_TOP_K), without
 *   those scoring below ROUTER_MIN_SCORE.
 * - `threshold` mode: every tool scoring at least ROUTER_SCORE_THRESHOLD, at
 *   most `req.topK` or else ROUTER_MAX_CANDIDATES.
 * - Core tools (`catalogCore`, the catalog's tools with `core` set) come after
 *   the semantic ones, source CORE, with their score for the query (0 when
 *   they do not match at all; scored in the same search, `SearchOptions.include`),
 *   best first. They are not merged by score:
 *   the selector sees the query's matches first and the always-on tools
 *   after, whatever their scores. A core tool that matched well enough to be
 *   a semantic candidate appears once, as SEMANTIC.
 * - The request's filter (allow-list, pools, domains, tenant) applies to both: no tool outside it is returned.
 *
 * Ties are broken by name, so the same catalog and query give the same list.
 */
export async function routeCandidates(
  index: ToolIndex,
  catalogCore: readonly ToolDefinition[],
  req: RouteQuery,
  config: RoutingSettings,
): Promise<RoutingCandidate[]> {
  const asked = req.topK !== undefined && req.topK > 0 ? Math.floor(req.topK) : undefined;

  const threshold = config.ROUTER_MODE === "threshold";
  const limit = threshold ? (asked ?? config.ROUTER_MAX_CANDIDATES) : (asked ?? config.ROUTER_TOP_K);
  const floor = threshold ? config.ROUTER_SCORE_THRESHOLD : config.ROUTER_MIN_SCORE;
  const core = catalogCore.filter((tool) => matchesFilter(tool, req.filter));
  const found = await index.search(req.query, { limit, filter: req.filter, context: req.context, include: core.map((tool) => tool.name) });
  const top = found.filter((r) => !r.included);
  // "no tool matches" is decided in one place (retrieval's relevance.ts), the same one the evaluation scores
  const matched = isNoTool(top, { minScore: floor }) ? [] : top.filter((r) => r.score >= floor);
  const semantic = matched.map((r) => candidate(r.tool, r.score, RoutingCandidate_Source.SEMANTIC, r.example));

  const present = new Set(semantic.map((c) => c.tool?.name));
  const scores = new Map(found.map((r) => [r.tool.name, r.score]));
  const always = core
    .filter((tool) => !present.has(tool.name))
    .map((tool) => candidate(tool, scores.get(tool.name) ?? 0, RoutingCandidate_Source.CORE))
    .sort((a, b) => b.score - a.score || compareNames(a.tool?.name ?? "", b.tool?.name ?? ""));
  return [...semantic, ...always];
}

/** Candidates and, when routing fell back, why (RouteResponse.warnings). */
export interface RouteResult {
  candidates: RoutingCandidate[];
  /** Empty unless something failed: what failed and what was returned instead. */
  warnings: string[];
  /** Set when no tool matched (core tools aside): how many tools were searched, the catalog within the request's filter. */
  searched?: number;
  /** Set when the embeddings endpoint failed and routing fell back: the packet's record of it (`addFallback`). */
  fallback?: Pick<Fallback, "stage" | "dependency" | "cause" | "detail">;
}

export interface RouteStageDeps {
  /** Usually `(req) => routeWithFallback(index, catalog, req, config)` (fallback.ts). */
  route: (req: RouteQuery) => Promise<RouteResult>;
  /** The catalog's statistics, which the tool-need gate normalises relevance by (retrieval's `catalogStats`). */
  catalogStats: () => CatalogStats;
  /**
   * The router's embedder reads English only (the offline LocalEmbedder): a message in another
   * language that no rule understood is marked as not routable offline instead of being judged.
   */
  englishOnly: boolean;
  /**
   * The tool-need gate: `{ threshold: config.ROUTER_TOOL_NEED_THRESHOLD }`,
   * and a model other than the built-in one if wanted. Absent: the built-in
   * model at the default threshold.
   */
  toolNeed?: ToolNeedGateSettings;
  /** Reads the query's typos as the catalog's words before the search (`ToolIndex.correctSpelling`); absent: searched as written. */
  correctSpelling?: (text: string) => CorrectedText;
}

/** The query as the route searches it, its typos read as the catalog's words, and those words recorded on the packet (`spelling`). */
function spelledQuery(packet: Packet, written: string, correct: RouteStageDeps["correctSpelling"]): { query: string; note: string } {
  const spelled = correct?.(written) ?? { text: written, corrections: [] };
  routingOf(packet).spelling = spelled.corrections.map((c) => create(SpellingCorrectionSchema, c));
  const read = spelled.corrections.map((c) => `${JSON.stringify(c.written)} as ${JSON.stringify(c.read)}`);
  return { query: spelled.text, note: read.length > 0 ? `; read ${read.join(", ")}` : "" };
}

/** How many candidates the reflection-log entry names. */
const SUMMARY_CANDIDATES = 5;

/**
 * The route stage: looks up candidates for the packet's query (the intent's
 * query, else the original prompt) within its allow-list and its tenant's tools, and hands the packet
 * to the selector; when nothing but core tools comes back there is no tool to
 * select, and the packet ends here with the tool status SKIPPED. For a message
 * no intent rule settled, the tool-need gate (retrieval's `judgeToolNeed`)
 * weighs whether it needs one of the candidates and records its verdict on the
 * packet (`toolNeed`), setting `needsTool` when it does. The gate never ends a
 * packet itself: a selection model sees the candidates whatever it says and
 * may answer "none", and the heuristic selector ends the packet on a "not
 * needed" (a wrong "no tool" silently drops a request; a wrong candidate is
 * caught by selection and review). The gate is not asked when routing fell
 * back to the unscored catalog: there is no relevance to judge. Warnings (the
 * router fell back, fallback.ts) go to the reflection log; an error from
 * `deps.route` propagates, so the bus redelivers the packet.
 */
export async function routeStage(packet: Packet, deps: RouteStageDeps): Promise<StageOutcome> {
  const started = performance.now();
  const content = contentOf(packet);
  const written = (intentOf(packet).query || content.originalPrompt).trim();
  const { query, note: spellingNote } = spelledQuery(packet, written, deps.correctSpelling);
  const context = intentOf(packet).queryContext;
  const scope = scopeOf(packet);
  const { candidates, warnings, searched, fallback } = await deps.route({
    query,
    context,
    filter: { tools: scope.tools, pools: scope.pools, domains: scope.domains, tenant: packet.header?.tenant ?? "" },
  });
  if (warnings.length > 0) addReflection(packet, { step: "route", summary: `routing fell back: ${warnings.join("; ")}` });
  if (fallback) addFallback(packet, fallback);

  const routing = routingOf(packet);
  // By reference: the stages after this one look each tool's definition up in their own copy of the catalog.
  routing.candidates = candidates.map(candidateByReference);
  const semantic = candidates.filter((c) => c.source === RoutingCandidate_Source.SEMANTIC);
  const others = candidates.filter((c) => c.source !== RoutingCandidate_Source.SEMANTIC);
  const coreNote = others.length > 0 ? `; always offered: ${others.map((c) => c.tool?.name ?? "?").join(", ")}` : "";

  const need = toolNeedOf(
    { written, query, context, semantic, rule: intentOf(packet).detectedBy || undefined, requested: routing.needsTool, allowList: scope.tools.length > 0 },
    deps,
  );
  if (need.verdict) routing.toolNeed = need.verdict;
  if (need.verdict?.needed) routing.needsTool = true;
  const language = need.verdict?.unreadLanguage;

  if (semantic.length === 0) {
    routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
    addReflection(packet, {
      step: "route",
      summary: `no tool in the catalog matches ${quote(query)}${language ? ` (written in ${language})` : ""}${spellingNote}${coreNote}`,
      durationMs: performance.now() - started,
    });
    const none = `no tool matched the request in the catalog${searched === undefined ? "" : ` (${searched} tools)`}`;
    finish(packet, Packet_State.COMPLETED, routing.toolNeed?.reason || none);
    return { done: true };
  }

  const shown = semantic.slice(0, SUMMARY_CANDIDATES).map((c) => `${c.tool?.name ?? "?"} ${c.score.toFixed(2)}`);
  const more = semantic.length > SUMMARY_CANDIDATES ? ` and ${semantic.length - SUMMARY_CANDIDATES} more` : "";
  addReflection(packet, {
    step: "route",
    summary: `${semantic.length} candidate(s) for ${quote(query)}: ${shown.join(", ")}${more}${spellingNote}${coreNote}${need.note}`,
    confidence: semantic[0]?.score ?? 0,
    durationMs: performance.now() - started,
  });
  packet.state = Packet_State.SELECTING;
  return { next: "select" };
}

/** A routing candidate message; `example`: the example that scored it, by its id (RoutingCandidate.example_id) and its text. */
export function candidate(tool: ToolDefinition, score: number, source: RoutingCandidate_Source, example?: ScoredTool["example"]): RoutingCandidate {
  return create(RoutingCandidateSchema, { tool, score, source, ...(example ? { exampleId: exampleId(example.owner, example.text), example: example.text } : {}) });
}

/** A routed message as the tool-need judgement sees it (the route stage's packet, or a route-only request). */
export interface RoutedMessage {
  /** The message as written: its language is read from this. */
  written: string;
  /** The query searched with (its typos read as the catalog's words) and the earlier turns it points back at. */
  query: string;
  context: readonly string[];
  /** The semantic candidates found, best first. */
  semantic: readonly RoutingCandidate[];
  /** The intent rule that left the message undecided, when one did. */
  rule?: string;
  /** A rule found that the message asks for a tool (the packet's needsTool): the gate lets it through unrecorded. */
  requested: boolean;
  /** The request named the tools it allows. */
  allowList: boolean;
}

/**
 * The tool-need verdict for a routed message, and the words the reflection log
 * adds about it: a message in a language the offline embedder cannot read is
 * marked so, not judged; otherwise, when some candidate has a score (not the
 * unscored whole catalog of a fallback), the gate (retrieval's `judgeToolNeed`)
 * weighs it, and its verdict is recorded unless a rule already asked for a tool.
 * No verdict when there is nothing to judge.
 */
export function toolNeedOf(message: RoutedMessage, deps: Pick<RouteStageDeps, "catalogStats" | "englishOnly" | "toolNeed">): { verdict?: ToolNeedVerdict; note: string } {
  const { semantic, query, context } = message;
  // A message the router cannot read is never "no tool": it goes on to a selection model, or offline ends saying why,
  // even one a rule found a request in ("lee el archivo notes/todo.md"): its candidates came from the path alone.
  const language = deps.englishOnly ? foreignLanguage(message.written) : undefined;
  if (language) {
    const unread = `cannot route a message in ${language} offline: the built-in embedder reads English only`;
    const setting = "configure an embeddings endpoint (EMBEDDINGS_BASE_URL)";
    const found = semantic.length > 0;
    return {
      verdict: create(ToolNeedVerdictSchema, {
        needed: message.requested,
        unreadLanguage: language,
        reason: found ? `${unread}; ${setting} or a selection model (SELECTOR_MODEL)` : `${unread} and found no candidate; ${setting}`,
      }),
      note: found ? `; written in ${language}, which the offline embedder cannot read` : "",
    };
  }
  if (!semantic.some((c) => c.score > 0)) return { note: "" };
  const input = {
    // the gate judges the words that were searched with, the context included
    query: [...context, query].join("\n"),
    catalog: deps.catalogStats(),
    rule: message.rule,
    results: semantic.flatMap((c) => (c.tool ? [{ tool: c.tool, score: c.score }] : [])),
    requested: message.requested,
    allowList: message.allowList,
  };
  const verdict = judgeToolNeed(input, deps.toolNeed);
  const best = `${semantic[0]?.tool?.name ?? "?"} ${semantic[0]?.score.toFixed(2)}`;
  const probability = `tool-need probability ${verdict.probability.toFixed(2)}`;
  const why = `${probability}; ${best} covers ${percent(verdict.relevance.coverage)} of the message's content words`;
  const note = `; ${why}${verdict.needed ? "" : "; likely no tool needed (the selection decides)"}`;
  if (message.requested) return { note };
  const threshold = deps.toolNeed?.threshold ?? DEFAULT_TOOL_NEED_THRESHOLD;
  const reason = verdict.needed
    ? `tool needed: ${probability} ≥ ${threshold.toFixed(2)}`
    : `no tool needed: ${probability} < ${threshold.toFixed(2)} (best match ${best}); ` +
      "to route it anyway, name the file or tool, set SELECTOR_MODEL to let a model decide, or lower ROUTER_TOOL_NEED_THRESHOLD";
  return { verdict: create(ToolNeedVerdictSchema, { needed: verdict.needed, probability: verdict.probability, threshold, reason }), note };
}

const QUOTE_MAX = 80;

function quote(text: string): string {
  const short = text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text;
  return JSON.stringify(short);
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
