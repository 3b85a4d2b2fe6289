import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchDir, readBench, readBenchFiles } from "@switchyard/bench-data";
import type { BenchDataset } from "@switchyard/bench-data";
import { defaultConfig as routerDefaults } from "@switchyard/embedding-router";
import { LocalEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { DEFAULT_DATASETS, parseEvalArgs, USAGE } from "./cli-args.js";
import type { EvalArgs } from "./cli-args.js";
import { evaluate } from "./evaluate.js";
import type { EvalResult } from "./evaluate.js";
import { Progress } from "./progress.js";
import type { ProgressStream } from "./progress.js";
import { calibrationTable, typoTable, markdownReport, modelTable, outcomeTable, recallChart, reliabilityChart, resultsTable, selectionTable, serverTable, temperatureTable } from "./report.js";
import { scaleLatency } from "./scale-latency.js";
import type { ScaleLatency } from "./scale-latency.js";
import { fitTemperature } from "./fit-temperature.js";
import { casesWithArgs, evaluateSelection, selectorsForEval } from "./selection.js";
import type { SelectionResult } from "./selection.js";
import { DEFAULT_MODEL_CACHE, ModelAnswerCache } from "./model-cache.js";
import { modelsFromEnv } from "./model-settings.js";
import type { EvalModels } from "./model-settings.js";
import { withTotal } from "./model-usage.js";
import { readTypoSet } from "./typo-set.js";

export interface EvalIo {
  stdout: Pick<NodeJS.WritableStream, "write">;
  stderr: ProgressStream;
  /** Where the fleet's model settings are read (model-settings.ts). @default process.env */
  env?: Record<string, string | undefined>;
}

/** bench/results beside this package's dist/ (or src/ under tsx). */
const DEFAULT_OUT = fileURLToPath(new URL("../results/", import.meta.url));
const CHART = "recall-at-k.svg";
const RELIABILITY = "reliability.svg";

/** The whole `pnpm eval` run; returns the exit code (2 for a bad command line, 1 for a failed run). */
export async function runEval(argv: readonly string[], io: EvalIo): Promise<number> {
  let args: EvalArgs;
  try {
    args = parseEvalArgs(argv);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }

  let datasets: BenchDataset[];
  try {
    datasets = loadDatasets(args);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }

  const offline = new LocalEmbedder();
  if (args.selection) return runSelection(datasets, args, io, offline);
  if (args.fitTemperature) return runFitTemperature(datasets, args, io, offline);
  let models: EvalModels | undefined;
  const modelCache = new ModelAnswerCache(args.modelCache !== undefined ? resolve(args.modelCache) : DEFAULT_MODEL_CACHE);
  try {
    models = modelsFromEnv(io.env ?? process.env, modelCache);
  } catch (err) {
    io.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  if (models) io.stderr.write(`models: ${Object.entries(models.named).map(([role, model]) => `${role} ${model}`).join(", ")}; answers cached in ${modelCache.dir}\n`);
  const embedder = models?.embedder ?? offline;
  const results: EvalResult[] = [];
  for (const dataset of datasets) {
    const progress = new Progress(io.stderr, dataset.name);
    const started = performance.now();
    const asked = models ? new Progress(io.stderr, `${dataset.name} (models)`) : undefined;
    const run = () => evaluate(dataset, {
      embedder,
      candidates: args.candidates,
      learnFraction: args.learnFraction,
      labelNoise: args.labelNoise,
      learnMax: args.learnMax,
      seed: args.seed,
      noTool: { minScore: args.minScore },
      toolNeed: args.toolNeed,
      byTag: args.byTag,
      onProgress: (done, total) => progress.update(done, total),
      ...(args.typos ? { typos: readTypoSet(dataset.name) } : {}),
      concurrency: args.concurrency,
      ...(models ? { models, onPipelineProgress: (done: number, total: number) => asked?.update(done, total) } : {}),
    });
    const result = models ? await measured(models, run) : await run();
    if (asked && result.model?.total) {
      const { requests, cached, failed, promptTokens, completionTokens } = result.model.total;
      asked.done(`${requests} requests (${cached} from the cache, ${failed} failed), ${promptTokens} prompt and ${completionTokens} completion tokens`);
    }
    progress.done(`${result.n} cases, recall@5 ${result.recall["5"]!.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    if (result.typos) io.stderr.write(`${dataset.name}: misspelt recall@5 ${result.typos.misspelt["5"]!.toFixed(3)} (as written ${result.typos.uncorrected["5"]!.toFixed(3)}), spelt right ${result.typos.clean["5"]!.toFixed(3)}\n`);
    results.push(result);
    if (args.json) io.stdout.write(`${JSON.stringify(result)}\n`);
  }

  let scale: ScaleLatency | undefined;
  const largest = [...datasets].sort((a, b) => b.tools.length - a.tools.length)[0];
  if (args.latencyTools > 0 && largest) {
    scale = await scaleLatency(largest, args.latencyTools, { embedder });
    io.stderr.write(`latency at ${scale.tools} tools (${scale.dataset} padded): p50 ${scale.p50} ms, p99 ${scale.p99} ms\n`);
  }

  const out = outDir(args);
  for (const r of results) writeFileSync(join(out, `${r.dataset}.json`), `${JSON.stringify(r, null, 2)}\n`);
  const command = ["pnpm eval", ...argv].join(" ");
  writeFileSync(join(out, CHART), recallChart(results));
  writeFileSync(join(out, RELIABILITY), reliabilityChart(results));
  writeFileSync(join(out, "report.md"), markdownReport(results, { command, embedder: embedder.id, scale, chart: CHART, reliability: RELIABILITY }));
  if (!args.json) io.stdout.write(`${resultsTable(results)}\n\n${outcomeTable(results)}\n\n${calibrationTable(results)}\n`);
  if (!args.json && models) io.stdout.write(`\n${modelTable(results)}\n`);
  if (!args.json && results.some((r) => r.typos)) io.stdout.write(`\n${typoTable(results)}\n`);
  if (!args.json && results.some((r) => r.byServer)) io.stdout.write(`\n${serverTable(results)}\n`);
  io.stderr.write(`report: ${join(out, "report.md")}\n`);
  return 0;
}

/** The run's result with every model request made during it counted as its total. */
async function measured(models: EvalModels, run: () => Promise<EvalResult>): Promise<EvalResult> {
  const { value, usage } = await models.meter.measure(run);
  return value.model ? { ...value, model: withTotal(value.model, usage) } : value;
}

/** `--selection`: each selector of `selectorsForEval` on each dataset with expected arguments. */
async function runSelection(datasets: readonly BenchDataset[], args: EvalArgs, io: EvalIo, embedder: Embedder): Promise<number> {
  const out = outDir(args);
  const router = { ...routerDefaults(), ROUTER_MIN_SCORE: args.minScore };
  const selectors = selectorsForEval(process.env);
  const results: SelectionResult[] = [];
  for (const dataset of datasets) {
    if (casesWithArgs(dataset).length === 0) {
      io.stderr.write(`${dataset.name}: no cases with expected arguments, skipped\n`);
      continue;
    }
    const own: SelectionResult[] = [];
    for (const selector of selectors) {
      const progress = new Progress(io.stderr, `${dataset.name} (${selector.kind})`);
      const started = performance.now();
      const result = await evaluateSelection(dataset, { selector, embedder, router, onProgress: (done, total) => progress.update(done, total) });
      progress.done(`${result.n} cases, tool top-1 ${result.toolAccuracy.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      own.push(result);
      if (args.json) io.stdout.write(`${JSON.stringify(result)}\n`);
    }
    writeFileSync(join(out, `selection-${dataset.name}.json`), `${JSON.stringify(own, null, 2)}\n`);
    results.push(...own);
  }
  if (!args.json) io.stdout.write(`${selectionTable(results)}\n`);
  return 0;
}

/** `--fit-temperature`: fit-temperature.ts, printed as a table (or JSON) and written to temperature.json. */
async function runFitTemperature(datasets: readonly BenchDataset[], args: EvalArgs, io: EvalIo, embedder: Embedder): Promise<number> {
  const progress = new Progress(io.stderr, "temperature");
  const router = { ...routerDefaults(), ROUTER_MIN_SCORE: args.minScore };
  const fit = await fitTemperature(datasets, { embedder, router, seed: args.seed, toolNeed: args.toolNeed, onProgress: (done, total) => progress.update(done, total) });
  progress.done(`fitted on all: ${fit.all.temperature} (ECE ${fit.all.ece}); shipped ${fit.shipped}`);
  writeFileSync(join(outDir(args), "temperature.json"), `${JSON.stringify(fit, null, 2)}\n`);
  io.stdout.write(args.json ? `${JSON.stringify(fit)}\n` : `${temperatureTable(fit)}\n`);
  return 0;
}

/** The results folder, created. */
function outDir(args: EvalArgs): string {
  const out = args.out !== undefined ? resolve(args.out) : DEFAULT_OUT;
  mkdirSync(out, { recursive: true });
  return out;
}

function loadDatasets(args: EvalArgs): BenchDataset[] {
  const out: BenchDataset[] = [];
  if (args.files) {
    const name = basename(args.files.tools).replace(/\.tools\.jsonl$|\.jsonl$/, ""); // "x.tools.jsonl" → "x"
    out.push(readBenchFiles(name, args.files.tools, args.files.queries));
  }
  const dir = benchDir();
  for (const name of args.datasets) out.push(readBench(name, dir));
  if (out.length === 0) {
    for (const name of DEFAULT_DATASETS) if (existsSync(join(dir, `${name}.tools.jsonl`))) out.push(readBench(name, dir));
    if (out.length === 0) throw new Error(`no benchmark found in ${dir} (looked for ${DEFAULT_DATASETS.join(", ")})`);
  }
  return out;
}
