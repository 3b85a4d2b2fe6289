/** Okapi BM25 parameters. */
export interface Bm25Params {
  /** Term-frequency saturation. @default 1.0 */
  k1: number;
  /** Length normalisation. @default 0.6 */
  b: number;
}

/**
 * Slightly below the textbook 1.2 / 0.75 (Robertson & Zaragoza 2009): tool
 * texts are short and repeat their key words in name, description and
 * parameters, so a repeat should saturate sooner and a long text be
 * penalised less. Measured on the shared benchmark splits (bench/README.md):
 * +0.7 points recall@5 on BFCL, MetaTool and API-Bank level.
 */
export const DEFAULT_BM25: Bm25Params = { k1: 1.0, b: 0.6 };

/**
 * An inverted index over token bags, updated in place, scored with BM25.
 * Documents are keyed by id (the tool name); term frequencies may be
 * fractional so that fields can carry weights (the name counts double).
 * Internally each document has a numbered slot, so that scoring adds into
 * typed arrays instead of maps: a search touches every posting of every
 * query word, which for common words in a large catalog is most documents.
 */
export class Bm25Index {
  /** term → the slots of the documents that contain it, with the term's frequency in each */
  private readonly postings = new Map<string, { slots: number[]; tfs: number[] }>();
  private readonly slotOf = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly docTerms: (ReadonlyMap<string, number> | undefined)[] = [];
  private lengths = new Float64Array(0);
  private readonly freeSlots: number[] = [];
  private totalLength = 0;
  /** Each slot's length-normalised k1, the BM25 denominator's constant part: made at the first search after a change. */
  private norms: Float64Array | undefined;

  constructor(private readonly params: Bm25Params = DEFAULT_BM25) {}

  get size(): number {
    return this.slotOf.size;
  }

  set(id: string, terms: ReadonlyMap<string, number>): void {
    this.delete(id);
    this.norms = undefined;
    const slot = this.freeSlots.pop() ?? this.ids.length;
    if (slot >= this.lengths.length) {
      const grown = new Float64Array(Math.max(16, this.lengths.length * 2));
      grown.set(this.lengths);
      this.lengths = grown;
    }
    let length = 0;
    for (const [term, tf] of terms) {
      length += tf;
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = { slots: [], tfs: [] }));
      posting.slots.push(slot);
      posting.tfs.push(tf);
    }
    this.slotOf.set(id, slot);
    this.ids[slot] = id;
    this.docTerms[slot] = new Map(terms);
    this.lengths[slot] = length;
    this.totalLength += length;
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.norms = undefined;
    for (const term of this.docTerms[slot]!.keys()) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const at = posting.slots.indexOf(slot);
      // order within a posting does not matter: the last entry fills the hole
      posting.slots[at] = posting.slots[posting.slots.length - 1]!;
      posting.tfs[at] = posting.tfs[posting.tfs.length - 1]!;
      posting.slots.pop();
      posting.tfs.pop();
      if (posting.slots.length === 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths[slot]!;
    this.lengths[slot] = 0;
    this.ids[slot] = undefined;
    this.docTerms[slot] = undefined;
    this.slotOf.delete(id);
    this.freeSlots.push(slot);
    return true;
  }

  private normsNow(): Float64Array {
    const { k1, b } = this.params;
    const norm = new Float64Array(this.ids.length);
    const avgLength = this.totalLength / this.slotOf.size;
    for (let i = 0; i < norm.length; i++) norm[i] = k1 * (1 - b + (b * this.lengths[i]!) / avgLength);
    return norm;
  }

  /** Robertson–Spärck Jones IDF, +1 inside the log so it never goes negative for very common terms. */
  idf(term: string): number {
    const df = this.postings.get(term)?.slots.length ?? 0;
    const n = this.slotOf.size;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * BM25 of every document that matches the query, and the query's reference
   * score: what a document of average length that contains each query word
   * once would get. Each query word may come with weighted alternatives
   * (related words); a document scores the best of them for that word.
   * Dividing by the reference puts scores on a scale that does not depend on
   * the catalog's size or the query's length.
   */
  score(query: readonly QueryTerm[]): { scores: Map<string, number>; reference: number } {
    const { matched, total, reference } = this.scoreSlots(query);
    return { scores: new Map(matched.map((slot) => [this.ids[slot]!, total[slot]!])), reference };
  }

  /** A document's slot, what `scoreSlots` reports scores by; undefined when it is not indexed. */
  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /**
   * `score` by slot, for a caller that scans many documents: the slots that
   * matched, and every slot's score (0 for the others).
   */
  scoreSlots(query: readonly QueryTerm[]): { matched: number[]; total: Float64Array; reference: number } {
    const n = this.slotOf.size;
    if (n === 0) return { matched: [], total: new Float64Array(0), reference: 0 };
    const { k1 } = this.params;
    const slots = this.ids.length;
    const norm = (this.norms ??= this.normsNow());
    const total = new Float64Array(slots);
    const best = new Float64Array(slots);
    const matched: number[] = [];
    let reference = 0;
    // a repeated query word counts once per occurrence, as in the query's own bag of words
    for (const alternatives of query) {
      const touched: number[] = [];
      let bestIdf = 0;
      for (const { term, weight } of alternatives) {
        const posting = this.postings.get(term);
        if (!posting) continue;
        const w = weight * this.idf(term);
        bestIdf = Math.max(bestIdf, w);
        const { slots: docs, tfs } = posting;
        for (let j = 0; j < docs.length; j++) {
          const slot = docs[j]!;
          const tf = tfs[j]!;
          const s = (w * tf * (k1 + 1)) / (tf + norm[slot]!);
          if (best[slot] === 0) touched.push(slot);
          if (s > best[slot]!) best[slot] = s;
        }
      }
      reference += bestIdf;
      for (const slot of touched) {
        if (total[slot] === 0) matched.push(slot);
        total[slot]! += best[slot]!;
        best[slot] = 0;
      }
    }
    return { matched, total, reference };
  }
}

/** One query word as its alternatives: the word itself (weight 1) and related words (less). */
export type QueryTerm = readonly { term: string; weight: number }[];
