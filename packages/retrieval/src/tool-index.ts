import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { canonicalJson, ownToolName, toolVisibleTo } from "@switchyard/packet";
import { withoutValues } from "@switchyard/request-text";
import type { ToolDefinition, ToolScope } from "@switchyard/packet";
import type { CorrectedText } from "@switchyard/request-text";
import { Bm25Index, DEFAULT_BM25 } from "./bm25.js";
import type { Bm25Params, QueryTerm } from "./bm25.js";
import { catalogVocabulary, learnSpelling } from "./catalog-spelling.js";
import { relatedStems } from "./concepts.js";
import type { Embedder } from "./embedder.js";
import type { EmbeddingCache } from "./embedding-cache.js";
import { NameIndex } from "./name-match.js";
import { blockCount, raiseBlockMaximum, SCORE_BLOCK_BITS } from "./score-blocks.js";
import { allMade } from "./segment-dots.js";
import { storeVector } from "./stored-vector.js";
import type { StoredVector } from "./stored-vector.js";
import { exampleCounts, exampleDocuments, tokenize, toolFields, withoutTenantExamples } from "./text.js";
import type { ExampleDocument, ToolFields } from "./text.js";
import { topK, TopList } from "./top-k.js";
import { VectorBlock } from "./vector-block.js";

export interface ScoredTool {
  tool: ToolDefinition;
  /** Relevance in [0, 1]; comparable across queries, so thresholds mean something. */
  score: number;
  /** Set on a result that is there only because `SearchOptions.include` named it: it is not among the best `limit`. */
  included?: true;
  /** The example request that gave the tool its score, when one did (not its own text): as taught, and whose ("" when shared). */
  example?: { text: string; owner: string };
}

/**
 * Which tools a search may return: the request's ToolScope (an empty list does not
 * restrict) and the tenant asking, declaratively so that every store can apply it
 * where the data is (a payload filter in Qdrant).
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
  /**
   * Tools to score whatever their rank (the router's core tools, always offered
   * with their score for the query): each one named here that matches the query
   * and the filter but is not among the best `limit` comes after them, best
   * first, marked `included`, scored as if it were (the better of the whole
   * query's score and each line's). The embedded index scores them in the same
   * scan as the rest; Qdrant, whose fused scores are by rank within a query, in a
   * query restricted to them sent alongside.
   */
  include?: readonly string[];
}

/**
 * How much a word of the context counts beside one of the query. One half is
 * what the query written twice beside its context once gave, which the
 * follow-up tests were written against.
 */
export const CONTEXT_WEIGHT = 0.5;

/**
 * The query's stems at weight 1 and its context's at CONTEXT_WEIGHT; a stem said twice, or in both, counts for each time.
 * `stemsOf`: a search's texts split once (`tokenize`), when it also embeds them.
 */
export function weightedStems(query: string, context: readonly string[] = [], stemsOf: (text: string) => readonly string[] = tokenize): Map<string, number> {
  const weights = new Map<string, number>();
  for (const text of context) for (const stem of stemsOf(text)) weights.set(stem, (weights.get(stem) ?? 0) + CONTEXT_WEIGHT);
  for (const stem of stemsOf(query)) weights.set(stem, (weights.get(stem) ?? 0) + 1);
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
  /** Tools relevant to the query, best first, then those `opts.include` adds; tools with no relevance at all (score 0) are left out. */
  search(query: string, opts: SearchOptions): Promise<ScoredTool[]>;
  /**
   * The text with its typos read as the indexed tools' words (request-text's
   * SpellingVocabulary), and the corrections made. Absent: an index that keeps
   * no vocabulary, whose callers search with the text as written.
   */
  correctSpelling?(text: string): CorrectedText;
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
   * Share each search's dense dot products with a helper thread once the
   * catalog has more than one segment of them (16,384 tools): at 100,000
   * tools they are half of a search. The scores are the same either way.
   * @default true when the machine has more than one core (`os.availableParallelism`)
   */
  helperThread?: boolean;
  /**
   * Where tool vectors are kept by embedder id and text, looked up before
   * embedding: opened on a file (`EmbeddingCache.open`), it lets a restarted
   * router skip re-embedding unchanged tools. None embeds every new text.
   */
  vectorCache?: EmbeddingCache;
}

/** A content hash over what is indexed (name, description, input schema, examples, tenants' examples); key order does not matter. */
export function toolContentHash(tool: ToolDefinition): string {
  const taught = tool.tenantExamples.map((e) => [e.tenant, e.text]);
  const content = canonicalJson([tool.name, tool.description, tool.inputSchema ?? {}, tool.examples, ...(taught.length > 0 ? [taught] : [])]);
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
 * or another tool's, for a request it shares a word or two with. An example a
 * tenant taught (`tenantExamples`) counts only in that tenant's searches
 * (`ToolFilter.tenant`), and no result shows it.
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
 * All parts are in [0, 1], so is the score. Every search sums each part
 * over the postings of the query's words, for all tools at once, then looks
 * for the top only in the blocks of tools whose parts' highest values could
 * reach it (score-blocks.ts): the same top as scoring every tool (`pnpm bench
 * route-scale` measures it from 100 to 100,000 tools).
 */
export class EmbeddedIndex implements ToolIndex {
  /**
   * By slot, the number the BM25 index gives a tool, which every part below
   * shares: the tool and its content hash, made when an upsert first compares
   * it (`contentHash`): hashing was a tenth of indexing a new catalog.
   */
  private readonly tools: (ToolDefinition | undefined)[] = [];
  private readonly hashes: (string | undefined)[] = [];
  /** Each tool's vector by slot. */
  private readonly vectors: VectorBlock;
  /** The example requests of the tools that have some, by slot; their vectors are numbered apart, in `exampleVectors`. */
  private readonly examples = new Map<number, readonly Example[]>();
  private readonly exampleVectors = new VectorBlock();
  private readonly freeExampleVectors: number[] = [];
  private exampleVectorCount = 0;
  /** A search's name coverages and best example scores by slot, and their highest by score block, reused: one search ranks at a time. */
  private nameCoverage = new Float64Array(0);
  private exampleScores = new Float64Array(0);
  private nameMaxima = new Float64Array(0);
  private exampleMaxima = new Float64Array(0);
  private readonly sparse: Bm25Index;
  private readonly names = new NameIndex();
  private readonly spelling = catalogVocabulary();
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
    this.vectors = new VectorBlock({ helperThread: options.helperThread ?? availableParallelism() > 1 });
  }

  get size(): number {
    return this.sparse.size;
  }

  upsert(tools: readonly ToolDefinition[]): Promise<number> {
    return this.serialize(async () => {
      // the last definition of a name wins, as if they had been upserted one by one
      const latest = new Map(tools.map((t) => [t.name, t]));
      const changed: { tool: ToolDefinition; hash: string | undefined; fields: ToolFields; examples: ExampleDocument[]; stems: ToolStems }[] = [];
      for (const tool of latest.values()) {
        const slot = this.sparse.slot(tool.name);
        // hashed now when the definition kept will lack the tenants' examples the hash covers
        const hash = slot === undefined && tool.tenantExamples.length === 0 ? undefined : toolContentHash(tool);
        if (slot !== undefined && this.contentHash(slot) === hash) {
          // same content, but pool, core flag, side effect or server may have changed: keep the new definition
          this.tools[slot] = withoutTenantExamples(tool);
          this.names.set(slot, tokenize(ownToolName(tool)));
          continue;
        }
        const fields = toolFields(tool);
        const examples = exampleDocuments(fields);
        changed.push({ tool, hash, fields, examples, stems: stemsOf(fields, examples) });
      }
      if (changed.length === 0) return 0;

      const vectors = await this.embedStored(changed);
      const own = new Map<number, StoredVector>();
      const ofExamples = new Map<number, StoredVector | undefined>();
      let at = 0;
      for (const c of changed) {
        this.sparse.set(c.tool.name, this.termsOf(c.stems));
        const slot = this.sparse.slot(c.tool.name)!;
        this.dropExamples(slot, ofExamples);
        own.set(slot, vectors[at++]!);
        const examples = c.stems.examples.map((stems, i): Example => {
          const vector = this.freeExampleVectors.pop() ?? this.exampleVectorCount++;
          ofExamples.set(vector, vectors[at++]!);
          const { text, owner } = c.examples[i]!;
          return { vector, stems: new Set(stems), text, owner };
        });
        if (examples.length > 0) this.examples.set(slot, examples);
        this.tools[slot] = withoutTenantExamples(c.tool);
        this.hashes[slot] = c.hash;
        this.names.set(slot, tokenize(ownToolName(c.tool)));
        learnSpelling(this.spelling, c.tool);
      }
      this.vectors.update(own);
      this.exampleVectors.update(ofExamples);
      return changed.length;
    });
  }

  remove(name: string): Promise<boolean> {
    return this.serialize(() => {
      const slot = this.sparse.slot(name);
      if (slot === undefined) return Promise.resolve(false);
      this.sparse.delete(name);
      this.names.delete(slot);
      this.spelling.delete(name);
      this.vectors.update(new Map([[slot, undefined]]));
      const ofExamples = new Map<number, StoredVector | undefined>();
      this.dropExamples(slot, ofExamples);
      this.exampleVectors.update(ofExamples);
      this.tools[slot] = undefined;
      this.hashes[slot] = undefined;
      return Promise.resolve(true);
    });
  }

  correctSpelling(text: string): CorrectedText {
    return this.spelling.correct(text);
  }

  /** The indexed definition of a tool, if any. */
  get(name: string): ToolDefinition | undefined {
    const slot = this.sparse.slot(name);
    return slot === undefined ? undefined : this.tools[slot];
  }

  async search(query: string, opts: SearchOptions): Promise<ScoredTool[]> {
    const context = opts.context ?? [];
    // each text split once, for BM25, for the lines and for an embedder that reads stems
    const split = new Map<string, string[]>();
    const stemsOf = (text: string): string[] => {
      let stems = split.get(text);
      if (stems === undefined) split.set(text, (stems = tokenize(text)));
      return stems;
    };
    const stems = weightedStems(query, context, stemsOf);
    if (opts.limit <= 0 || this.size === 0 || stems.size === 0) return [];
    const lines = requestLines([...context, query].join("\n"), stemsOf);
    // examples are compared with the texts without their values (exampleDocuments); without examples, nothing is
    const hasExamples = this.examples.size > 0;
    const plain = new Map(hasExamples ? [query, ...context, ...lines].map((text) => [text, withoutValues(text)]) : []);
    const plainOf = (text: string) => plain.get(text)!;
    // one embedder call for the query, its context and its lines: a remote embedder answers a batch as fast as one text
    const texts = [...new Set([query, ...context, ...lines, ...plain.values()])];
    const vectors = opts.sparseOnly ? [] : await this.embedNow(() => texts, texts.map(stemsOf));
    if (!opts.sparseOnly && vectors.length !== texts.length) {
      throw new Error(`embedder ${this.embedder.id} returned ${vectors.length} vectors for ${texts.length} query texts`);
    }
    const vectorOf = (text: string) => vectors[texts.indexOf(text)];
    const queryVector = opts.sparseOnly ? undefined : weightedVector(vectorOf(query)!, context.map((t) => vectorOf(t)!));
    const plainQuery = (text: string, around: readonly string[]) =>
      hasExamples
        ? {
            stems: weightedStems(plainOf(text), around.map(plainOf), stemsOf),
            vector: opts.sparseOnly ? undefined : weightedVector(vectorOf(plainOf(text))!, around.map((t) => vectorOf(plainOf(t))!)),
          }
        : undefined;
    const whole = this.rank(stems, queryVector, opts, plainQuery(query, context));
    if (lines.length === 0) return withIncluded(whole.top, whole.included);
    // a tool's score is the better of the whole query's and its line's: what the line asks for stays in the list
    const best = new Map(whole.top.map((r) => [r.tool.name, r]));
    const included = new Map(whole.included.map((r) => [r.tool.name, r]));
    const keepBetter = (kept: Map<string, ScoredTool>, r: ScoredTool) => {
      if (r.score > (kept.get(r.tool.name)?.score ?? 0)) kept.set(r.tool.name, r);
    };
    for (const line of lines) {
      const ranked = this.rank(weightedStems(line, [], stemsOf), vectorOf(line), { ...opts, limit: LINE_CANDIDATES }, plainQuery(line, []));
      for (const r of ranked.top) keepBetter(best, r);
      for (const r of ranked.included) keepBetter(included, r);
    }
    return withIncluded(topK([...best.values()], opts.limit, (r) => r.score, (r) => r.tool.name), [...included.values()]);
  }

  /**
   * The best `opts.limit` tools for weighted stems (`weightedStems`), scored as
   * the class comment says (without a vector, by the sparse part alone); and
   * the tools `opts.include` names with their scores, in the top or not.
   * Examples are compared with `plain`: the query without its values (absent when the index has none).
   */
  private rank(
    stems: ReadonlyMap<string, number>,
    queryVector: Float32Array | undefined,
    opts: SearchOptions,
    plain: { stems: ReadonlyMap<string, number>; vector: Float32Array | undefined } | undefined,
  ): { top: ScoredTool[]; included: ScoredTool[] } {
    if (stems.size === 0) return { top: [], included: [] };
    // started first: a helper thread works on them while this one scores the words
    const finishDots = queryVector && this.vectors.startDots(queryVector);
    const expanded = [...stems].map(([term, weight]) => this.expand(term, weight));
    const bm25 = this.sparse.scoreSlots(expanded);
    const slots = bm25.total.length;
    // the best tool scores 1 when it covers the query at least as well as the reference; others in proportion
    const scale = Math.max(bm25.reference, bm25.highest);
    // a name word the query says counts fully however often it is said; one only its context says, less
    const matches = new Map<string, number>();
    for (const { term, weight } of expanded.flat()) matches.set(term, Math.max(matches.get(term) ?? 0, Math.min(1, weight)));

    // Every tool's parts by slot, in typed arrays: BM25's, the name coverage
    // of the tools whose names the query matches, each tool's best example;
    // and each part's highest in every score block (score-blocks.ts).
    const blocks = blockCount(slots);
    if (this.nameCoverage.length !== slots) {
      this.nameCoverage = new Float64Array(slots);
      this.exampleScores = new Float64Array(slots);
      this.nameMaxima = new Float64Array(blocks);
      this.exampleMaxima = new Float64Array(blocks);
    }
    const { nameCoverage, exampleScores, nameMaxima, exampleMaxima } = this;
    nameCoverage.fill(0);
    nameMaxima.fill(0);
    this.names.coverages(matches, (slot, c) => raiseBlockMaximum(nameMaxima, slot, (nameCoverage[slot] = this.nameMatchWeight * c)));
    // without a query vector every cosine counts 0 and the sparse part all: 0 * 0 + 1 * sparse is the sparse score itself
    const denseWeight = queryVector ? this.denseWeight : 0;
    const sparseWeight = 1 - denseWeight;
    const fuse = (cosine: number, sparse: number) => denseWeight * cosine + sparseWeight * sparse;
    // each example as a document of its own: its tool keeps the better score
    const hasExamples = plain !== undefined;
    const bestExamples = new Map<number, Example>();
    if (plain) {
      exampleScores.fill(0);
      exampleMaxima.fill(0);
      const dots = queryVector && plain.vector && this.exampleVectors.dots(plain.vector);
      const resemblance = this.resemblance([...plain.stems].map(([term, weight]) => this.expand(term, weight)));
      const tenant = opts.filter?.tenant;
      for (const [t, examples] of this.examples) {
        for (const example of examples) {
          if (!exampleCounts(example.owner, tenant)) continue;
          const lexical = (1 - this.nameMatchWeight) * resemblance(example.stems) + nameCoverage[t]!;
          const score = dots ? fuse(Math.max(0, dots[example.vector]!), lexical) : lexical;
          if (score > exampleScores[t]!) {
            exampleScores[t] = score;
            bestExamples.set(t, example);
          }
        }
        raiseBlockMaximum(exampleMaxima, t, exampleScores[t]!);
      }
    }

    // without a query vector, zeros: the same arrays either way, so the scan never tests for them
    const dots = finishDots ? finishDots() : { sums: new Float64Array(slots), maxima: new Float64Array(blocks), ready: allMade };
    const bm25Share = 1 - this.nameMatchWeight;
    // a scale of 0 means no tool matched: every total is 0, and 0 / 1 keeps it so
    const divisor = scale > 0 ? scale : 1;
    // A tool's score from its parts, unclamped; given each part's highest in a
    // block, the same sum bounds every score in it (each step of it only grows
    // with its inputs, rounding included). Written without Math.max and
    // Math.min, which cost a third of the scan: the same values for the numbers here.
    const scoreOf = (bm25: number, name: number, cosine: number, example: number): number => {
      const fused = fuse(cosine > 0 ? cosine : 0, (bm25Share * bm25) / divisor + name);
      return example > fused ? example : fused;
    };
    const { total } = bm25;
    const { sums } = dots;
    const scoreAt = (t: number) => scoreOf(total[t]!, nameCoverage[t]!, sums[t]!, hasExamples ? exampleScores[t]! : 0);
    // the example that scored the tool, when it beat the tool's own text
    const exampleAt = (t: number) => {
      const example = bestExamples.get(t);
      return example && exampleScores[t]! > scoreOf(total[t]!, nameCoverage[t]!, sums[t]!, 0) ? { example: { text: example.text, owner: example.owner } } : {};
    };

    // Only a tool that would enter the top becomes a result; below the top's last score none can, nor can a block whose bound is below it.
    const top = new TopList<ScoredTool>(opts.limit, (r) => r.score, (r) => r.tool.name);
    let floor = 0;
    // the blocks before `made` have their dot products; the helper thread may still be making the rest
    let made = 0;
    for (let b = 0; b < blocks; b++) {
      if (b >= made) made = dots.ready(b);
      const bound = scoreOf(bm25.maxima[b]!, nameMaxima[b]!, dots.maxima[b] ?? 0, hasExamples ? exampleMaxima[b]! : 0);
      if (bound <= 0 || bound < floor) continue;
      const end = Math.min(slots, (b + 1) << SCORE_BLOCK_BITS);
      for (let t = b << SCORE_BLOCK_BITS; t < end; t++) {
        const best = scoreAt(t);
        // the floor is at most 1, so the unclamped score decides as well as the clamped one
        if (best <= 0 || best < floor) continue;
        const score = best < 1 ? best : 1;
        const tool = this.tools[t]!;
        if (opts.filter && !matchesFilter(tool, opts.filter)) continue;
        if (!top.admits(score, tool.name)) continue;
        top.offer({ tool, score, ...exampleAt(t) });
        if (top.items.length === opts.limit) floor = top.items[opts.limit - 1]!.score;
      }
    }
    const included: ScoredTool[] = [];
    for (const t of this.includedSlots(opts.include)) {
      const best = scoreAt(t);
      if (best > 0) this.offerIncluded(t, best < 1 ? best : 1, opts.filter, included, exampleAt(t));
    }
    return { top: top.items, included };
  }

  /** The slots of the indexed tools `names` lists, each once, in ascending order. */
  private includedSlots(names: readonly string[] | undefined): number[] {
    const slots = new Set<number>();
    for (const name of names ?? []) {
      const slot = this.sparse.slot(name);
      if (slot !== undefined && this.tools[slot]) slots.add(slot);
    }
    return [...slots].sort((a, b) => a - b);
  }

  /** Adds the tool in `slot` to `included` with its score, if the filter lets it through. */
  private offerIncluded(slot: number, score: number, filter: ToolFilter | undefined, included: ScoredTool[], example: Pick<ScoredTool, "example">): void {
    const tool = this.tools[slot]!;
    if (!filter || matchesFilter(tool, filter)) included.push({ tool, score, ...example });
  }

  /** The content hash of the tool in `slot` (`toolContentHash`), made the first time it is asked for. */
  private contentHash(slot: number): string {
    return (this.hashes[slot] ??= toolContentHash(this.tools[slot]!));
  }

  /** Forgets the examples of the tool in `slot`: their vectors are deleted in `changes`, their numbers free again. */
  private dropExamples(slot: number, changes: Map<number, StoredVector | undefined>): void {
    for (const { vector } of this.examples.get(slot) ?? []) {
      changes.set(vector, undefined);
      this.freeExampleVectors.push(vector);
    }
    this.examples.delete(slot);
  }

  /**
   * The vectors of the tools' texts (`textsOf`) as the index keeps them,
   * embedded EMBED_CHUNK tools at a time: a large catalog's full-length
   * vectors (400 MB for 100,000 tools) never all exist at once, each chunk's
   * are garbage before the next.
   */
  private async embedStored(tools: readonly { fields: ToolFields; examples: readonly ExampleDocument[]; stems: ToolStems }[]): Promise<StoredVector[]> {
    const stored: StoredVector[] = [];
    for (let from = 0; from < tools.length; from += EMBED_CHUNK) {
      const chunk = tools.slice(from, from + EMBED_CHUNK);
      const stems = chunk.flatMap((t) => textStems(t.stems));
      const vectors = await this.embedTexts(() => chunk.flatMap((t) => textsOf(t.fields, t.examples)), stems);
      if (vectors.length !== stems.length) throw new Error(`embedder ${this.embedder.id} returned ${vectors.length} vectors for ${stems.length} texts`);
      for (const vector of vectors) stored.push(storeVector(vector));
    }
    return stored;
  }

  /**
   * The vectors of texts given with their stems, through the vector cache
   * when there is one: only texts it does not hold reach the embedder. The
   * texts are made only when wanted (the cache's keys, an embedder that reads
   * text): a catalog's texts joined for nothing cost the local embedder's
   * indexing a tenth of its time, mostly in garbage collection.
   */
  private async embedTexts(texts: () => string[], stems: string[][]): Promise<Float32Array[]> {
    if (!this.vectorCache) return this.embedNow(texts, stems);
    const keys = texts();
    const stemsOf = new Map(keys.map((text, i) => [text, stems[i]!]));
    const embed = (missing: string[]) => this.embedNow(() => missing, missing.map((text) => stemsOf.get(text)!));
    return (await this.vectorCache.through(this.embedder.id, keys, embed, this.embedder.dimensions || undefined)).vectors;
  }

  /** The embedder's vectors of texts, from their stems when it reads stems. */
  private embedNow(texts: () => string[], stems: string[][]): Promise<Float32Array[]> {
    return this.embedder.embedStems ? this.embedder.embedStems(stems) : this.embedder.embed(texts());
  }

  /** The stems of a tool's own text with their weights (its examples are scored on their own). */
  private termsOf(s: ToolStems): Map<string, number> {
    const terms = new Map<string, number>();
    const add = (stems: string[], weight: number): void => {
      for (const t of stems) terms.set(t, (terms.get(t) ?? 0) + weight);
    };
    add(s.name, this.nameWeight);
    add(s.description, 1);
    add(s.parameters, 1);
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

/** One example request: its vector's number in the examples' block, its compared text's stems, the text as taught and its owner ("" when shared). */
interface Example {
  vector: number;
  stems: ReadonlySet<string>;
  text: string;
  owner: string;
}

/** The top, then the included tools not in it, best first and marked (`SearchOptions.include`). */
export function withIncluded(top: ScoredTool[], included: readonly ScoredTool[]): ScoredTool[] {
  if (included.length === 0) return top;
  const inTop = new Set(top.map((r) => r.tool.name));
  const extra = included.filter((r) => !inTop.has(r.tool.name)).map((r): ScoredTool => ({ ...r, included: true }));
  return [...top, ...topK(extra, extra.length, (r) => r.score, (r) => r.tool.name)];
}

/** The texts embedded for a tool: its own (name, description, parameters), then each example request as compared (`exampleDocuments`). */
function textsOf(f: ToolFields, examples: readonly ExampleDocument[]): string[] {
  const whole = [f.name, f.description, f.parameters].filter((s) => s.length > 0).join("\n");
  return [whole, ...examples.map((e) => e.compared)];
}

/** A tool's fields as stems (`tokenize`), split once for BM25, the examples' resemblance and the embedder. */
interface ToolStems {
  name: string[];
  description: string[];
  parameters: string[];
  examples: string[][];
}

function stemsOf(f: ToolFields, examples: readonly ExampleDocument[]): ToolStems {
  return { name: tokenize(f.name), description: tokenize(f.description), parameters: tokenize(f.parameters), examples: examples.map((e) => tokenize(e.compared)) };
}

/** The stems of `textsOf`'s texts: no word spans the line break that joins the fields, so the whole text's are the fields' one after another. */
function textStems(s: ToolStems): string[][] {
  return [[...s.name, ...s.description, ...s.parameters], ...s.examples];
}

/** Tools whose texts are embedded per embedder call when indexing (16 MB of vectors at 1,024 dimensions, more with examples): a remote embedder batches smaller (64), the local one gains little from more. */
const EMBED_CHUNK = 4096;

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
function requestLines(query: string, stemsOf: (text: string) => readonly string[]): string[] {
  const lines = query
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => stemsOf(l).length >= 2);
  return lines.length > 1 ? lines : [];
}



