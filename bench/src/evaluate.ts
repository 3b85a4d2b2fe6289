import { clone } from "@bufbuild/protobuf";
import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { DEFAULT_MIN_SCORE, EmbeddedIndex, isNoTool, LocalEmbedder } from "@switchyard/retrieval";
import type { EmbeddedIndexOptions, Embedder, NoToolSettings, ToolFilter } from "@switchyard/retrieval";
import { learnSplit } from "./learn-split.js";
import { mean, ndcgAt, NoToolTally, percentile, reciprocalRank, recallAt } from "./metrics.js";

/** The cut-offs of recall@k; the search asks for the largest. */
export const RECALL_KS = [1, 3, 5, 10] as const;
const DEPTH = Math.max(...RECALL_KS);

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
  /** @default { minScore: DEFAULT_MIN_SCORE } */
  noTool?: NoToolSettings;
  /** Called after each scored case. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Scores the router's retrieval on one dataset. The index is the product's
 * `EmbeddedIndex`, each case is one `search` (the call the router's
 * `routeCandidates` makes, with the case's candidates as the allow-list under
 * `--candidates`), and "no tool" is the router's own `isNoTool` over the
 * results. The no-tool decision of a case with `candidates` is taken within
 * them, where BFCL's labels hold, even when the ranking is over the whole catalog.
 */
export async function evaluate(dataset: BenchDataset, options: EvalOptions = {}): Promise<EvalResult> {
  const { learned, scored } =
    (options.learnFraction ?? 0) > 0
      ? learnSplit(dataset.cases, options.learnFraction!, options.seed ?? DEFAULT_SEED)
      : { learned: [], scored: dataset.cases };
  const index = new EmbeddedIndex(options.embedder ?? new LocalEmbedder(), options.index);
  await index.upsert(withLearnedExamples(dataset.tools, learned));
  const noToolSettings = options.noTool ?? { minScore: DEFAULT_MIN_SCORE };

  const recall = new Map<number, number[]>(RECALL_KS.map((k) => [k, []]));
  const rr: number[] = [];
  const ndcg: number[] = [];
  const latencies: number[] = [];
  const noTool = new NoToolTally();
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
    const decided = own && !filter ? await index.search(c.query, { limit: DEPTH, filter: own }) : results;
    noTool.add(isNoTool(decided, noToolSettings), c.expected.length === 0);
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
 * The catalog with each learned query added to the examples of its expected
 * tools, as learning from use does: deduplicated, the tool's own examples kept.
 */
export function withLearnedExamples(tools: readonly ToolDefinition[], learned: readonly BenchCase[]): ToolDefinition[] {
  const extra = new Map<string, string[]>();
  for (const c of learned) {
    for (const name of new Set(c.expected)) {
      const list = extra.get(name) ?? [];
      list.push(c.query);
      extra.set(name, list);
    }
  }
  return tools.map((tool) => {
    const added = extra.get(tool.name);
    if (!added) return tool;
    const copy = clone(ToolDefinitionSchema, tool);
    copy.examples = [...new Set([...tool.examples, ...added])];
    return copy;
  });
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function roundOrNull(x: number | null): number | null {
  return x === null ? null : round(x);
}
