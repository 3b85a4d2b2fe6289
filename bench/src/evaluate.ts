import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import { emptyExamples, exampleTexts, learnExample, withExamples } from "@switchyard/bus";
import type { ToolExamples } from "@switchyard/bus";
import type { ToolDefinition } from "@switchyard/packet";
import { defaultConfig as routerDefaults } from "@switchyard/embedding-router";
import { DEFAULT_MIN_SCORE, EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { EmbeddedIndexOptions, Embedder, NoToolSettings, ToolFilter } from "@switchyard/retrieval";
import { learnSplit } from "./learn-split.js";
import { mean, ndcgAt, NoToolTally, percentile, reciprocalRank, recallAt, round, roundOrNull } from "./metrics.js";
import { noToolAnswers } from "./no-tool.js";

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
  /** Wall time of the router's search per scored case. */
  latencyMs: { p50: number; p99: number };
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
  /** Learned examples kept per tool. @default DEFAULT_LEARN_MAX */
  learnMax?: number;
  /** @default { minScore: DEFAULT_MIN_SCORE } */
  noTool?: NoToolSettings;
  /** Folds of the no-tool answer's cross-validation (no-tool.ts); 0: the shipped model. @default DEFAULT_FOLDS */
  folds?: number;
  /** Called after each scored case. */
  onProgress?: (done: number, total: number) => void;
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
  await index.upsert(withLearnedExamples(dataset.tools, learned, options.learnMax));
  const noToolSettings = options.noTool ?? { minScore: DEFAULT_MIN_SCORE };

  const recall = new Map<number, number[]>(RECALL_KS.map((k) => [k, []]));
  const rr: number[] = [];
  const ndcg: number[] = [];
  const latencies: number[] = [];
  const noTool = new NoToolTally();
  const router = { ...routerDefaults(), ROUTER_MIN_SCORE: noToolSettings.minScore };
  const answers = await noToolAnswers(dataset, scored, index, { folds: options.folds, seed: options.seed ?? DEFAULT_SEED, router });
  for (const [i, c] of scored.entries()) {
    const own: ToolFilter | undefined = c.candidates ? { names: c.candidates } : undefined;
    const filter = options.candidates ? own : undefined;
    const started = performance.now();
    const results = await index.search(c.query, { limit: DEPTH, filter });
    latencies.push(performance.now() - started);

    if (c.expected.length > 0) {
      const ranked = results.map((r) => r.tool.name);
      for (const k of RECALL_KS) recall.get(k)!.push(recallAt(c.expected, ranked, k));
      rr.push(reciprocalRank(c.expected, ranked));
      ndcg.push(ndcgAt(c.expected, ranked, DEPTH));
    }
    noTool.add(answers[i]!, c.expected.length === 0);
    options.onProgress?.(i + 1, scored.length);
  }

  return {
    dataset: dataset.name,
    n: scored.length,
    recall: Object.fromEntries(RECALL_KS.map((k) => [String(k), round(mean(recall.get(k)!))])),
    mrr: round(mean(rr)),
    ndcg10: round(mean(ndcg)),
    noTool: { precision: roundOrNull(noTool.precision), recall: roundOrNull(noTool.recall) },
    latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
  };
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
