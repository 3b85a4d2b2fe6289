import { parseArgs } from "node:util";
import { DEFAULT_MIN_SCORE } from "@switchyard/retrieval";
import { DEFAULT_LEARN_MAX, DEFAULT_SEED } from "./evaluate.js";
import { DEFAULT_FOLDS } from "./tool-need-training.js";

/** The datasets `pnpm eval` runs when none is named, those present in the bench folder. */
export const DEFAULT_DATASETS = ["metatool", "bfcl", "apibank"] as const;

/** The catalog size at which route latency is measured unless told otherwise (the target). */
export const DEFAULT_LATENCY_TOOLS = 2000;

export interface EvalArgs {
  /** Named datasets (empty: the defaults found in the bench folder, unless files are given). */
  datasets: string[];
  /** A tools file and a queries file in the benchmark format. */
  files?: { tools: string; queries: string };
  json: boolean;
  candidates: boolean;
  learnFraction: number;
  learnMax: number;
  seed: number;
  minScore: number;
  /** Folds of the no-tool answer's cross-validation; 0: the shipped model. */
  folds: number;
  /** undefined: the default folder, bench/results. */
  out?: string;
  /** 0: not measured. */
  latencyTools: number;
  /** Measure the selector (tool top-1, exact arguments) instead of the retrieval. */
  selection: boolean;
  help: boolean;
}

export const USAGE = `Usage: pnpm eval [--dataset <name>]... | --tools <file> --queries <file>
  --dataset <name>        a benchmark in the bench folder (repeatable, or a comma list);
                          default: ${DEFAULT_DATASETS.join(", ")} where present
  --tools, --queries      a tools file and a queries file in the benchmark format
  --json                  print one JSON object per dataset on stdout
  --candidates            search each case within its own candidates where it has them (BFCL)
  --learn-fraction <f>    learn a seeded fraction f of the cases with an expected tool as examples; score the rest
  --learn-max <n>         learned examples kept per tool (default ${DEFAULT_LEARN_MAX}, the router's default)
  --seed <n>              seed of that split (default ${DEFAULT_SEED})
  --min-score <x>         the no-tool decision's minimum relevance (default ${DEFAULT_MIN_SCORE})
  --folds <k>             no tool: score each case with a tool-need model trained on the other k-1 folds
                          (default ${DEFAULT_FOLDS}); 0: the shipped model, which was trained on the shared splits
  --selection             measure the selector instead: tool top-1 and exact-argument accuracy on the cases
                          with expected arguments (bfcl, apibank); writes selection-<dataset>.json
                          (honours --dataset, --tools/--queries, --json, --min-score, --out)
  --latency-tools <n>     also time the search on the largest catalog padded to n tools (default ${DEFAULT_LATENCY_TOOLS}; 0: off)
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
      "learn-max": { type: "string" },
      seed: { type: "string" },
      "min-score": { type: "string" },
      folds: { type: "string" },
      "latency-tools": { type: "string" },
      selection: { type: "boolean", default: false },
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
  const learnMax = number(values["learn-max"], "--learn-max", DEFAULT_LEARN_MAX);
  if (!Number.isInteger(learnMax) || learnMax < 0) throw new Error(`--learn-max must be a whole number, got ${learnMax}`);
  const folds = number(values.folds, "--folds", DEFAULT_FOLDS);
  if (!Number.isInteger(folds) || folds < 0 || folds === 1) throw new Error(`--folds must be 0 or a whole number of at least 2, got ${folds}`);
  const latencyTools = number(values["latency-tools"], "--latency-tools", DEFAULT_LATENCY_TOOLS);
  if (!Number.isInteger(latencyTools) || latencyTools < 0) throw new Error(`--latency-tools must be a whole number, got ${latencyTools}`);
  return {
    datasets,
    files: values.tools !== undefined && values.queries !== undefined ? { tools: values.tools, queries: values.queries } : undefined,
    json: values.json,
    candidates: values.candidates,
    learnFraction,
    learnMax,
    seed: number(values.seed, "--seed", DEFAULT_SEED),
    minScore: number(values["min-score"], "--min-score", DEFAULT_MIN_SCORE),
    folds,
    out: values.out,
    latencyTools,
    selection: values.selection,
    help: values.help,
  };
}

function number(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new Error(`${option} must be a number, got "${value}"`);
  return n;
}
