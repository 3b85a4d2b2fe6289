/**
 * The in-process searches route-scale compares, each behind one small interface:
 * Switchyard's router index, and what a TypeScript developer would pick instead
 * (MiniSearch, Orama, and a plain BM25 library, wink-bm25-text-search), all fed the
 * same text per tool: the name split into words, the description, the parameters
 * (toolFields, as Switchyard indexes them). Each peer is set up as its own docs advise
 * for relevance: English stopwords removed and words stemmed, ranked by BM25 over any
 * query term, the name field weighed twice the rest (docs/performance.md says why each
 * setting). Exact words only: prefix and fuzzy matching are for typed-as-you-go and
 * misspelled queries, which these are not.
 */
import { createRequire } from "node:module";
import { create, insertMultiple, search } from "@orama/orama";
import { stopwords as englishStopwords } from "@orama/stopwords/english";
import type { ToolDefinition } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder, stem, toolFields } from "@switchyard/retrieval";
import type { EmbeddedIndexOptions } from "@switchyard/retrieval";
import MiniSearch from "minisearch";
import model from "wink-eng-lite-web-model";
import winkNLP from "wink-nlp";
import type { ItemToken, ItsFunction } from "wink-nlp";

export interface SearchEngine {
  readonly name: string;
  build(tools: readonly ToolDefinition[]): Promise<void>;
  /** The names of the best `k` tools for the query, best first. */
  search(query: string, k: number): Promise<string[]> | string[];
}

/** "switchyard-1-thread" is the router's index without its helper thread (`helperThread: false`): the peers search on one thread. */
export const ENGINES = ["switchyard", "switchyard-1-thread", "minisearch", "orama", "wink-bm25"] as const;
export type EngineName = (typeof ENGINES)[number];

export function searchEngine(name: EngineName): SearchEngine {
  switch (name) {
    case "switchyard":
      return switchyardEngine(name, {});
    case "switchyard-1-thread":
      return switchyardEngine(name, { helperThread: false });
    case "minisearch":
      return miniSearchEngine();
    case "orama":
      return oramaEngine();
    case "wink-bm25":
      return winkEngine();
  }
}

/** wink-bm25-text-search's calls used here, as its README documents them: it ships no types. */
interface WinkBm25 {
  defineConfig(config: { fldWeights: Record<string, number> }): boolean;
  definePrepTasks(tasks: ((text: string) => string[])[]): number;
  addDoc(doc: Record<string, string>, uniqueId: string): number;
  consolidate(): boolean;
  /** `[uniqueId, score]` pairs, best first. */
  search(text: string, limit: number): [string, number][];
}
const winkBm25 = createRequire(import.meta.url)("wink-bm25-text-search") as () => WinkBm25;

/** How much more a query word found in the tool's name counts than one found in its other text. */
const NAME_BOOST = 2;

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
function switchyardEngine(name: EngineName, options: EmbeddedIndexOptions): SearchEngine {
  const index = new EmbeddedIndex(new LocalEmbedder(), options);
  return {
    name,
    build: async (tools) => {
      await index.upsert([...tools]);
    },
    search: async (query, k) => (await index.search(query, { limit: k })).map((hit) => hit.tool.name),
  };
}

/**
 * MiniSearch as its README's "Term processing" advises: `processTerm` lowercases, drops
 * stopwords (Orama's English list, the one Orama gets) and stems (the `stemmer` package, as
 * the router stems); the same processing applies to queries. Any term matches (its default,
 * `combineWith: "OR"`), ranked by its BM25+.
 */
function miniSearchEngine(): SearchEngine {
  const stopwords = new Set(englishStopwords);
  const index = new MiniSearch<Doc>({
    fields: ["name", "text"],
    processTerm: (term) => {
      const word = term.toLowerCase();
      return stopwords.has(word) ? null : stem(word);
    },
    searchOptions: { boost: { name: NAME_BOOST }, combineWith: "OR" },
  });
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

/**
 * Orama as its "Stemming" and "Stop-words" pages advise: the tokenizer with its built-in
 * English stemmer and the English list of `@orama/stopwords`. Any term matches (`threshold`
 * 1, its default), ranked by its BM25.
 */
function oramaEngine(): SearchEngine {
  const db = create({
    schema: { name: "string", text: "string" } as const,
    components: { tokenizer: { language: "english", stemming: true, stopWords: englishStopwords } },
  });
  return {
    name: "orama",
    build: async (tools) => {
      await insertMultiple(db, tools.map(doc));
    },
    search: async (query, k) =>
      (await search(db, { term: query, properties: ["name", "text"], boost: { name: NAME_BOOST }, threshold: 1, limit: k })).hits.map((hit) => hit.id),
  };
}

/**
 * wink-bm25-text-search, a plain BM25F index, with the prep task of its README: wink-nlp's
 * English model keeps the words, drops its stopwords, and stems them (a negated word
 * gets a "!" so "not X" does not match X). Its BM25 defaults: k1 1.2, b 0.75.
 */
function winkEngine(): SearchEngine {
  const nlp = winkNLP(model);
  const its = nlp.its;
  // wink-nlp's types declare its.stem with the wrong parameters; `out` calls it as it calls every token function
  const stemOf = its.stem as unknown as ItsFunction<string>;
  const prepare = (text: string): string[] => {
    const tokens: string[] = [];
    nlp
      .readDoc(text)
      .tokens()
      .filter((t) => t.out(its.type) === "word" && !t.out(its.stopWordFlag))
      .each((t: ItemToken) => tokens.push(t.out(its.negationFlag) ? `!${t.out(stemOf)}` : t.out(stemOf)));
    return tokens;
  };
  const engine = winkBm25();
  engine.defineConfig({ fldWeights: { name: NAME_BOOST, text: 1 } });
  engine.definePrepTasks([prepare]);
  return {
    name: "wink-bm25",
    build: (tools) => {
      for (const d of tools.map(doc)) engine.addDoc({ name: d.name, text: d.text }, d.id);
      engine.consolidate();
      return Promise.resolve();
    },
    search: (query, k) => engine.search(query, k).map(([id]) => id),
  };
}
