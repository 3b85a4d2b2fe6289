/**
 * The three in-process searches route-scale compares, each behind one small interface:
 * Switchyard's router index, and what a TypeScript developer would pick instead
 * (MiniSearch, Orama), all fed the same text per tool: the name split into words, the
 * description, the parameters (toolFields, as Switchyard indexes them).
 */
import { create, insertMultiple, search } from "@orama/orama";
import type { ToolDefinition } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder, toolFields } from "@switchyard/retrieval";
import MiniSearch from "minisearch";

export interface SearchEngine {
  readonly name: string;
  build(tools: readonly ToolDefinition[]): Promise<void>;
  /** The names of the best `k` tools for the query, best first. */
  search(query: string, k: number): Promise<string[]> | string[];
}

export const ENGINES = ["switchyard", "minisearch", "orama"] as const;
export type EngineName = (typeof ENGINES)[number];

export function searchEngine(name: EngineName): SearchEngine {
  switch (name) {
    case "switchyard":
      return switchyardEngine();
    case "minisearch":
      return miniSearchEngine();
    case "orama":
      return oramaEngine();
  }
}

interface Doc {
  id: string;
  name: string;
  text: string;
}

function doc(tool: ToolDefinition): Doc {
  const f = toolFields(tool);
  return { id: tool.name, name: f.name, text: `${f.description}\n${f.parameters}` };
}

/** The router's own index with the offline embedder: what `routeCandidates` searches. */
function switchyardEngine(): SearchEngine {
  const index = new EmbeddedIndex(new LocalEmbedder());
  return {
    name: "switchyard",
    build: async (tools) => {
      await index.upsert([...tools]);
    },
    search: async (query, k) => (await index.search(query, { limit: k })).map((hit) => hit.tool.name),
  };
}

/** MiniSearch with its defaults (BM25+, any term matches), the name boosted as the router weighs it. */
function miniSearchEngine(): SearchEngine {
  const index = new MiniSearch<Doc>({ fields: ["name", "text"], searchOptions: { boost: { name: 2 } } });
  return {
    name: "minisearch",
    build: (tools) => {
      index.addAll(tools.map(doc));
      return Promise.resolve();
    },
    search: (query, k) =>
      index
        .search(query)
        .slice(0, k)
        .map((hit) => String(hit.id)),
  };
}

/** Orama with its defaults (BM25, any term matches), the name boosted likewise. */
function oramaEngine(): SearchEngine {
  const db = create({ schema: { name: "string", text: "string" } as const });
  return {
    name: "orama",
    build: async (tools) => {
      await insertMultiple(db, tools.map(doc));
    },
    search: async (query, k) => (await search(db, { term: query, properties: ["name", "text"], boost: { name: 2 }, limit: k })).hits.map((hit) => hit.id),
  };
}
