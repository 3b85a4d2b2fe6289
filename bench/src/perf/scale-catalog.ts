import { create } from "@bufbuild/protobuf";
import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { mulberry32, shuffleInPlace } from "@switchyard/retrieval";

/** A catalog of a given size with the cases whose expected tools are all in it. */
export interface ScaleCatalog {
  tools: ToolDefinition[];
  cases: BenchCase[];
  /** How many of the tools are real (from the datasets), the rest synthesised. */
  real: number;
}

/** Tools the queries are about: they are in every catalog, the smallest (100) included. */
export const TARGET_TOOLS = 100;

const SEED = 20_250_601;

/**
 * The catalog of `size` tools: the first {@link TARGET_TOOLS} tools of the query dataset
 * (the first dataset), then the other real tools of every dataset, then synthetic ones
 * (see {@link synthesiseTool}), shuffled with a fixed seed. The cases are the query
 * dataset's cases with an expected tool, all among the targets, so every size answers
 * the same queries and recall@5 compares across sizes and systems.
 */
export function scaleCatalog(datasets: readonly BenchDataset[], size: number): ScaleCatalog {
  if (size < TARGET_TOOLS) throw new Error(`a scale catalog needs at least ${TARGET_TOOLS} tools, got ${size}`);
  const [queryDataset] = datasets;
  if (!queryDataset) throw new Error("no dataset");
  const real = uniqueByName(datasets.flatMap((d) => d.tools));
  const targets = new Set(queryDataset.tools.slice(0, TARGET_TOOLS).map((t) => t.name));
  const ordered = [...real.filter((t) => targets.has(t.name)), ...real.filter((t) => !targets.has(t.name))];
  const tools = ordered.slice(0, size);
  const names = new Set(tools.map((t) => t.name));
  for (let i = 0; tools.length < size; i++) {
    const tool = synthesiseTool(real, i, names);
    names.add(tool.name);
    tools.push(tool);
  }
  shuffleInPlace(tools, mulberry32(SEED));
  const cases = queryDataset.cases.filter((c) => c.expected.length > 0 && c.expected.every((name) => targets.has(name)));
  return { tools, cases, real: Math.min(size, ordered.length) };
}

/**
 * The i-th synthetic tool: a name joined from the head of one real tool's name and the
 * tail of another's, the first half of one description and the second half of another's,
 * and a third tool's parameters. It shares the catalog's vocabulary, as the tools of a
 * large real catalog share their domain's, without being a copy of any tool, so it
 * competes with the real ones and recall@5 stays meaningful.
 */
export function synthesiseTool(real: readonly ToolDefinition[], i: number, taken: ReadonlySet<string>): ToolDefinition {
  const n = real.length;
  const at = (j: number): ToolDefinition => real[j % n]!;
  const a = at(i);
  // a stride prime to most catalog sizes, shifted each pass over the catalog; never a itself
  let bIndex = i * 7_919 + 1 + Math.floor(i / n);
  if (bIndex % n === i % n) bIndex++;
  const b = at(bIndex);
  const c = at(i * 31 + 7);
  const base = `${nameParts(a.name)[0]}_${nameParts(b.name).at(-1)}`;
  let name = base;
  for (let k = 2; taken.has(name); k++) name = `${base}_${k}`;
  let description = [...halfOf(a.description, "first"), ...halfOf(b.description, "second")].join(" ");
  // two descriptions that end alike would give back the first one: take all of the second then
  if (description === a.description) description = [...halfOf(a.description, "first"), b.description].join(" ");
  return create(ToolDefinitionSchema, { name, description, inputSchema: c.inputSchema });
}

/** "get_current_weather" → ["get", "current", "weather"], "SearchFlights" → ["Search", "Flights"]. */
function nameParts(name: string): string[] {
  const parts = name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((p) => p.length > 0);
  return parts.length > 0 ? parts : [name];
}

function halfOf(text: string, which: "first" | "second"): string[] {
  const words = text.split(/\s+/).filter((w) => w.length > 0);
  const mid = Math.ceil(words.length / 2);
  return which === "first" ? words.slice(0, mid) : words.slice(mid);
}

function uniqueByName(tools: readonly ToolDefinition[]): ToolDefinition[] {
  const seen = new Set<string>();
  return tools.filter((t) => !seen.has(t.name) && seen.add(t.name));
}
