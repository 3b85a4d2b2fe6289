import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import type { Config as RouterConfig } from "@switchyard/embedding-router";
import type { ToolIndex } from "@switchyard/retrieval";
import { runPipeline } from "./pipeline.js";
import type { PipelineOutcome } from "./pipeline.js";
import { collectExamples, crossValidatedModels, DEFAULT_FOLDS, sharedTrainingCorpora } from "./tool-need-training.js";

export interface NoToolOptions {
  /**
   * Folds of the cross-validation: each case is answered by a tool-need model
   * trained on the other folds (and on the other shared benchmarks), never by
   * one that saw it. 0: the shipped model, which was trained on the shared
   * splits and so has seen their cases. @default DEFAULT_FOLDS
   */
  folds?: number;
  /** Seed of the fold split. */
  seed: number;
  /**
   * Count every packet that ends without a tool call approved to run as "no tool", the
   * reviewer's low-confidence skips included (PipelineOutcome.toolCall). @default false
   */
  strict?: boolean;
  /** The router's settings; absent: its defaults. */
  router?: RouterConfig;
  onProgress?: (done: number, total: number) => void;
}

/**
 * The product's "no tool" answer for each case (pipeline.ts, PipelineOutcome.noTool,
 * or with `strict` any packet without an approved call). `index` holds the
 * dataset's catalog as the evaluation indexed it.
 */
export async function noToolAnswers(
  dataset: BenchDataset,
  cases: readonly BenchCase[],
  index: ToolIndex,
  options: NoToolOptions,
): Promise<boolean[]> {
  const deps = { index, tools: dataset.tools, ...(options.router ? { router: options.router } : {}) };
  const folds = options.folds ?? DEFAULT_FOLDS;
  const total = folds > 0 ? 2 * cases.length : cases.length;
  const progress = (done: number) => options.onProgress?.(done, total);

  if (folds === 0) {
    const answers: boolean[] = [];
    for (const c of cases) {
      answers.push(answerOf(await runPipeline(c, deps), options.strict));
      progress(answers.length);
    }
    return answers;
  }

  const examples = await collectExamples(cases, deps, (done) => progress(done));
  const others = (await sharedTrainingCorpora()).filter((corpus) => corpus.name !== dataset.name);
  const { models, foldOf } = crossValidatedModels({ name: dataset.name, tools: dataset.tools, examples }, others, folds, options.seed);
  const answers: boolean[] = [];
  for (const [i, c] of cases.entries()) {
    answers.push(answerOf(await runPipeline(c, { ...deps, toolNeed: models[foldOf[i]!]! }), options.strict));
    progress(cases.length + answers.length);
  }
  return answers;
}

function answerOf(outcome: PipelineOutcome, strict = false): boolean {
  return strict ? !outcome.toolCall : outcome.noTool;
}
