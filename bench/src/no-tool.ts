import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import type { Config as RouterConfig } from "@switchyard/embedding-router";
import type { Config as SelectorConfig } from "@switchyard/selector";
import type { ToolIndex, ToolNeedScorer } from "@switchyard/retrieval";
import { ToolNeedModel } from "@switchyard/retrieval";
import pMap from "p-map";
import { runPipeline } from "./pipeline.js";
import type { PipelineModels, PipelineOutcome } from "./pipeline.js";
import { collectExamples, crossValidatedModels, sharedTrainingCorpora, trainOn, TRAINING_DATASETS } from "./tool-need-training.js";

/**
 * Which tool-need model answers a dataset's cases:
 * - `loco` (the measurement): leave one catalog out, a model trained on the other shared
 *   datasets only, never on this dataset's tools or queries; for a dataset that is not one of
 *   the shared ones, that is the shipped model, trained on all of them;
 * - `folds`: within-catalog k-fold cross-validation, each case answered by a model trained on
 *   the other folds and the other datasets; it has seen the catalog, so it flatters;
 * - `shipped`: the shipped model, trained on every shared dataset: on a shared one it measures
 *   how well the model fits its own training data.
 */
export type ToolNeedSource = { kind: "loco" } | { kind: "folds"; folds: number } | { kind: "shipped" };

export interface NoToolOptions {
  /** @default { kind: "loco" } */
  source?: ToolNeedSource;
  /** Seed of the fold split. */
  seed: number;
  /** The router's settings; absent: its defaults. */
  router?: RouterConfig;
  /** The selector's settings; absent: its defaults. */
  selector?: SelectorConfig;
  /** The stages' models (pipeline.ts); absent: the offline pipeline. */
  models?: PipelineModels;
  /** The index's embedder reads English only (pipeline.ts). @default true */
  englishOnly?: boolean;
  /** Cases run at once: a model answers several requests at a time. @default 1 */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * How the product's pipeline ends each case (pipeline.ts, PipelineOutcome), with the
 * tool-need model `options.source` names. `index` holds the dataset's catalog as the
 * evaluation indexed it.
 */
export async function pipelineOutcomes(
  dataset: BenchDataset,
  cases: readonly BenchCase[],
  index: ToolIndex,
  options: NoToolOptions,
): Promise<PipelineOutcome[]> {
  const deps = {
    index,
    tools: dataset.tools,
    ...(options.router ? { router: options.router } : {}),
    ...(options.selector ? { selector: options.selector } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(options.englishOnly !== undefined ? { englishOnly: options.englishOnly } : {}),
  };
  const source = options.source ?? { kind: "loco" };
  const folds = source.kind === "folds";
  const total = folds ? 2 * cases.length : cases.length;
  const progress = (done: number) => options.onProgress?.(done, total);

  let modelOf: (i: number) => ToolNeedScorer;
  if (source.kind === "folds") {
    const examples = await collectExamples(cases, deps, (done) => progress(done));
    const others = (await sharedTrainingCorpora()).filter((corpus) => corpus.name !== queriesOf(dataset.name));
    const { models, foldOf } = crossValidatedModels({ name: dataset.name, tools: dataset.tools, examples }, others, source.folds, options.seed);
    modelOf = (i) => models[foldOf[i]!]!;
  } else {
    const model = source.kind === "shipped" ? ToolNeedModel.builtIn() : await leaveOneCatalogOut(dataset.name);
    modelOf = () => model;
  }
  let done = 0;
  return pMap(
    cases,
    async (c, i) => {
      const outcome = await runPipeline(c, { ...deps, toolNeed: modelOf(i) });
      progress((folds ? cases.length : 0) + ++done);
      return outcome;
    },
    { concurrency: options.concurrency ?? 1 },
  );
}

const locoModels = new Map<string, Promise<ToolNeedModel>>();

/** The training dataset whose queries a dataset asks: its own, or its base's for a catalog variant (livemcp-zero: livemcp). */
function queriesOf(name: string): string {
  return TRAINING_DATASETS.find((d) => name.startsWith(`${d}-`)) ?? name;
}

/**
 * A model trained on the shared datasets other than `name`, once per process. For a dataset
 * of one's own that is every shared dataset: the shipped model (`pnpm train`; a test checks
 * that it is what training on them gives).
 */
export function leaveOneCatalogOut(name: string): Promise<ToolNeedModel> {
  if (queriesOf(name) !== name) return leaveOneCatalogOut(queriesOf(name));
  if (!(TRAINING_DATASETS as readonly string[]).includes(name)) return Promise.resolve(ToolNeedModel.builtIn());
  let model = locoModels.get(name);
  if (!model) {
    model = sharedTrainingCorpora().then((corpora) => {
      const others = corpora.filter((c) => c.name !== name);
      if (others.length === 0) throw new Error(`no shared dataset other than ${name} to train a tool-need model on`);
      return trainOn(others);
    });
    locoModels.set(name, model);
  }
  return model;
}
