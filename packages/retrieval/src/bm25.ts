/** Okapi BM25 parameters; the usual defaults (Robertson & Zaragoza 2009). */
export interface Bm25Params {
  /** Term-frequency saturation. @default 1.2 */
  k1: number;
  /** Length normalisation. @default 0.75 */
  b: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

/**
 * An inverted index over token bags, updated in place, scored with BM25.
 * Documents are keyed by id (the tool name); term frequencies may be
 * fractional so that fields can carry weights (the name counts double).
 */
export class Bm25Index {
  private readonly postings = new Map<string, Map<string, number>>();
  private readonly docs = new Map<string, { terms: Map<string, number>; length: number }>();
  private totalLength = 0;

  constructor(private readonly params: Bm25Params = DEFAULT_BM25) {}

  get size(): number {
    return this.docs.size;
  }

  set(id: string, terms: ReadonlyMap<string, number>): void {
    this.delete(id);
    let length = 0;
    for (const [term, tf] of terms) {
      length += tf;
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Map()));
      posting.set(id, tf);
    }
    this.docs.set(id, { terms: new Map(terms), length });
    this.totalLength += length;
  }

  delete(id: string): boolean {
    const doc = this.docs.get(id);
    if (!doc) return false;
    for (const term of doc.terms.keys()) {
      const posting = this.postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.postings.delete(term);
    }
    this.totalLength -= doc.length;
    this.docs.delete(id);
    return true;
  }

  /** Robertson–Spärck Jones IDF, +1 inside the log so it never goes negative for very common terms. */
  idf(term: string): number {
    const df = this.postings.get(term)?.size ?? 0;
    const n = this.docs.size;
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
    const scores = new Map<string, number>();
    const n = this.docs.size;
    if (n === 0) return { scores, reference: 0 };
    const avgLength = this.totalLength / n;
    const { k1, b } = this.params;
    let reference = 0;
    // a repeated query word counts once per occurrence, as in the query's own bag of words
    for (const alternatives of query) {
      const best = new Map<string, number>();
      let bestIdf = 0;
      for (const { term, weight } of alternatives) {
        const posting = this.postings.get(term);
        if (!posting) continue;
        const idf = this.idf(term);
        bestIdf = Math.max(bestIdf, weight * idf);
        for (const [id, tf] of posting) {
          const length = this.docs.get(id)!.length;
          const s = (weight * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avgLength));
          best.set(id, Math.max(best.get(id) ?? 0, s));
        }
      }
      reference += bestIdf;
      for (const [id, s] of best) scores.set(id, (scores.get(id) ?? 0) + s);
    }
    return { scores, reference };
  }
}

/** One query word as its alternatives: the word itself (weight 1) and related words (less). */
export type QueryTerm = readonly { term: string; weight: number }[];
