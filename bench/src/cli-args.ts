import { parseArgs } from "node:util";
import { DEFAULT_MIN_SCORE } from "@switchyard/retrieval";
import { DEFAULT_LEARN_MAX, DEFAULT_SEED } from "./evaluate.js";
import type { ToolNeedSource } from "./no-tool.js";

/** The datasets `pnpm eval` runs when none is named, those present in the bench folder. */
export const DEFAULT_DATASETS = ["metatool", "bfcl", "apibank", "livemcp"] as const;

/** The catalog size at which route latency is measured unless told otherwise (the target). */
export const DEFAULT_LATENCY_TOOLS = 2000;

/** Cases in flight at once unless told otherwise: a model endpoint answers several requests at a time. */
export const DEFAULT_CONCURRENCY = 4;

export interface EvalArgs {
  /** Named datasets (empty: the defaults found in the bench folder, unless files are given). */
  datasets: string[];
  /** A tools file and a queries file in the benchmark format. */
  files?: { tools: string; queries: string };
  json: boolean;
  candidates: boolean;
  learnFraction: number;
  /** Share of the learned cases taught to a wrong tool. */
  labelNoise: number;
  learnMax: number;
  seed: number;
  minScore: number;
  /** The tool-need model that answers the no-tool decision: leave-one-catalog-out unless `--folds` says otherwise. */
  toolNeed: ToolNeedSource;
  /** Figures per tag as well. */
  byTag: boolean;
  /** undefined: the default folder, bench/results. */
  out?: string;
  /** 0: not measured. */
  latencyTools: number;
  /** Measure the selector (tool top-1, exact arguments) instead of the retrieval. */
  selection: boolean;
  /** Fit the selector's confidence temperature instead (fit-temperature.ts). */
  fitTemperature: boolean;
  /** Also score each dataset's misspelt queries (bench/data/<dataset>.typos.jsonl). */
  typos: boolean;
  /** Cases the pipeline runs at once. */
  concurrency: number;
  /** undefined: the default folder of model answers, bench/results/model-cache. */
  modelCache?: string;
  help: boolean;
}

export const USAGE = `Usage: pnpm eval [--dataset <name>]... | --tools <file> --queries <file>
  --dataset <name>        a benchmark in the bench folder (repeatable, or a comma list);
                          default: ${DEFAULT_DATASETS.join(", ")} where present
  --tools, --queries      a tools file and a queries file in the benchmark format
  --json                  print one JSON object per dataset on stdout
  --candidates            search each case within its own candidates where it has them (BFCL)
  --learn-fraction <f>    learn a seeded fraction f of the cases with an expected tool as examples; score the rest
  --label-noise <f>       with --learn-fraction: teach a seeded fraction f of the learned cases to a wrong tool
  --learn-max <n>         learned examples kept per tool (default ${DEFAULT_LEARN_MAX}, the router's default)
  --seed <n>              seed of that split (default ${DEFAULT_SEED})
  --min-score <x>         the no-tool decision's minimum relevance (default ${DEFAULT_MIN_SCORE})
  --by-tag                the no-tool figures and outcomes also per tag (a case's tags, category or kind)
  --folds <k>             no tool: instead of the default leave-one-catalog-out model (never trained on the
                          evaluated dataset), k-fold cross-validation within the catalog (it has seen the
                          catalog's tools and other queries, so it flatters); 0: the shipped model, trained on
                          every shared dataset
  --selection             measure the selector instead: tool top-1 and exact-argument accuracy on the cases
                          with expected arguments (bfcl, apibank); writes selection-<dataset>.json
                          (honours --dataset, --tools/--queries, --json, --min-score, --out)
  --fit-temperature       fit the built-in selector's confidence temperature to the cases with known answers
                          instead: the temperature fitted on all, and each dataset's ECE at the temperature
                          fitted on the others (leave one catalog out); writes temperature.json
  --typos                 also score the misspelt copies of the queries (bench/data/<dataset>.typos.jsonl):
                          recall as the router searches them (typos corrected), as written, and spelt right
  --latency-tools <n>     also time the search on the largest catalog padded to n tools (default ${DEFAULT_LATENCY_TOOLS}; 0: off)
  --concurrency <n>       cases the pipeline runs at once (default ${DEFAULT_CONCURRENCY}); with a model set, requests in flight
  --model-cache <dir>     where the models' answers are kept by request (default bench/results/model-cache;
                          delete it to ask the models again). Models: the fleet's settings in the environment,
                          LLM_*, INTENT_MODEL, SELECTOR_MODEL, REVIEWER_MODEL, EMBEDDINGS_* (bench/README.md)
  --out <dir>             where <dataset>.json, report.md and the chart go (default bench/results)`;

/** Parses the command line; throws an Error naming the bad option. */
export function parseEvalArgs(argv: readonly string[]): EvalArgs {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      dataset: { type: "string", multiple: true },
      tools: { type: "string" },
      queries: { type: "string" },
      json: { type: "boolean", default: false },
      candidates: { type: "boolean", default: false },
      "learn-fraction": { type: "string" },
      "label-noise": { type: "string" },
      "learn-max": { type: "string" },
      seed: { type: "string" },
      "min-score": { type: "string" },
      folds: { type: "string" },
      "by-tag": { type: "boolean", default: false },
      "latency-tools": { type: "string" },
      selection: { type: "boolean", default: false },
      "fit-temperature": { type: "boolean", default: false },
      typos: { type: "boolean", default: false },
      concurrency: { type: "string" },
      "model-cache": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if ((values.tools === undefined) !== (values.queries === undefined)) {
    throw new Error("--tools and --queries go together");
  }
  const datasets = (values.dataset ?? []).flatMap((d) => d.split(",")).map((d) => d.trim()).filter((d) => d.length > 0);
  const learnFraction = number(values["learn-fraction"], "--learn-fraction", 0);
  if (!(learnFraction >= 0 && learnFraction < 1)) throw new Error(`--learn-fraction must be in [0, 1), got ${learnFraction}`);
  const labelNoise = number(values["label-noise"], "--label-noise", 0);
  if (!(labelNoise >= 0 && labelNoise <= 1)) throw new Error(`--label-noise must be in [0, 1], got ${labelNoise}`);
  const learnMax = number(values["learn-max"], "--learn-max", DEFAULT_LEARN_MAX);
  if (!Number.isInteger(learnMax) || learnMax < 0) throw new Error(`--learn-max must be a whole number, got ${learnMax}`);
  const toolNeed = toolNeedSource(values.folds);
  const latencyTools = number(values["latency-tools"], "--latency-tools", DEFAULT_LATENCY_TOOLS);
  if (!Number.isInteger(latencyTools) || latencyTools < 0) throw new Error(`--latency-tools must be a whole number, got ${latencyTools}`);
  const concurrency = number(values.concurrency, "--concurrency", DEFAULT_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency must be a whole number of at least 1, got ${concurrency}`);
  return {
    datasets,
    files: values.tools !== undefined && values.queries !== undefined ? { tools: values.tools, queries: values.queries } : undefined,
    json: values.json,
    candidates: values.candidates,
    learnFraction,
    labelNoise,
    learnMax,
    seed: number(values.seed, "--seed", DEFAULT_SEED),
    minScore: number(values["min-score"], "--min-score", DEFAULT_MIN_SCORE),
    toolNeed,
    byTag: values["by-tag"],
    out: values.out,
    latencyTools,
    selection: values.selection,
    fitTemperature: values["fit-temperature"],
    typos: values.typos,
    concurrency,
    modelCache: values["model-cache"],
    help: values.help,
  };
}

function toolNeedSource(folds: string | undefined): ToolNeedSource {
  if (folds === undefined) return { kind: "loco" };
  const k = number(folds, "--folds", 0);
  if (!Number.isInteger(k) || k < 0 || k === 1) throw new Error(`--folds must be 0 or a whole number of at least 2, got ${k}`);
  return k === 0 ? { kind: "shipped" } : { kind: "folds", folds: k };
}

function number(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new Error(`${option} must be a number, got "${value}"`);
  return n;
}
