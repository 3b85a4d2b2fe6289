/**
 * Training the router's tool-need model from benchmark cases, and scoring the
 * "no tool" answer honestly with it: k-fold cross-validation, each case
 * answered by a model trained without it.
 *
 * A case's training example is what the route stage's tool-need gate sees for
 * it: the message, the router's results within the case's allow-list, and
 * whether an intent rule already asked for a tool; labelled with whether the
 * case expects a tool. Only cases the gate decides give an example: not those
 * that end before it (small talk, no tool above the router's floor), nor those
 * whose call the reviewer refuses anyway (a required argument the request does
 * not give). The latter would teach the model that "book me a bus ticket"
 * needs no tool, because BFCL labels it so when the request names no city.
 */
import { benchDir, readBench } from "@switchyard/bench-data";
import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import type { ToolDefinition } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder, mulberry32, shuffleInPlace, ToolNeedTrainingSet, trainToolNeedModel } from "@switchyard/retrieval";
import type { Embedder, ToolNeedExample, ToolNeedInput, ToolNeedModel, ToolNeedTrainOptions } from "@switchyard/retrieval";
import { passEveryMessage, runPipeline } from "./pipeline.js";
import type { PipelineDeps } from "./pipeline.js";

/** The benchmarks the shipped model learns from (those found in the bench folder). */
export const TRAINING_DATASETS = ["metatool", "bfcl", "apibank", "livemcp"] as const;

/**
 * How the model is trained, here and in `pnpm train`: 40 passes at 0.1 with
 * light L2, classes weighted equally (so 0.5 is the even-odds threshold).
 * Features found in only one training message and weights under 0.02 are
 * dropped: 40 % of the weights stay, about 400 KiB instead of 1 MiB, within
 * a point or two of the unpruned model's cross-validated figures.
 */
export const TRAINING_OPTIONS: ToolNeedTrainOptions = {
  epochs: 40,
  learningRate: 0.1,
  l2: 1e-4,
  classWeight: "balanced",
  seed: 1,
  minCount: 2,
  minWeight: 0.02,
};

/** Labelled gate inputs of one dataset, and its catalog. */
export interface TrainingCorpus {
  name: string;
  tools: readonly ToolDefinition[];
  /** One entry per case: its example, or undefined when the case ended before the gate. */
  examples: (ToolNeedExample | undefined)[];
}

/** What the gate would see for each case, running the pipeline up to it. */
export async function collectExamples(
  cases: readonly BenchCase[],
  deps: Omit<PipelineDeps, "toolNeed">,
  onProgress?: (done: number, total: number) => void,
): Promise<(ToolNeedExample | undefined)[]> {
  const out: (ToolNeedExample | undefined)[] = [];
  for (const [i, c] of cases.entries()) {
    let seen: ToolNeedInput | undefined;
    // Lets every message through, so that the rest of the pipeline shows whether the gate's decision matters.
    const recorder = passEveryMessage((input) => (seen = input));
    const outcome = await runPipeline(c, { ...deps, toolNeed: recorder });
    const decidedLater = outcome.noTool && outcome.endedAt === "review";
    out.push(seen && !decidedLater ? { input: seen, needsTool: c.expected.length > 0 } : undefined);
    onProgress?.(i + 1, cases.length);
  }
  return out;
}

/** A dataset's corpus over its own catalog, in a fresh index with the offline embedder. */
export async function corpusOf(dataset: BenchDataset, embedder: Embedder = new LocalEmbedder()): Promise<TrainingCorpus> {
  const index = new EmbeddedIndex(embedder);
  await index.upsert(dataset.tools);
  return { name: dataset.name, tools: dataset.tools, examples: await collectExamples(dataset.cases, { index, tools: dataset.tools }) };
}

const sharedCorpora = new Map<string, Promise<TrainingCorpus>>();

/** The corpora of the training datasets found in the bench folder, computed once per process. */
export async function sharedTrainingCorpora(dir = benchDir()): Promise<TrainingCorpus[]> {
  const out: TrainingCorpus[] = [];
  for (const name of TRAINING_DATASETS) {
    const key = `${dir}\u0000${name}`;
    if (!sharedCorpora.has(key)) {
      let dataset: BenchDataset;
      try {
        dataset = readBench(name, dir);
      } catch {
        continue; // not in this bench folder
      }
      sharedCorpora.set(key, corpusOf(dataset));
    }
    out.push(await sharedCorpora.get(key)!);
  }
  return out;
}

/** Trains on every example of the corpora. */
export function trainOn(corpora: readonly TrainingCorpus[], options: ToolNeedTrainOptions = TRAINING_OPTIONS): ToolNeedModel {
  const examples = corpora.flatMap((c) => c.examples.filter((e): e is ToolNeedExample => e !== undefined));
  return trainToolNeedModel(examples, { ...options, trainedOn: corpora.map((c) => c.name).join(", ") });
}

/** Fold of each of n cases: a seeded shuffle dealt round-robin, so folds differ in size by at most one. */
export function foldsOf(n: number, folds: number, seed: number): number[] {
  if (!Number.isInteger(folds) || folds < 2) throw new RangeError(`folds must be a whole number of at least 2, got ${folds}`);
  const order = shuffleInPlace(Array.from({ length: n }, (_, i) => i), mulberry32(seed));
  const fold = new Array<number>(n);
  order.forEach((caseIndex, position) => (fold[caseIndex] = position % folds));
  return fold;
}

/**
 * One model per fold of `corpus`: model k is trained on `others` and on every
 * case of `corpus` outside fold k. Returns the models and each case's fold.
 * Features are computed once for all folds.
 */
export function crossValidatedModels(
  corpus: TrainingCorpus,
  others: readonly TrainingCorpus[],
  folds: number,
  seed: number,
  options: ToolNeedTrainOptions = TRAINING_OPTIONS,
): { models: ToolNeedModel[]; foldOf: number[] } {
  const foldOf = foldsOf(corpus.examples.length, folds, seed);
  const fromOthers = others.flatMap((c) => c.examples.filter((e): e is ToolNeedExample => e !== undefined));
  const own = corpus.examples.flatMap((e, i) => (e ? [{ example: e, fold: foldOf[i]! }] : []));
  const set = new ToolNeedTrainingSet([...fromOthers, ...own.map((o) => o.example)]);
  const trainedOn = [...others.map((c) => c.name), corpus.name].join(", ");
  const models = Array.from({ length: folds }, (_, k) =>
    set.train({ ...options, trainedOn: `${trainedOn} without fold ${k + 1} of ${folds} of ${corpus.name}` }, (i) => i < fromOthers.length || own[i - fromOthers.length]!.fold !== k),
  );
  return { models, foldOf };
}
