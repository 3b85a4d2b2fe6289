import { blockCount, raiseBlockMaximum } from "./score-blocks.js";

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
 * Internally each document has a numbered slot and each term a number, and
 * the postings live in flat typed arrays, so that scoring adds into typed
 * arrays instead of maps: a search touches every posting of every query
 * word, which for common words in a large catalog is most documents. The
 * postings are the only copy of the documents' terms: changes wait aside
 * and are merged in at the next search.
 */
export class Bm25Index {
  private readonly termOf = new Map<string, number>();
  private readonly slotOf = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private lengths = new Float64Array(16);
  private readonly freeSlots: number[] = [];
  private totalLength = 0;
  private packed: Packed = { start: new Uint32Array(1), slots: new Uint32Array(0), tfs: new Float64Array(0), denominators: new Float64Array(0), df: new Uint32Array(0) };
  /** Documents set since the postings were packed, by slot: their terms by number and their frequencies. */
  private readonly added = new Map<number, { terms: number[]; tfs: number[] }>();
  /** Slots whose packed postings are out of date (deleted or set again), by slot. */
  private stale = new Uint8Array(16);
  private changed = false;
  /** Scoring's per-slot sums, and the slots a word's best form is being kept for; reused. */
  private total = new Float64Array(0);
  private maxima = new Float64Array(0);
  private best = new Float64Array(0);
  private touched = new Uint32Array(0);

  constructor(private readonly params: Bm25Params = DEFAULT_BM25) {}

  get size(): number {
    return this.slotOf.size;
  }

  set(id: string, terms: ReadonlyMap<string, number>): void {
    this.delete(id);
    this.changed = true;
    const slot = this.freeSlots.pop() ?? this.ids.length;
    if (slot >= this.lengths.length) {
      this.lengths = grown(this.lengths, slot + 1);
      this.stale = grown(this.stale, slot + 1);
    }
    const doc = { terms: [] as number[], tfs: [] as number[] };
    let length = 0;
    for (const [term, tf] of terms) {
      length += tf;
      let t = this.termOf.get(term);
      if (t === undefined) this.termOf.set(term, (t = this.termOf.size));
      doc.terms.push(t);
      doc.tfs.push(tf);
    }
    this.added.set(slot, doc);
    this.slotOf.set(id, slot);
    this.ids[slot] = id;
    this.lengths[slot] = length;
    this.totalLength += length;
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.changed = true;
    this.added.delete(slot);
    this.stale[slot] = 1;
    this.totalLength -= this.lengths[slot]!;
    this.lengths[slot] = 0;
    this.ids[slot] = undefined;
    this.slotOf.delete(id);
    this.freeSlots.push(slot);
    return true;
  }

  /** Robertson–Spärck Jones IDF, +1 inside the log so it never goes negative for very common terms. */
  idf(term: string): number {
    const t = this.termOf.get(term);
    const df = t === undefined ? 0 : (this.postings().df[t] ?? 0);
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
    const { total, reference } = this.scoreSlots(query);
    const scores = new Map<string, number>();
    total.forEach((score, slot) => {
      if (score > 0) scores.set(this.ids[slot]!, score);
    });
    return { scores, reference };
  }

  /** A document's slot, what `scoreSlots` reports scores by; undefined when it is not indexed. */
  slot(id: string): number | undefined {
    return this.slotOf.get(id);
  }

  /**
   * `score` by slot, for a caller that scans many documents: every slot's
   * score (0 for those that match nothing), one per slot ever used, valid
   * until the next call; the highest of them in each score block
   * (score-blocks.ts) and overall, kept while scoring (a score only grows as
   * words are added, so its last value is its highest), which spares the
   * caller a pass over all slots.
   */
  scoreSlots(query: readonly QueryTerm[]): { total: Float64Array; maxima: Float64Array; highest: number; reference: number } {
    const { k1 } = this.params;
    const { start, slots: docs, tfs, denominators, df } = this.postings();
    if (this.total.length !== this.ids.length) {
      this.total = new Float64Array(this.ids.length);
      this.maxima = new Float64Array(blockCount(this.ids.length));
      this.best = new Float64Array(this.ids.length);
      this.touched = new Uint32Array(this.ids.length);
    }
    const { total, maxima, best, touched } = this;
    total.fill(0);
    maxima.fill(0);
    let reference = 0;
    // a repeated query word counts once per occurrence, as in the query's own bag of words
    for (const alternatives of query) {
      const found = alternatives.flatMap(({ term, weight }) => {
        const t = this.termOf.get(term);
        return t !== undefined && df[t]! > 0 ? [{ t, w: weight * this.idf(term) }] : [];
      });
      let touches = 0;
      let bestIdf = 0;
      for (const { t, w } of found) {
        bestIdf = Math.max(bestIdf, w);
        for (let j = start[t]!; j < start[t + 1]!; j++) {
          const slot = docs[j]!;
          const s = (w * tfs[j]! * (k1 + 1)) / denominators[j]!;
          // a word found in one form only: its score is the document's best, add it straight away
          if (found.length === 1) {
            raiseBlockMaximum(maxima, slot, (total[slot]! += s));
          } else if (s > best[slot]!) {
            // listed when its best turns positive: once a word, so the list fits in one per slot
            if (best[slot] === 0) touched[touches++] = slot;
            best[slot] = s;
          }
        }
      }
      reference += bestIdf;
      for (let i = 0; i < touches; i++) {
        const slot = touched[i]!;
        raiseBlockMaximum(maxima, slot, (total[slot]! += best[slot]!));
        best[slot] = 0;
      }
    }
    let highest = 0;
    for (const m of maxima) if (m > highest) highest = m;
    return { total, maxima, highest, reference };
  }

  /**
   * The postings with the changes since the last time merged in: the packed
   * ones still current, then the added documents'. Only a search packs, so
   * that many changes between two searches (a catalog read one tool at a
   * time) cost one pack, not one each.
   */
  private pack(): void {
    if (!this.changed) return;
    const old = this.packed;
    const { k1, b } = this.params;
    const terms = this.termOf.size;
    const df = new Uint32Array(terms);
    for (let t = 0; t < old.df.length; t++) for (let j = old.start[t]!; j < old.start[t + 1]!; j++) if (!this.stale[old.slots[j]!]) df[t]!++;
    for (const doc of this.added.values()) for (const t of doc.terms) df[t]!++;
    const start = new Uint32Array(terms + 1);
    for (let t = 0; t < terms; t++) start[t + 1] = start[t]! + df[t]!;
    const next = start.slice(0, terms);
    const slots = new Uint32Array(start[terms]!);
    const tfs = new Float64Array(slots.length);
    for (let t = 0; t < old.df.length; t++) {
      for (let j = old.start[t]!; j < old.start[t + 1]!; j++) {
        if (this.stale[old.slots[j]!]) continue;
        const at = next[t]!++;
        slots[at] = old.slots[j]!;
        tfs[at] = old.tfs[j]!;
      }
    }
    for (const [slot, doc] of this.added) {
      doc.terms.forEach((t, i) => {
        const at = next[t]!++;
        slots[at] = slot;
        tfs[at] = doc.tfs[i]!;
      });
    }
    const norms = new Float64Array(this.ids.length);
    const avgLength = this.totalLength / this.slotOf.size;
    for (let i = 0; i < norms.length; i++) norms[i] = k1 * (1 - b + (b * this.lengths[i]!) / avgLength);
    // beside each posting, not looked up by slot: a search reads the postings in order, and the slots at random
    const denominators = Float64Array.from(slots, (slot, at) => tfs[at]! + norms[slot]!);
    this.packed = { start, slots, tfs, denominators, df };
    this.added.clear();
    this.stale.fill(0);
    this.changed = false;
  }

  private postings(): Packed {
    this.pack();
    return this.packed;
  }
}

/** Every term's postings: term t's are start[t] up to start[t + 1] of `slots`, `tfs` and `denominators`; df[t] of them. */
interface Packed {
  start: Uint32Array;
  slots: Uint32Array;
  tfs: Float64Array;
  /** BM25's denominator: the term's frequency plus the document's length-normalised k1. */
  denominators: Float64Array;
  df: Uint32Array;
}

/** A copy of `array` with room for at least `size` entries (doubling, so that growing one at a time stays linear). */
function grown<T extends Uint8Array | Float64Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(size, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** One query word as its alternatives: the word itself (weight 1) and related words (less). */
export type QueryTerm = readonly { term: string; weight: number }[];
