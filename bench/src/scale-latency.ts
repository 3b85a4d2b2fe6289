import { clone } from "@bufbuild/protobuf";
import type { BenchDataset } from "@switchyard/bench-data";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { EmbeddedIndexOptions, Embedder } from "@switchyard/retrieval";
import { percentile } from "./metrics.js";

export interface ScaleLatency {
  dataset: string;
  tools: number;
  p50: number;
  p99: number;
}

/** Queries timed; enough for a stable p99 without doubling the run. */
const MAX_QUERIES = 1000;

/**
 * Route latency at a given catalog size: the dataset's catalog, padded with
 * renamed copies of its own tools (or cut) to `size` tools, searched with the
 * dataset's queries. Only the time is measured: copies make recall meaningless.
 */
export async function scaleLatency(
  dataset: BenchDataset,
  size: number,
  options: { embedder?: Embedder; index?: EmbeddedIndexOptions } = {},
): Promise<ScaleLatency> {
  const index = new EmbeddedIndex(options.embedder ?? new LocalEmbedder(), options.index);
  await index.upsert(padCatalog(dataset.tools, size));
  const latencies: number[] = [];
  for (const c of dataset.cases.slice(0, MAX_QUERIES)) {
    const started = performance.now();
    await index.search(c.query, { limit: 10 });
    latencies.push(performance.now() - started);
  }
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return { dataset: dataset.name, tools: index.size, p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) };
}

/** `size` tools: the catalog, then copies named `<name>~<n>` until there are enough. */
export function padCatalog(tools: readonly ToolDefinition[], size: number): ToolDefinition[] {
  const out = tools.slice(0, size);
  for (let copy = 1; out.length < size && tools.length > 0; copy++) {
    for (const tool of tools) {
      if (out.length >= size) break;
      const twin = clone(ToolDefinitionSchema, tool);
      twin.name = `${tool.name}~${copy}`;
      out.push(twin);
    }
  }
  return out;
}
