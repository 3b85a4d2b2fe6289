/**
 * One catalog size of `pnpm bench route-scale`, in its own process (started with
 * --expose-gc) so that each size's heap is measured from a clean start and a large
 * catalog's garbage does not slow the next. Builds each system's index in turn (up to
 * its first answer), times the same queries through it with tinybench, scores recall@5,
 * times Switchyard's index built again one tool at a time (the router's start), and
 * prints one JSON line.
 */
import { readBench } from "@switchyard/bench-data";
import { Bench } from "tinybench";
import { mean, recallAt } from "../metrics.js";
import { latencySummary, micro, rate } from "./bench-result.js";
import type { BenchResult } from "./bench-result.js";
import { scaleCatalog } from "./scale-catalog.js";
import { ENGINES, searchEngine } from "./search-engines.js";

export interface SizeRunInput {
  size: number;
  queries: number;
  datasets: string[];
}

export interface SizeRunOutput {
  results: BenchResult[];
  buildMs: Record<string, number>;
  /** Switchyard's index built one tool at a time, as the router reads its catalog at start, up to its first answer. */
  oneByOneMs: number;
  queries: number;
  realTools: number;
}

const K = 5;
/**
 * Warmup per system: at least a second and at least 10 searches, of queries that are not
 * timed. With 10 searches and no time, the first system timed in each process paid for
 * the JIT (1.8-2.3x slower as "switchyard" than as "switchyard-1-thread" right after it
 * at 100 and 1,000 tools, where the two are one code path); and at 100,000 tools the
 * router's searches kept getting faster for the first few hundred (every part of a
 * search, docs/performance.md): p50 2.6-3.1 ms after 10 searches, 1.8-2.0 ms after 300,
 * on this 2-core machine. A router in service has answered far more.
 */
const WARMUP = { iterations: 10, ms: 1_000 };

const input = JSON.parse(process.argv[2] ?? "{}") as SizeRunInput;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc: the heap is measured after a collection");
const catalog = scaleCatalog(
  input.datasets.map((name) => readBench(name)),
  input.size,
);
const cases = evenly(catalog.cases, input.queries);
const timed = new Set(cases);
// a search engine that remembered a query would be timed on its memory: warm up on the others (all of them if none is left)
const untimed = catalog.cases.filter((c) => !timed.has(c));
const warmups = untimed.length > 0 ? untimed : cases;
const output: SizeRunOutput = { results: [], buildMs: {}, oneByOneMs: 0, queries: cases.length, realTools: catalog.real };

for (const name of ENGINES) {
  gc();
  const before = footprint();
  const engine = searchEngine(name);
  const started = performance.now();
  await engine.build(catalog.tools);
  // built means answering: Switchyard's index merges what it was given at its first search
  await engine.search(cases[0]!.query, K);
  output.buildMs[name] = Math.round(performance.now() - started);
  gc();
  const heapMb = Math.round(((footprint() - before) / 2 ** 20) * 10) / 10;
  process.stderr.write(`route-scale: ${input.size} tools, ${name} indexed in ${(output.buildMs[name] / 1000).toFixed(1)} s, timing ${cases.length} queries\n`);

  const ranked: string[][] = [];
  let next = 0;
  let warming = true;
  // Every timed iteration searches the next query, so the timed run covers each query once; warmup cycles through the untimed ones.
  const bench = new Bench({ iterations: cases.length, time: 0, warmupIterations: WARMUP.iterations, warmupTime: WARMUP.ms, retainSamples: true, throws: true });
  bench.add(
    name,
    async () => {
      if (warming) {
        await engine.search(warmups[next++ % warmups.length]!.query, K);
        return;
      }
      const at = next++ % cases.length;
      ranked[at] = await engine.search(cases[at]!.query, K);
    },
    {
      beforeAll: (mode) => {
        warming = mode === "warmup";
        next = 0;
      },
    },
  );
  await bench.run();
  const result = bench.tasks[0]!.result;
  if (!("latency" in result) || !result.latency.samples) throw new Error(`${name}: tinybench kept no samples (${result.state})`);
  const samples = [...result.latency.samples];
  output.results.push({
    bench: "route-scale",
    config: { system: name, tools: input.size },
    ...latencySummary(samples),
    throughput: rate(1000 / mean(samples)),
    recallAt5: micro(mean(cases.map((c, i) => recallAt(c.expected, ranked[i] ?? [], K)))),
    heapMb,
  });
}
output.oneByOneMs = await oneByOne();
process.stdout.write(`${JSON.stringify(output)}\n`);

async function oneByOne(): Promise<number> {
  gc!();
  const engine = searchEngine("switchyard");
  const started = performance.now();
  // the router's index takes each build as an upsert: one a tool, as the catalog's watch delivers them
  for (const tool of catalog.tools) await engine.build([tool]);
  await engine.search(cases[0]!.query, K);
  return Math.round(performance.now() - started);
}

/** Heap and ArrayBuffers: the router's index keeps its postings and vectors in typed arrays. */
function footprint(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** `n` items spread evenly over the list (the list itself when it is not longer), so every tool's queries are in. */
function evenly<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}
