import type { StoredVector } from "./stored-vector.js";

/**
 * Vectors per segment: as many as a 16-bit place allows. Smaller segments,
 * whose sums would stay in a faster cache, measured slower: each query
 * dimension's run of entries gets shorter and its loop's overhead counts.
 */
const SEGMENT = 0x10000;

/** The vectors numbered from `SEGMENT * s` on, s the segment's position. */
interface Segment {
  /** One more than the highest place that ever held a vector: the places a query's sums are kept for. */
  extent: number;
  /** The sparse vectors' entries by dimension: dimension d's are byDimension[d] up to byDimension[d + 1] of `vector` (its place in the segment) and `value`. */
  byDimension: Uint32Array;
  vector: Uint16Array;
  value: Float32Array;
  /** The whole vectors: the w-th is at place wholeVector[w], its entries wholeValues[w * dimensions …]. */
  wholeVector: Uint16Array;
  wholeValues: Float32Array;
}

/**
 * Vectors by number, the only copy the index keeps, laid out for the scan
 * that scores them all against a query. The sparse vectors (the local
 * embedder's) are listed by dimension, so a query's dot products with all of
 * them touch only the dimensions the query sets (about 80 of 1,024, each set
 * in about a seventh of the vectors); whole vectors (a model's) are
 * multiplied out. The lists are cut into segments of SEGMENT vectors, so that a
 * vector's place takes 16 bits, and a change repacks only the segments it
 * touches.
 */
export class VectorBlock {
  /** The length of every vector here, fixed by the first one (0 before). */
  private dimensions = 0;
  private readonly segments: Segment[] = [];
  /** The dot products of the last query, reused: a search makes one set at a time. */
  private out = new Float64Array(0);

  /**
   * Changes since the segments were last repacked, by vector number: merged in
   * by the next `dots`, so that many updates between two queries (a catalog
   * read one tool at a time) repack each segment once, not once each.
   */
  private readonly waiting = new Map<number, StoredVector | undefined>();

  /** Sets (a vector) or deletes (undefined) vectors by number. */
  update(changes: ReadonlyMap<number, StoredVector | undefined>): void {
    for (const [id, vector] of changes) {
      if (vector) {
        if (this.dimensions === 0) this.dimensions = vector.length;
        if (vector.length !== this.dimensions) throw new RangeError(`vector lengths differ: ${this.dimensions} vs ${vector.length}`);
      }
      // with no vector yet there is nothing to delete
      if (this.dimensions > 0) this.waiting.set(id, vector);
    }
  }

  /** Repacks the segments the waiting changes touch. */
  private merge(): void {
    if (this.waiting.size === 0) return;
    const bySegment = new Map<number, Map<number, StoredVector | undefined>>();
    for (const [id, vector] of this.waiting) {
      const s = Math.floor(id / SEGMENT);
      let segment = bySegment.get(s);
      if (!segment) bySegment.set(s, (segment = new Map()));
      segment.set(id % SEGMENT, vector);
    }
    this.waiting.clear();
    for (const [s, segmentChanges] of bySegment) {
      while (this.segments.length <= s) this.segments.push(this.emptySegment());
      this.segments[s] = this.repack(this.segments[s]!, segmentChanges);
    }
  }

  /** The dot product of `query` with every vector, by vector number (0 for numbers without one); valid until the next call. */
  dots(query: Float32Array): Float64Array {
    this.merge();
    if (this.segments.length === 0) return this.out;
    if (query.length !== this.dimensions) throw new RangeError(`vector lengths differ: ${query.length} vs ${this.dimensions}`);
    const length = (this.segments.length - 1) * SEGMENT + this.segments.at(-1)!.extent;
    if (this.out.length < length) this.out = new Float64Array(length);
    const dims: number[] = [];
    for (let d = 0; d < query.length; d++) if (query[d] !== 0) dims.push(d);
    for (let s = 0; s < this.segments.length; s++) {
      const { extent, byDimension, vector, value, wholeVector, wholeValues } = this.segments[s]!;
      const out = this.out.subarray(s * SEGMENT, s * SEGMENT + extent);
      out.fill(0);
      // each vector's products are added in ascending dimension order, as a plain dot product adds them
      for (const d of dims) {
        const q = query[d]!;
        const end = byDimension[d + 1]!;
        let i = byDimension[d]!;
        // eight at a time, 40 % faster than one: a dimension lists a vector once, so the eight sums are apart and overlap
        for (; i + 7 < end; i += 8) {
          const a = vector[i]!;
          const b = vector[i + 1]!;
          const c = vector[i + 2]!;
          const e = vector[i + 3]!;
          const f = vector[i + 4]!;
          const g = vector[i + 5]!;
          const h = vector[i + 6]!;
          const k = vector[i + 7]!;
          out[a]! += q * value[i]!;
          out[b]! += q * value[i + 1]!;
          out[c]! += q * value[i + 2]!;
          out[e]! += q * value[i + 3]!;
          out[f]! += q * value[i + 4]!;
          out[g]! += q * value[i + 5]!;
          out[h]! += q * value[i + 6]!;
          out[k]! += q * value[i + 7]!;
        }
        for (; i < end; i++) out[vector[i]!]! += q * value[i]!;
      }
      for (let w = 0; w < wholeVector.length; w++) {
        const from = w * this.dimensions;
        let sum = 0;
        for (let d = 0; d < this.dimensions; d++) sum += query[d]! * wholeValues[from + d]!;
        out[wholeVector[w]!] = sum;
      }
    }
    return this.out;
  }

  private emptySegment(): Segment {
    return {
      extent: 0,
      byDimension: new Uint32Array(this.dimensions + 1),
      vector: new Uint16Array(0),
      value: new Float32Array(0),
      wholeVector: new Uint16Array(0),
      wholeValues: new Float32Array(0),
    };
  }

  /** The segment with its changed places' entries dropped and their new vectors added: a counting sort by dimension. */
  private repack(old: Segment, changes: ReadonlyMap<number, StoredVector | undefined>): Segment {
    const dims = this.dimensions;
    const changed = new Uint8Array(SEGMENT);
    for (const place of changes.keys()) changed[place] = 1;
    const sparse: { place: number; indices: ArrayLike<number>; values: Float32Array }[] = [];
    const whole: { place: number; values: Float32Array }[] = [];
    for (let w = 0; w < old.wholeVector.length; w++) {
      const place = old.wholeVector[w]!;
      if (!changed[place]) whole.push({ place, values: old.wholeValues.subarray(w * dims, (w + 1) * dims) });
    }
    for (const [place, v] of changes) {
      if (v instanceof Float32Array) whole.push({ place, values: v });
      else if (v) sparse.push({ place, indices: v.indices, values: v.values });
    }

    const byDimension = new Uint32Array(dims + 1);
    for (let d = 0; d < dims; d++) {
      for (let i = old.byDimension[d]!; i < old.byDimension[d + 1]!; i++) if (!changed[old.vector[i]!]) byDimension[d + 1]!++;
    }
    for (const { indices } of sparse) for (let j = 0; j < indices.length; j++) byDimension[indices[j]! + 1]!++;
    for (let d = 0; d < dims; d++) byDimension[d + 1]! += byDimension[d]!;
    const vector = new Uint16Array(byDimension[dims]!);
    const value = new Float32Array(vector.length);
    const next = byDimension.slice(0, dims);
    for (let d = 0; d < dims; d++) {
      for (let i = old.byDimension[d]!; i < old.byDimension[d + 1]!; i++) {
        if (changed[old.vector[i]!]) continue;
        const at = next[d]!++;
        vector[at] = old.vector[i]!;
        value[at] = old.value[i]!;
      }
    }
    for (const { place, indices, values } of sparse) {
      for (let j = 0; j < indices.length; j++) {
        const at = next[indices[j]!]!++;
        vector[at] = place;
        value[at] = values[j]!;
      }
    }
    const wholeValues = new Float32Array(whole.length * dims);
    whole.forEach(({ values }, w) => wholeValues.set(values, w * dims));
    let extent = old.extent;
    for (const [place, v] of changes) if (v) extent = Math.max(extent, place + 1);
    return { extent, byDimension, vector, value, wholeVector: Uint16Array.from(whole, (w) => w.place), wholeValues };
  }
}
