/**
 * `pnpm bench route-scale`: route-only search latency, recall@5 and heap as the catalog
 * grows, for Switchyard's router index beside its peers (search-engines.ts) on the same catalog
 * and queries (scale-catalog.ts), each size in its own process (route-scale-size.ts).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchResult, BenchRun } from "./bench-result.js";
import { rate } from "./bench-result.js";
import { describeGrowth, growth } from "./growth.js";
import type { SizeRunInput, SizeRunOutput } from "./route-scale-size.js";
import { ENGINES } from "./search-engines.js";

const SIZE_RUN = fileURLToPath(new URL("route-scale-size.js", import.meta.url));

/** The query dataset first (its first 100 tools are the targets), then those that add real tools. */
const DATASETS = ["metatool", "bfcl", "apibank"];

/**
 * Queries timed per size unless told: Orama takes up to seconds per query at 100,000
 * tools, and the default run must stay within minutes, so the largest size's p99 is the
 * slowest of 50. Every system answers the same ones.
 */
export function defaultQueries(size: number): number {
  if (size <= 1_000) return 500;
  if (size <= 10_000) return 200;
  return 50;
}

export async function benchRouteScale(options: { sizes: readonly number[]; queries?: number }): Promise<BenchRun> {
  const results: BenchResult[] = [];
  const notes: string[] = [];
  for (const size of options.sizes) {
    const input: SizeRunInput = { size, queries: options.queries ?? defaultQueries(size), datasets: DATASETS };
    const child = promisify(execFile)(process.execPath, ["--expose-gc", SIZE_RUN, JSON.stringify(input)], { encoding: "utf8", maxBuffer: 1 << 24 });
    child.child.stderr?.on("data", (chunk: string) => process.stderr.write(chunk));
    const out = JSON.parse((await child).stdout.trim().split("\n").at(-1)!) as SizeRunOutput;
    results.push(...withRatios(out.results));
    notes.push(
      `${size.toLocaleString("en-US")} tools (${out.realTools} real, ${size - out.realTools} synthetic), ${out.queries} queries; index built in ` +
        ENGINES.map((e) => `${e} ${(out.buildMs[e]! / 1000).toFixed(1)} s`).join(", ") +
        `; switchyard one tool at a time, as the router reads its catalog at start, ${(out.oneByOneMs / 1000).toFixed(1)} s`,
    );
  }
  notes.push(...growthNotes(results));
  return { results, notes };
}

/** Each competitor's row gets Switchyard's p50 over its own, and its recall@5 ratio. */
export function withRatios(rows: readonly BenchResult[]): BenchResult[] {
  const ours = rows.find((r) => r.config["system"] === "switchyard");
  return rows.map((r) =>
    !ours || r === ours
      ? r
      : {
          ...r,
          ratio: rate(ours.p50Ms / r.p50Ms),
          ratioOf: "switchyard p50 / this p50",
          recallRatio: r.recallAt5 ? rate(ours.recallAt5! / r.recallAt5) : undefined,
        },
  );
}

/** How p50 and the heap grow from 1,000 tools (or the smallest size) to the largest, per system. */
export function growthNotes(results: readonly BenchResult[]): string[] {
  const notes: string[] = [];
  for (const system of ENGINES) {
    const rows = results.filter((r) => r.config["system"] === system).sort((a, b) => Number(a.config["tools"]) - Number(b.config["tools"]));
    const from = rows.find((r) => r.config["tools"] === 1_000) ?? rows[0];
    const to = rows.at(-1);
    if (!from || !to || from === to) continue;
    const at = (r: BenchResult, cost: number) => ({ size: Number(r.config["tools"]), cost });
    notes.push(`${system}: ${describeGrowth("p50", growth(at(from, from.p50Ms), at(to, to.p50Ms)), "ms")}`);
    notes.push(`${system}: ${describeGrowth("heap", growth(at(from, from.heapMb ?? 0), at(to, to.heapMb ?? 0)), "MB")}`);
  }
  return notes;
}
