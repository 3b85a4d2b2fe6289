/**
 * `pnpm eval --fit-temperature`: the built-in selector's confidence temperature
 * (SELECTOR_CONFIDENCE_TEMPERATURE) fitted to the cases with known answers, and how well it
 * holds on a catalog it was not fitted on. For each temperature of a grid, every dataset runs
 * through the pipeline; the temperature chosen is the one with the smallest mean expected
 * calibration error over the fitting datasets, each catalog counting once (pooling them would
 * let one catalog's over-confidence hide another's under-confidence). Each dataset is then
 * scored at the temperature fitted on the others (leave one catalog out), and the shipped
 * default is the one fitted on all of them.
 */
import type { BenchDataset } from "@switchyard/bench-data";
import type { Config as RouterConfig } from "@switchyard/embedding-router";
import { EmbeddedIndex } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { defaultConfig as reviewerDefaults } from "@switchyard/reviewer";
import { defaultConfig as selectorDefaults } from "@switchyard/selector";
import { calibrationOf } from "./calibration.js";
import type { CalibrationSample } from "./calibration.js";
import { reviewedSample } from "./evaluate.js";
import { round } from "./metrics.js";
import { pipelineOutcomes } from "./no-tool.js";
import type { ToolNeedSource } from "./no-tool.js";

/** The temperatures tried. */
export const TEMPERATURE_GRID = [0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.12, 0.15, 0.2] as const;

export interface TemperatureFit {
  /** The temperature fitted on every dataset given, and the mean of their ECEs at it. */
  all: { temperature: number; ece: number };
  /** Per dataset: the temperature fitted on the others, its ECE there, and the ECE at the shipped default. */
  heldOut: { dataset: string; temperature: number; ece: number; shippedEce: number }[];
  /** The held-out datasets' calls pooled, each scored at the temperature fitted on the others. */
  heldOutPooledEce: number | null;
  shipped: number;
}

export interface FitOptions {
  embedder: Embedder;
  router: RouterConfig;
  seed: number;
  toolNeed: ToolNeedSource;
  onProgress?: (done: number, total: number) => void;
}

/** Fits the temperature; datasets without known answers (no reviewed calls) only run. */
export async function fitTemperature(datasets: readonly BenchDataset[], options: FitOptions): Promise<TemperatureFit> {
  const samples = new Map<string, Map<number, CalibrationSample[]>>();
  const temperatures = [...new Set<number>([...TEMPERATURE_GRID, selectorDefaults.SELECTOR_CONFIDENCE_TEMPERATURE])].sort((a, b) => a - b);
  let done = 0;
  for (const dataset of datasets) {
    const index = new EmbeddedIndex(options.embedder);
    await index.upsert(dataset.tools);
    const own = new Map<number, CalibrationSample[]>();
    for (const temperature of temperatures) {
      const selector = { ...selectorDefaults, SELECTOR_CONFIDENCE_TEMPERATURE: temperature };
      const ends = await pipelineOutcomes(dataset, dataset.cases, index, { source: options.toolNeed, seed: options.seed, router: options.router, selector });
      own.set(temperature, dataset.cases.flatMap((c, i) => reviewedSample(ends[i]!, c) ?? []));
      options.onProgress?.(++done, datasets.length * temperatures.length);
    }
    if ((own.get(temperatures[0]!) ?? []).length > 0) samples.set(dataset.name, own);
  }
  const calibrationAt = (names: readonly string[], temperature: (name: string) => number) =>
    calibrationOf(names.flatMap((n) => samples.get(n)!.get(temperature(n))!), reviewerDefaults.REVIEW_CONFIDENCE_THRESHOLD).ece;
  const meanEce = (names: readonly string[], temperature: number) => names.reduce((sum, n) => sum + calibrationAt([n], () => temperature), 0) / names.length;
  const best = (names: readonly string[]) => temperatures.reduce((a, b) => (meanEce(names, b) < meanEce(names, a) ? b : a));
  const names = [...samples.keys()];
  const all = best(names);
  const shipped = selectorDefaults.SELECTOR_CONFIDENCE_TEMPERATURE;
  const heldOut = names.length < 2 ? new Map<string, number>() : new Map(names.map((name) => [name, best(names.filter((n) => n !== name))]));
  return {
    all: { temperature: all, ece: round(meanEce(names, all)) },
    heldOut: [...heldOut].map(([dataset, temperature]) => ({
      dataset,
      temperature,
      ece: calibrationAt([dataset], () => temperature),
      shippedEce: calibrationAt([dataset], () => shipped),
    })),
    heldOutPooledEce: heldOut.size > 0 ? calibrationAt([...heldOut.keys()], (n) => heldOut.get(n)!) : null,
    shipped,
  };
}
