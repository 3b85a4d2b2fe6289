import type { StoredVector } from "./stored-vector.js";

/**
 * Every tool's vectors in a few flat typed arrays, in one order, for the scan
 * that scores them all against a query. The sparse vectors (the local
 * embedder's) are also listed by dimension, so a query's dot products with all
 * of them touch only the dimensions the query has: a query sets about 40 to 80
 * of 1,024, and each is set in about a tenth of the tools. Whole vectors (a
 * model's) are multiplied out. The index makes the block again after its
 * tools change (tens of milliseconds at 100,000 tools, under one at 1,000).
 */
export class VectorBlock {
  /** The length of every vector here (0 when there are none). */
  readonly dimensions: number;
  /** Tool t's vectors are firstVector[t] up to firstVector[t + 1]. */
  private readonly firstVector: Uint32Array;
  /** The whole vectors: vector v's entries are wholeValues[wholeStart[v] …] (dimensions of them); -1 for a sparse one. */
  private readonly wholeStart: Int32Array;
  private readonly wholeValues: Float32Array;
  /** The sparse vectors by dimension: dimension d's entries are byDimension[d] up to byDimension[d + 1] of entryVector and entryValue. */
  private readonly byDimension: Uint32Array;
  private readonly entryVector: Uint32Array;
  private readonly entryValue: Float32Array;

  constructor(vectorsByTool: readonly (readonly StoredVector[])[]) {
    const all = vectorsByTool.flat();
    let dimensions: number | undefined;
    for (const v of all) {
      if (dimensions !== undefined && v.length !== dimensions) throw new RangeError(`vector lengths differ: ${dimensions} vs ${v.length}`);
      dimensions = v.length;
    }
    this.dimensions = dimensions ?? 0;

    this.firstVector = new Uint32Array(vectorsByTool.length + 1);
    let first = 0;
    vectorsByTool.forEach((vectors, tool) => {
      this.firstVector[tool] = first;
      first += vectors.length;
    });
    this.firstVector[vectorsByTool.length] = first;

    const whole = all.filter((v): v is Float32Array => v instanceof Float32Array);
    this.wholeStart = new Int32Array(all.length).fill(-1);
    this.wholeValues = new Float32Array(whole.length * this.dimensions);
    // A counting sort of the sparse entries by dimension.
    this.byDimension = new Uint32Array(this.dimensions + 1);
    for (const v of all) if (!(v instanceof Float32Array)) for (const d of v.indices) this.byDimension[d + 1]!++;
    for (let d = 0; d < this.dimensions; d++) this.byDimension[d + 1]! += this.byDimension[d]!;
    this.entryVector = new Uint32Array(this.byDimension[this.dimensions]!);
    this.entryValue = new Float32Array(this.entryVector.length);
    const next = this.byDimension.slice(0, this.dimensions);
    let wholeAt = 0;
    all.forEach((v, vector) => {
      if (v instanceof Float32Array) {
        this.wholeStart[vector] = wholeAt;
        this.wholeValues.set(v, wholeAt);
        wholeAt += v.length;
        return;
      }
      for (let i = 0; i < v.indices.length; i++) {
        const at = next[v.indices[i]!]!++;
        this.entryVector[at] = vector;
        this.entryValue[at] = v.values[i]!;
      }
    });
  }

  /** The dot product of `query` (`dimensions` long) with every vector, by vector number. */
  dots(query: Float32Array): Float64Array {
    if (query.length !== this.dimensions) throw new RangeError(`vector lengths differ: ${query.length} vs ${this.dimensions}`);
    const out = new Float64Array(this.wholeStart.length);
    for (let d = 0; d < this.dimensions; d++) {
      const q = query[d]!;
      if (q === 0) continue;
      for (let i = this.byDimension[d]!; i < this.byDimension[d + 1]!; i++) out[this.entryVector[i]!]! += q * this.entryValue[i]!;
    }
    for (let v = 0; v < this.wholeStart.length; v++) {
      const from = this.wholeStart[v]!;
      if (from < 0) continue;
      let s = 0;
      for (let d = 0; d < this.dimensions; d++) s += query[d]! * this.wholeValues[from + d]!;
      out[v] = s;
    }
    return out;
  }

  /** Tool `tool`'s `k`-th vector's entry in `dots` (from `dots()`), clamped at 0; 0 when it has no such vector. */
  at(tool: number, k: number, dots: Float64Array): number {
    const v = this.firstVector[tool]! + k;
    return v < this.firstVector[tool + 1]! ? Math.max(0, dots[v]!) : 0;
  }
}
