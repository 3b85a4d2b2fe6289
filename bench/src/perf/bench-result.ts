import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { percentile } from "../metrics.js";
import { markdownTable } from "../report.js";

/** One configuration of a benchmark: what `--json` prints, one per line, and what the results file holds. */
export interface BenchResult {
  bench: string;
  /** What was run: the system, catalog size, connections, tracing mode, … */
  config: Record<string, string | number | boolean>;
  p50Ms: number;
  p99Ms: number;
  /** Operations per second: searches, routes or packets, as the bench says. */
  throughput: number;
  /** Recall@5 against the datasets' labels (route-scale). */
  recallAt5?: number;
  /** The comparison the bench reports; `ratioOf` says what over what. */
  ratio?: number;
  ratioOf?: string;
  /** route-scale: Switchyard's recall@5 over this row's. */
  recallRatio?: number;
  /** Heap the system's index holds, after garbage collection (route-scale). */
  heapMb?: number;
  /** CPU ms per operation, summed over the processes the bench's notes name (packet-e2e). */
  cpuMsPerOp?: number;
}

/** What a bench returns: its rows, and the lines printed under the table (growth, notes). */
export interface BenchRun {
  results: BenchResult[];
  notes: string[];
}

/** p50 and p99 (nearest rank, bench/src/metrics.ts) of latency samples in ms, to the microsecond. */
export function latencySummary(samplesMs: readonly number[]): { p50Ms: number; p99Ms: number } {
  return { p50Ms: micro(percentile(samplesMs, 50)), p99Ms: micro(percentile(samplesMs, 99)) };
}

/** A figure in ms, to the microsecond. */
export function micro(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Per-second rates and ratios: 3 significant decimals are more than a noisy machine gives. */
export function rate(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The results as a Markdown table, one row per configuration. */
export function resultTable(results: readonly BenchResult[]): string {
  const head = ["bench", "config", "p50 ms", "p99 ms", "per s", "recall@5", "ratio", "ratio of", "recall ratio", "heap MB", "CPU ms/op"];
  const cell = (x: number | undefined, digits: number): string => (x === undefined ? "" : x.toFixed(digits));
  const rows = results.map((r) => [
    r.bench,
    Object.entries(r.config)
      .map(([key, value]) => `${key}=${value}`)
      .join(" "),
    cell(r.p50Ms, 3),
    cell(r.p99Ms, 3),
    cell(r.throughput, 0),
    cell(r.recallAt5, 3),
    cell(r.ratio, 2),
    r.ratioOf ?? "",
    cell(r.recallRatio, 2),
    cell(r.heapMb, 1),
    cell(r.cpuMsPerOp, 2),
  ]);
  return markdownTable(head, rows, 2);
}

/** One JSON object per configuration, one per line (`--json`). */
export function jsonLines(results: readonly BenchResult[]): string {
  return results.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

/** The machine a figure was measured on: what docs/performance.md quotes. */
export interface Machine {
  cpus: number;
  cpuModel: string;
  node: string;
  memoryGb: number;
  /** The 1-minute load average when the file was written: how busy the machine was besides the bench. */
  loadAverage: number;
}

export function machine(): Machine {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    node: process.version,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAverage: Math.round(loadavg()[0]! * 100) / 100,
  };
}

export interface ResultsFile {
  bench: string;
  command: string;
  startedAt: string;
  machine: Machine;
  results: BenchResult[];
  /** What the bench printed under its table: growth, notes. */
  notes: string[];
}

/** Writes `<dir>/<bench>-<timestamp>.json` and returns its path. */
export function writeResults(dir: string, file: Omit<ResultsFile, "machine">): string {
  mkdirSync(dir, { recursive: true });
  // colons are not allowed in Windows file names, and sort the same without them
  const stamp = file.startedAt.replace(/[:.]/g, "-");
  const path = join(dir, `${file.bench}-${stamp}.json`);
  writeFileSync(path, JSON.stringify({ ...file, machine: machine() }, null, 2) + "\n");
  return path;
}
