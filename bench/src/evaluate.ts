import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import { emptyExamples, exampleTexts, learnExample, withExamples } from "@switchyard/learning";
import type { ToolExamples } from "@switchyard/learning";
import type { ToolDefinition } from "@switchyard/packet";
import { defaultConfig as routerDefaults } from "@switchyard/embedding-router";
import { DEFAULT_MIN_SCORE, EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { EmbeddedIndexOptions, Embedder, NoToolSettings, ToolFilter } from "@switchyard/retrieval";
import { learnSplit, withLabelNoise } from "./learn-split.js";
import { mean, ndcgAt, NoToolTally, percentile, reciprocalRank, recallAt, round, roundOrNull } from "./metrics.js";
import { defaultConfig as reviewerDefaults } from "@switchyard/reviewer";
import { calibrationOf } from "./calibration.js";
import type { CalibrationResult, CalibrationSample } from "./calibration.js";
import { pipelineOutcomes } from "./no-tool.js";
import type { ToolNeedSource } from "./no-tool.js";
import { PIPELINE_ENDS } from "./pipeline.js";
import type { PipelineEnd, PipelineOutcome } from "./pipeline.js";
import { emptyUsage, modelFigures } from "./model-usage.js";
import type { ModelFigures } from "./model-usage.js";
import type { EvalModels } from "./model-settings.js";
import type { TypoCase } from "./typo-set.js";
import { asExpected, isExpected } from "./alternatives.js";
import { ServerTally } from "./by-server.js";
import type { ServerResult } from "./by-server.js";

/** The cut-offs of recall@k; the search asks for the largest. */
export const RECALL_KS = [1, 3, 5, 10] as const;
const DEPTH = Math.max(...RECALL_KS);

/** Learned examples kept per tool: the router's LEARN_MAX_EXAMPLES_PER_TOOL default. */
export const DEFAULT_LEARN_MAX = 20;

/** The seed of the learn-fraction split unless one is given (the benchmarks' own sampling seed). */
export const DEFAULT_SEED = 20250601;

/** One dataset's figures: the object `--json` prints and `<dataset>.json` holds. */
export interface EvalResult {
  dataset: string;
  /** Cases scored (learned ones excluded). */
  n: number;
  /** Mean recall@k over the scored cases with a non-empty `expected`, keyed "1", "3", "5", "10". */
  recall: Record<string, number>;
  mrr: number;
  ndcg10: number;
  /** The "no tool" answer against `expected: []`, over all scored cases; null where the ratio has no cases. */
  noTool: { precision: number | null; recall: number | null };
  /**
   * Share of the scored cases that need a tool which the pipeline answered "no tool" at
   * intent or route (outcomes.noToolIntent + noToolRoute over their number); null without such cases.
   */
  falseNoTool: number | null;
  /** Share of the scored cases that need no tool (`expected: []`) which ended in a call; null without such cases. */
  noToolCalled: number | null;
  /** Share of the calls at or above the review's threshold whose tool was right (= calibration.atThreshold.right). */
  rightAtThreshold: number | null;
  /** How the pipeline ended the scored cases that need a tool (pipeline.ts, PipelineEnd). */
  outcomes: Outcomes;
  /** Which tool-need model answered: "leave-one-catalog-out", "within-catalog 5-fold", "shipped". */
  toolNeedModel: string;
  /** The review's confidence against the right tool, over the scored calls of cases with known answers (calibration.ts). */
  calibration: CalibrationResult;
  /** With `byTag`: the same per tag (a case's `tags`, else its `category` or `kind`). */
  byTag?: Record<string, TagResult>;
  /** Wall time of the router's search per scored case. */
  latencyMs: { p50: number; p99: number };
  /** With `models`: what the run asked of them, per case and in all (model-usage.ts). */
  model?: ModelFigures;
  /** With `typos`: recall on the misspelt copies of the scored cases beside the same cases spelt right. */
  typos?: TypoResult;
  /** Where the tools name their MCP server (livemcp, livemcp-zero): recall@1/5/10 and nDCG@10 by server (by-server.ts). */
  byServer?: ServerResult;
}

/** Recall@k (keyed as `recall`) on the misspelt requests, searched as the router does (typos corrected) and as written, and on the same requests spelt right. */
export interface TypoResult {
  n: number;
  misspelt: Record<string, number>;
  uncorrected: Record<string, number>;
  clean: Record<string, number>;
  /** Words the router corrected, and how many of them back to the word the typo was made from. */
  corrections: { made: number; right: number };
}

/** Counts of each way a case that needs a tool ended. */
export type Outcomes = Record<PipelineEnd, number>;

/** One tag's figures: its cases, and of those needing a tool how they ended. */
export interface TagResult {
  n: number;
  falseNoTool: number | null;
  noToolCalled: number | null;
  outcomes: Outcomes;
  noTool: { precision: number | null; recall: number | null };
}

export interface EvalOptions {
  /** @default new LocalEmbedder() (the offline default) */
  embedder?: Embedder;
  /** Scoring options of the embedded index; the product's defaults when absent. */
  index?: EmbeddedIndexOptions;
  /** Search each case within its own `candidates` where it has them (BFCL). @default false */
  candidates?: boolean;
  /** Share of the cases with a non-empty `expected` learned as examples instead of scored. @default 0 */
  learnFraction?: number;
  /** @default DEFAULT_SEED */
  seed?: number;
  /** Share of the learned cases taught to a wrong tool (learn-split.ts, withLabelNoise). @default 0 */
  labelNoise?: number;
  /** Learned examples kept per tool. @default DEFAULT_LEARN_MAX */
  learnMax?: number;
  /** @default { minScore: DEFAULT_MIN_SCORE } */
  noTool?: NoToolSettings;
  /** The tool-need model that answers (no-tool.ts). @default { kind: "loco" } */
  toolNeed?: ToolNeedSource;
  /** Also report the figures per tag. @default false */
  byTag?: boolean;
  /** Misspelt copies of the cases (typo-set.ts): their recall is reported beside the clean one (`EvalResult.typos`). */
  typos?: readonly TypoCase[];
  /** Called after each scored case. */
  onProgress?: (done: number, total: number) => void;
  /** The models the fleet's settings name (model-settings.ts); absent: the offline pipeline. */
  models?: EvalModels;
  /** Cases the pipeline runs at once. @default 1 */
  concurrency?: number;
  /** Called after each case the pipeline ran (before the search is scored, `onProgress`). */
  onPipelineProgress?: (done: number, total: number) => void;
}

/**
 * Scores the router's retrieval on one dataset. The index is the product's
 * `EmbeddedIndex`, each case is one `search` (the call the router's
 * `routeCandidates` makes, with the case's candidates as the allow-list under
 * `--candidates`). "No tool" is the product's own answer: the pipeline
 * intent → route → select → review (pipeline.ts) ends without a tool call,
 * its tool-need model cross-validated (no-tool.ts). The no-tool decision of a
 * case with `candidates` is taken within them, where BFCL's labels hold, even
 * when the ranking is over the whole catalog.
 */
export async function evaluate(dataset: BenchDataset, options: EvalOptions = {}): Promise<EvalResult> {
  const { learned, scored } =
    (options.learnFraction ?? 0) > 0
      ? learnSplit(dataset.cases, options.learnFraction!, options.seed ?? DEFAULT_SEED)
      : { learned: [], scored: dataset.cases };
  const index = new EmbeddedIndex(options.embedder ?? new LocalEmbedder(), options.index);
  const taught = withLabelNoise(learned, dataset.tools.map((t) => t.name), options.labelNoise ?? 0, options.seed ?? DEFAULT_SEED);
  await index.upsert(withLearnedExamples(dataset.tools, taught, options.learnMax));
  const noToolSettings = options.noTool ?? { minScore: DEFAULT_MIN_SCORE };

  const recall = new Map<number, number[]>(RECALL_KS.map((k) => [k, []]));
  const misspelt = options.typos ? new Map(options.typos.map((t) => [t.id, t])) : undefined;
  const typos = new TypoTally();
  const servers = new ServerTally(dataset.tools);
  const rr: number[] = [];
  const ndcg: number[] = [];
  const latencies: number[] = [];
  const router = { ...routerDefaults(), ROUTER_MIN_SCORE: noToolSettings.minScore };
  const source = options.toolNeed ?? { kind: "loco" };
  const ends = await pipelineOutcomes(dataset, scored, index, {
    source,
    seed: options.seed ?? DEFAULT_SEED,
    router,
    ...(options.models ? { models: options.models } : {}),
    // as the router: only the offline embedder reads English alone (embedding-router main.ts)
    englishOnly: options.embedder === undefined || options.embedder instanceof LocalEmbedder,
    concurrency: options.concurrency ?? 1,
    ...(options.onPipelineProgress ? { onProgress: options.onPipelineProgress } : {}),
  });
  const all = new OutcomeTally();
  const reviewed: CalibrationSample[] = [];
  const tags = new Map<string, OutcomeTally>();
  for (const [i, c] of scored.entries()) {
    const own: ToolFilter | undefined = c.candidates ? { tools: c.candidates } : undefined;
    const filter = options.candidates ? own : undefined;
    const started = performance.now();
    // as the router searches: its typos read as the catalog's words first (route.ts)
    const results = await index.search(index.correctSpelling(c.query).text, { limit: DEPTH, filter });
    latencies.push(performance.now() - started);

    if (c.expected.length > 0) {
      const ranked = asExpected(results.map((r) => r.tool.name), c);
      for (const k of RECALL_KS) recall.get(k)!.push(recallAt(c.expected, ranked, k));
      rr.push(reciprocalRank(c.expected, ranked));
      const typo = misspelt?.get(c.id);
      if (typo) await typos.add(index, typo, c.expected, ranked, filter);
      ndcg.push(ndcgAt(c.expected, ranked, DEPTH));
      servers.add(c.expected, ranked);
    }
    const outcome = ends[i]!;
    all.add(outcome, c);
    const sample = reviewedSample(outcome, c);
    if (sample) reviewed.push(sample);
    if (options.byTag) for (const tag of tagsOf(c)) tags.set(tag, tags.get(tag) ?? new OutcomeTally()).get(tag)!.add(outcome, c);
    options.onProgress?.(i + 1, scored.length);
  }

  const calibration = calibrationOf(reviewed, reviewerDefaults.REVIEW_CONFIDENCE_THRESHOLD);
  const byServer = servers.result();
  return {
    dataset: dataset.name,
    n: scored.length,
    recall: Object.fromEntries(RECALL_KS.map((k) => [String(k), round(mean(recall.get(k)!))])),
    mrr: round(mean(rr)),
    ndcg10: round(mean(ndcg)),
    ...all.result(),
    rightAtThreshold: calibration.atThreshold.right,
    toolNeedModel: sourceLabel(source),
    calibration,
    latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
    ...(options.models ? { model: caseModelFigures(options.models.named, scored, ends) } : {}),
    ...(misspelt ? { typos: typos.result() } : {}),
    ...(byServer ? { byServer } : {}),
    ...(options.byTag ? { byTag: Object.fromEntries([...tags].sort(([a], [b]) => (a < b ? -1 : 1)).map(([tag, t]) => [tag, { n: t.n, ...t.result() }])) } : {}),
  };
}

/** Recall on misspelt requests beside their clean copies (EvalResult.typos). */
class TypoTally {
  private n = 0;
  private readonly recall = { misspelt: recallLists(), uncorrected: recallLists(), clean: recallLists() };
  private made = 0;
  private right = 0;

  /** Searches the misspelt copy of a case corrected and as written; `ranked` is the clean request's ranking. */
  async add(index: EmbeddedIndex, typo: TypoCase, expected: readonly string[], ranked: readonly string[], filter: ToolFilter | undefined): Promise<void> {
    this.n++;
    const corrected = index.correctSpelling(typo.query);
    this.made += corrected.corrections.length;
    this.right += corrected.corrections.filter((c) => typo.typos.some((t) => t.as.toLowerCase() === c.written && t.word === c.read)).length;
    const search = async (query: string) => (await index.search(query, { limit: DEPTH, filter })).map((r) => r.tool.name);
    const lists: [Map<number, number[]>, readonly string[]][] = [
      [this.recall.misspelt, await search(corrected.text)],
      [this.recall.uncorrected, await search(typo.query)],
      [this.recall.clean, ranked],
    ];
    for (const [list, names] of lists) for (const k of RECALL_KS) list.get(k)!.push(recallAt(expected, names, k));
  }

  result(): TypoResult {
    const at = (lists: Map<number, number[]>) => Object.fromEntries(RECALL_KS.map((k) => [String(k), round(mean(lists.get(k)!))]));
    return {
      n: this.n,
      misspelt: at(this.recall.misspelt),
      uncorrected: at(this.recall.uncorrected),
      clean: at(this.recall.clean),
      corrections: { made: this.made, right: this.right },
    };
  }
}

function recallLists(): Map<number, number[]> {
  return new Map(RECALL_KS.map((k) => [k, []]));
}

/** The model figures of the scored cases; `total` is the run's (run-eval.ts). */
function caseModelFigures(named: Record<string, string>, scored: readonly BenchCase[], ends: readonly PipelineOutcome[]): ModelFigures {
  const cases = scored.map((c, i) => {
    const outcome = ends[i]!;
    // a tool was selected when the packet reached the review
    const selected = c.expected.length > 0 && outcome.endedAt === "review" && outcome.tool !== undefined;
    return { id: c.id, usage: outcome.model ?? emptyUsage(), ...(selected ? { selectedRight: c.expected.includes(outcome.tool!) } : {}) };
  });
  return modelFigures(named, cases);
}

/** A call the review scored (approved, or skipped for its confidence) in a case with known answers: its confidence, and whether its tool was right. */
export function reviewedSample(outcome: PipelineOutcome, c: BenchCase): CalibrationSample | undefined {
  if (!(outcome.end === "call" || outcome.end === "skipped") || c.expected.length === 0 || !outcome.tool) return undefined;
  return { confidence: outcome.packet.toolRouting?.reviewConfidence ?? 0, correct: isExpected(outcome.tool, c) };
}

/** What the report calls the tool-need model of `source`. */
export function sourceLabel(source: ToolNeedSource): string {
  if (source.kind === "folds") return `within-catalog ${source.folds}-fold (has seen the catalog)`;
  return source.kind === "shipped" ? "shipped (trained on every shared dataset)" : "leave-one-catalog-out";
}

/** A case's tags: its own `tags`, else its `category` (BFCL) or `kind` (MetaTool). */
function tagsOf(c: BenchCase): string[] {
  if (c.tags && c.tags.length > 0) return c.tags;
  const one = c.category ?? c.kind;
  return one ? [one] : [];
}

/** The no-tool answer's precision and recall, and how the cases that need a tool ended. */
class OutcomeTally {
  n = 0;
  private readonly noTool = new NoToolTally();
  private readonly outcomes = Object.fromEntries(PIPELINE_ENDS.map((e) => [e, 0])) as Outcomes;
  private needTool = 0;
  private needNone = 0;
  private calledNone = 0;

  add(outcome: PipelineOutcome, c: BenchCase): void {
    this.n++;
    const expectsNone = c.expected.length === 0;
    this.noTool.add(outcome.noTool, expectsNone);
    if (expectsNone) {
      this.needNone++;
      if (outcome.toolCall) this.calledNone++;
      return;
    }
    this.needTool++;
    this.outcomes[outcome.end]++;
  }

  result(): Pick<TagResult, "falseNoTool" | "noToolCalled" | "outcomes" | "noTool"> {
    const dropped = this.outcomes.noToolIntent + this.outcomes.noToolRoute;
    return {
      noTool: { precision: roundOrNull(this.noTool.precision), recall: roundOrNull(this.noTool.recall) },
      falseNoTool: this.needTool > 0 ? round(dropped / this.needTool) : null,
      noToolCalled: this.needNone > 0 ? round(this.calledNone / this.needNone) : null,
      outcomes: { ...this.outcomes },
    };
  }
}

/**
 * The catalog with each learned query taught to its expected tools the way
 * the router learns from use (@switchyard/bus `learnExample`): tidied,
 * deduplicated, too-long queries left out, at most `maxPerTool` kept per
 * tool (the oldest go), then indexed after the tool's own examples.
 */
export function withLearnedExamples(
  tools: readonly ToolDefinition[],
  learned: readonly BenchCase[],
  maxPerTool = DEFAULT_LEARN_MAX,
): ToolDefinition[] {
  const stored = new Map<string, ToolExamples>();
  for (const c of learned) {
    for (const name of new Set(c.expected)) {
      const next = learnExample(stored.get(name) ?? emptyExamples(name), c.query, maxPerTool);
      if (next) stored.set(name, next);
    }
  }
  return tools.map((tool) => {
    const examples = stored.get(tool.name);
    return examples ? withExamples(tool, exampleTexts(examples)) : tool;
  });
}
