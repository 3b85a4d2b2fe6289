import { createHash } from "node:crypto";
import { canonicalJson, ownToolName, toolVisibleTo } from "@switchyard/packet";
import type { ToolDefinition, ToolScope } from "@switchyard/packet";
import { Bm25Index, DEFAULT_BM25 } from "./bm25.js";
import type { Bm25Params, QueryTerm } from "./bm25.js";
import { relatedStems } from "./concepts.js";
import type { Embedder } from "./embedder.js";
import type { EmbeddingCache } from "./embedding-cache.js";
import { NameIndex } from "./name-match.js";
import { storeVector } from "./stored-vector.js";
import type { StoredVector } from "./stored-vector.js";
import { tokenize, toolFields } from "./text.js";
import { topK, TopList } from "./top-k.js";
import { VectorBlock } from "./vector-block.js";

export interface ScoredTool {
  tool: ToolDefinition;
  /** Relevance in [0, 1]; comparable across queries, so thresholds mean something. */
  score: number;
}

/**
 * Which tools a search may return, declaratively so that every store can
 * apply it where the data is (a payload filter in Qdrant). Each given list
 * must match; an empty or absent list does not restrict.
 */
/**
 * Which tools a search may return: the request's ToolScope (an empty list does not
 * restrict) and the tenant asking.
 */
export interface ToolFilter extends Partial<Pick<ToolScope, "tools" | "pools" | "domains">> {
  /**
   * The requesting tenant: only tools shared with every tenant (no `tenants`) or
   * listed for this one. Absent: no restriction (callers that act for no tenant).
   */
  tenant?: string;
}

export interface SearchOptions {
  /** At most this many results, best first. */
  limit: number;
  /** Applied before `limit`. */
  filter?: ToolFilter;
  /**
   * Score with the sparse (lexical) part alone and embed nothing: the
   * router's fallback when the embedder fails. Scores are then the sparse score.
   */
  sparseOnly?: boolean;
  /**
   * Earlier turns the query points back at ("turn it off" after "turn on the
   * kitchen light"), oldest first: their words count CONTEXT_WEIGHT as much as
   * the query's own, so the query decides and the context only fills in.
   */
  context?: readonly string[];
}

/**
 * How much a word of the context counts beside one of the query. One half is
 * what the query written twice beside its context once gave, which the
 * follow-up tests were written against.
 */
export const CONTEXT_WEIGHT = 0.5;

/** The query's stems at weight 1 and its context's at CONTEXT_WEIGHT; a stem said twice, or in both, counts for each time. */
export function weightedStems(query: string, context: readonly string[] = []): Map<string, number> {
  const weights = new Map<string, number>();
  for (const text of context) for (const stem of tokenize(text)) weights.set(stem, (weights.get(stem) ?? 0) + CONTEXT_WEIGHT);
  for (const stem of tokenize(query)) weights.set(stem, (weights.get(stem) ?? 0) + 1);
  return weights;
}

/** The dense query vector: the query's, plus CONTEXT_WEIGHT times each context text's, normalised. */
export function weightedVector(query: Float32Array, context: readonly Float32Array[]): Float32Array {
  if (context.length === 0) return query;
  const sum = Float32Array.from(query);
  for (const v of context) for (let i = 0; i < sum.length; i++) sum[i]! += CONTEXT_WEIGHT * v[i]!;
  let norm = 0;
  for (const x of sum) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < sum.length; i++) sum[i]! /= norm;
  return sum;
}

/** Whether a tool passes the filter. */
export function matchesFilter(tool: ToolDefinition, filter: ToolFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.tools?.length && !filter.tools.includes(tool.name)) return false;
  if (filter.pools?.length && !filter.pools.includes(tool.pool)) return false;
  if (filter.domains?.length && !tool.domains.some((d) => filter.domains!.includes(d))) return false;
  if (filter.tenant !== undefined && !toolVisibleTo(tool, filter.tenant)) return false;
  return true;
}

/**
 * Where the router looks tools up. The embedded index below keeps everything
 * in process; a Qdrant-backed index implements the same contract (named dense
 * and sparse vectors, the filter as a payload filter).
 */
export interface ToolIndex {
  /** Adds or replaces tools; returns how many were (re)embedded, i.e. were new or had changed content. */
  upsert(tools: readonly ToolDefinition[]): Promise<number>;
  /** Removes a tool by catalog name; false when it was not there. */
  remove(name: string): Promise<boolean>;
  /** How many tools are indexed. */
  readonly size: number;
  /** Tools relevant to the query, best first; tools with no relevance at all (score 0) are left out. */
  search(query: string, opts: SearchOptions): Promise<ScoredTool[]>;
}

/**
 * How much of the fused score comes from dense cosine; the rest is the sparse
 * score. Measured with the local embedder on the shared splits of MetaTool,
 * BFCL and API-Bank (bench/data): recall@5 moves by about a point for
 * weights between 0.2 and 0.65, because the local embedder is lexical too;
 * 0.4 sits in the middle. A real embedding model earns a higher share.
 */
export const DEFAULT_DENSE_WEIGHT = 0.4;

/**
 * Share of the sparse score that comes from how much of the tool's name the
 * query covers (name-match.ts); the rest is normalised BM25. 0.2 gains a point
 * of recall@5 on BFCL, keeps MetaTool level, and is what separates
 * read_text_file from read_multiple_files for "read the file notes/todo.md".
 */
export const DEFAULT_NAME_MATCH_WEIGHT = 0.2;

/** How much a related word ("folder" for "directory", concepts.ts) counts in BM25, relative to the word itself. */
export const DEFAULT_RELATED_WEIGHT = 0.5;

/** BM25 counts a word of the tool's name this many times: names are short and say what the tool does. */
export const DEFAULT_NAME_WEIGHT = 2;

export interface EmbeddedIndexOptions {
  /** @default DEFAULT_DENSE_WEIGHT */
  denseWeight?: number;
  /** @default DEFAULT_NAME_MATCH_WEIGHT */
  nameMatchWeight?: number;
  /** @default DEFAULT_RELATED_WEIGHT */
  relatedWeight?: number;
  /** @default DEFAULT_NAME_WEIGHT */
  nameWeight?: number;
  /** @default DEFAULT_BM25 */
  bm25?: Bm25Params;
  /**
   * Where tool vectors are kept by embedder id and text, looked up before
   * embedding: opened on a file (`EmbeddingCache.open`), it lets a restarted
   * router skip re-embedding unchanged tools. None embeds every new text.
   */
  vectorCache?: EmbeddingCache;
}

interface Entry {
  tool: ToolDefinition;
  hash: string;
  /** One vector for the tool's whole text, then one per example request (`tool.examples`, in order). */
  vectors: StoredVector[];
  /** Each example request's stems, in the same order. */
  examples: ReadonlySet<string>[];
}

/** A content hash over what is indexed (name, description, input schema, examples); key order does not matter. */
export function toolContentHash(tool: ToolDefinition): string {
  const content = canonicalJson([tool.name, tool.description, tool.inputSchema ?? {}, tool.examples]);
  return createHash("sha256").update(content).digest("hex");
}

/**
 * The in-process tool index. A tool's score for a query is the best of its
 * documents' scores: its own text's and each example request's (learned from
 * use), each
 *
 *     denseWeight * cosine + (1 - denseWeight) * sparse
 *     sparse = (1 - nameMatchWeight) * bm25 / scale + nameMatchWeight * nameCoverage
 *
 * An example is a document of its own, so it lifts its tool only for requests
 * that resemble it: one learned example cannot outvote the tool's description,
 * or another tool's, for a request it shares a word or two with.
 *
 * - cosine: the document's vector against the query's, clamped at 0.
 * - bm25: over the stems of the tool's name (counted `nameWeight` times),
 *   description and parameters; each query word may also match its related
 *   words (concepts.ts) at `relatedWeight`. An example's lexical part is not
 *   BM25 but its resemblance: the share of the query's idf it contains.
 * - scale: the larger of the best BM25 score and the query's reference (what
 *   a document of average length containing each query word once would
 *   score).
 *   The best tool gets 1 only when it covers the query that well, so a query
 *   that matches one incidental word scores low everywhere: scores stay
 *   comparable across queries, which threshold mode needs.
 * - nameCoverage: how much of the tool's own name the query matches (for its
 *   examples too).
 *
 * A query's context (`SearchOptions.context`) adds its words at
 * CONTEXT_WEIGHT and its vector at the same share. A query of several lines
 * (the turns of a conversation, a list of requests), or one with a context,
 * is also ranked line by line: each line's best LINE_CANDIDATES
 * tools keep the better of their two scores, so a tool that one line asks
 * for is not crowded out by the words of the others.
 *
 * All parts are in [0, 1], so is the score. Every search scans all tools
 * (`pnpm bench route-scale` measures it from 100 to 100,000 tools).
 */
export class EmbeddedIndex implements ToolIndex {
  private readonly entries = new Map<string, Entry>();
  /** The entries in scan order with their vectors packed, made again after the entries change. */
  private packed: { entries: Entry[]; positionOfSlot: Int32Array; vectors: VectorBlock; examples: PackedExample[] } | undefined;
  private readonly sparse: Bm25Index;
  private readonly names = new NameIndex();
  private readonly denseWeight: number;
  private readonly nameWeight: number;
  private readonly nameMatchWeight: number;
  private readonly relatedWeight: number;
  private readonly vectorCache: EmbeddingCache | undefined;
  /** Upserts and removals run one after another, so a slow embedding cannot resurrect a tool removed meanwhile. */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly embedder: Embedder,
    options: EmbeddedIndexOptions = {},
  ) {
    this.denseWeight = options.denseWeight ?? DEFAULT_DENSE_WEIGHT;
    this.nameWeight = options.nameWeight ?? DEFAULT_NAME_WEIGHT;
    this.nameMatchWeight = options.nameMatchWeight ?? DEFAULT_NAME_MATCH_WEIGHT;
    this.relatedWeight = options.relatedWeight ?? DEFAULT_RELATED_WEIGHT;
    this.vectorCache = options.vectorCache;
    for (const [option, value] of Object.entries({
      denseWeight: this.denseWeight,
      nameMatchWeight: this.nameMatchWeight,
      relatedWeight: this.relatedWeight,
    })) {
      if (!(value >= 0 && value <= 1)) throw new RangeError(`${option} must be in [0, 1], got ${value}`);
    }
    this.sparse = new Bm25Index(options.bm25 ?? DEFAULT_BM25);
  }

  get size(): number {
    return this.entries.size;
  }

  upsert(tools: readonly ToolDefinition[]): Promise<number> {
    return this.serialize(async () => {
      // the last definition of a name wins, as if they had been upserted one by one
      const latest = new Map(tools.map((t) => [t.name, t]));
      const changed: { tool: ToolDefinition; hash: string; texts: string[] }[] = [];
      for (const tool of latest.values()) {
        const hash = toolContentHash(tool);
        const entry = this.entries.get(tool.name);
        if (entry?.hash === hash) {
          // same content, but pool, core flag, side effect or server may have changed: keep the new definition
          entry.tool = tool;
          this.names.set(tool.name, tokenize(ownToolName(tool)));
          continue;
        }
        changed.push({ tool, hash, texts: this.textsOf(tool) });
      }
      if (changed.length === 0) return 0;

      const vectors = await this.embedTexts(changed.flatMap((c) => c.texts));
      if (vectors.length !== changed.reduce((n, c) => n + c.texts.length, 0)) {
        throw new Error(`embedder ${this.embedder.id} returned ${vectors.length} vectors for ${changed.length} tools`);
      }
      let at = 0;
      for (const c of changed) {
        const own = vectors.slice(at, at + c.texts.length).map(storeVector);
        at += c.texts.length;
        const examples = toolFields(c.tool).examples.map((e) => new Set(tokenize(e)));
        this.entries.set(c.tool.name, { tool: c.tool, hash: c.hash, vectors: own, examples });
        this.packed = undefined;
        this.sparse.set(c.tool.name, this.termsOf(c.tool));
        this.names.set(c.tool.name, tokenize(ownToolName(c.tool)));
      }
      return changed.length;
    });
  }

  remove(name: string): Promise<boolean> {
    return this.serialize(() => {
      this.sparse.delete(name);
      this.names.delete(name);
      this.packed = undefined;
      return Promise.resolve(this.entries.delete(name));
    });
  }

  /** The indexed definition of a tool, if any. */
  get(name: string): ToolDefinition | undefined {
    return this.entries.get(name)?.tool;
  }

  async search(query: string, opts: SearchOptions): Promise<ScoredTool[]> {
    const context = opts.context ?? [];
    const stems = weightedStems(query, context);
    if (opts.limit <= 0 || this.entries.size === 0 || stems.size === 0) return [];
    const lines = requestLines([...context, query].join("\n"));
    // one embedder call for the query, its context and its lines: a remote embedder answers a batch as fast as one text
    const texts = [...new Set([query, ...context, ...lines])];
    const vectors = opts.sparseOnly ? [] : await this.embedder.embed(texts);
    if (!opts.sparseOnly && vectors.length !== texts.length) {
      throw new Error(`embedder ${this.embedder.id} returned ${vectors.length} vectors for ${texts.length} query texts`);
    }
    const vectorOf = (text: string) => vectors[texts.indexOf(text)];
    const queryVector = opts.sparseOnly ? undefined : weightedVector(vectorOf(query)!, context.map((t) => vectorOf(t)!));
    const whole = this.rank(stems, queryVector, opts);
    if (lines.length === 0) return whole;
    // a tool's score is the better of the whole query's and its line's: what the line asks for stays in the list
    const best = new Map(whole.map((r) => [r.tool.name, r]));
    for (const line of lines) {
      for (const r of this.rank(weightedStems(line), vectorOf(line), { ...opts, limit: LINE_CANDIDATES })) {
        if (r.score > (best.get(r.tool.name)?.score ?? 0)) best.set(r.tool.name, r);
      }
    }
    return topK([...best.values()], opts.limit, (r) => r.score, (r) => r.tool.name);
  }

  /** The best `opts.limit` tools for weighted stems (`weightedStems`), scored as the class comment says; without a vector, by the sparse part alone. */
  private rank(stems: ReadonlyMap<string, number>, queryVector: Float32Array | undefined, opts: SearchOptions): ScoredTool[] {
    if (stems.size === 0) return [];
    const expanded = [...stems].map(([term, weight]) => this.expand(term, weight));
    const bm25 = this.sparse.scoreSlots(expanded);
    // the best tool scores 1 when it covers the query at least as well as the reference; others in proportion
    let scale = bm25.reference;
    for (const slot of bm25.matched) scale = Math.max(scale, bm25.total[slot]!);
    // a name word the query says counts fully however often it is said; one only its context says, less
    const matches = new Map<string, number>();
    for (const { term, weight } of expanded.flat()) matches.set(term, Math.max(matches.get(term) ?? 0, Math.min(1, weight)));

    // Every tool's score by scan position, in typed arrays: the sparse part only
    // for the tools the query matches (BM25's postings, the names it covers).
    const { entries, positionOfSlot, vectors, examples } = this.pack();
    const scores = new Float64Array(entries.length);
    const nameCoverage = new Float64Array(entries.length);
    for (const [name, c] of this.names.coverages(matches)) nameCoverage[positionOfSlot[this.sparse.slot(name)!]!] = this.nameMatchWeight * c;
    if (scale > 0) for (const slot of bm25.matched) scores[positionOfSlot[slot]!] = ((1 - this.nameMatchWeight) * bm25.total[slot]!) / scale;
    for (let t = 0; t < entries.length; t++) scores[t]! += nameCoverage[t]!;
    const dots = queryVector && entries.length > 0 ? vectors.dots(queryVector) : undefined;
    const fuse = (cosine: number, sparse: number) => this.denseWeight * cosine + (1 - this.denseWeight) * sparse;
    if (dots) for (let t = 0; t < entries.length; t++) scores[t] = fuse(vectors.at(t, 0, dots), scores[t]!);
    // each example as a document of its own: its tool keeps the better score
    if (examples.length > 0) {
      const resemblance = this.resemblance(expanded);
      for (const { tool: t, vector, stems } of examples) {
        const sparse = (1 - this.nameMatchWeight) * resemblance(stems) + nameCoverage[t]!;
        const score = dots ? fuse(vectors.at(t, vector, dots), sparse) : sparse;
        if (score > scores[t]!) scores[t] = score;
      }
    }

    // Only a tool that would enter the top becomes a result; below the top's last score none can.
    const top = new TopList<ScoredTool>(opts.limit, (r) => r.score, (r) => r.tool.name);
    let floor = 0;
    for (let t = 0; t < entries.length; t++) {
      const score = Math.min(1, scores[t]!);
      if (score <= 0 || score < floor) continue;
      const tool = entries[t]!.tool;
      if (opts.filter && !matchesFilter(tool, opts.filter)) continue;
      if (!top.admits(score, tool.name)) continue;
      top.offer({ tool, score });
      if (top.items.length === opts.limit) floor = top.items[opts.limit - 1]!.score;
    }
    return top.items;
  }

  private pack(): NonNullable<EmbeddedIndex["packed"]> {
    if (!this.packed) {
      const entries = [...this.entries.values()];
      const slots = entries.map((entry) => this.sparse.slot(entry.tool.name)!);
      const positionOfSlot = new Int32Array(slots.reduce((most, slot) => Math.max(most, slot + 1), 0));
      slots.forEach((slot, t) => (positionOfSlot[slot] = t));
      const examples = entries.flatMap((entry, t) => entry.examples.map((stems, i) => ({ tool: t, vector: i + 1, stems })));
      this.packed = {
        entries,
        positionOfSlot,
        vectors: new VectorBlock(entries.map((entry) => entry.vectors)),
        examples,
      };
    }
    return this.packed;
  }

  /** Through the vector cache when there is one: only texts it does not hold reach the embedder. */
  private async embedTexts(texts: string[]): Promise<Float32Array[]> {
    if (!this.vectorCache) return this.embedder.embed(texts);
    const embed = (missing: string[]) => this.embedder.embed(missing);
    return (await this.vectorCache.through(this.embedder.id, texts, embed, this.embedder.dimensions || undefined)).vectors;
  }

  private textsOf(tool: ToolDefinition): string[] {
    const f = toolFields(tool);
    const whole = [f.name, f.description, f.parameters].filter((s) => s.length > 0).join("\n");
    return [whole, ...f.examples];
  }

  /** The stems of a tool's own text (its examples are scored on their own). */
  private termsOf(tool: ToolDefinition): Map<string, number> {
    const f = toolFields(tool);
    const terms = new Map<string, number>();
    const add = (text: string, weight: number): void => {
      for (const t of tokenize(text)) terms.set(t, (terms.get(t) ?? 0) + weight);
    };
    add(f.name, this.nameWeight);
    add(f.description, 1);
    add(f.parameters, 1);
    return terms;
  }

  /**
   * How much of the query an example says: the share of the query words' idf
   * (the tools' BM25 statistics) that the example contains, a related word at
   * its weight. Not BM25: a short example would score above the tools' own
   * texts for a single shared word.
   */
  private resemblance(query: readonly QueryTerm[]): (stems: ReadonlySet<string>) => number {
    const idf = query.map((alternatives) => alternatives.map(({ term, weight }) => weight * this.sparse.idf(term)));
    const whole = idf.reduce((sum, alternatives) => sum + alternatives[0]!, 0);
    return (stems) => {
      if (whole <= 0) return 0;
      let said = 0;
      query.forEach((alternatives, q) => {
        let best = 0;
        alternatives.forEach(({ term }, a) => {
          if (stems.has(term)) best = Math.max(best, idf[q]![a]!);
        });
        said += best;
      });
      return said / whole;
    };
  }

  /** A query word at its weight and the words related to it, the latter at `relatedWeight` of it. */
  private expand(term: string, weight: number): QueryTerm {
    const related = this.relatedWeight > 0 ? relatedStems(term) : [];
    return [{ term, weight }, ...related.map((r) => ({ term: r, weight: weight * this.relatedWeight }))];
  }

  private serialize<T>(op: () => Promise<T>): Promise<T> {
    const run = this.writes.then(op, op);
    this.writes = run.catch(() => undefined);
    return run;
  }
}

/** One example request as the scan sees it: its tool's scan position, its vector's place among the tool's, its stems. */
interface PackedExample {
  tool: number;
  vector: number;
  stems: ReadonlySet<string>;
}

/**
 * Tools each line of a multi-line query may bring in. Two: API-Bank's
 * dialogues (one user turn a line) gain 9 points of recall@5 with one and
 * 11 with two; MetaTool and BFCL, whose queries have one line, do not move.
 */
const LINE_CANDIDATES = 2;

/**
 * The lines of a query that has several (the turns of a conversation, a
 * list of requests), each with at least two words; none for a one-line query.
 */
function requestLines(query: string): string[] {
  const lines = query
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => tokenize(l).length >= 2);
  return lines.length > 1 ? lines : [];
}



