import { dot } from "./embedder.js";

/**
 * A query's vector, ready for many dot products. The local embedder's
 * vectors are mostly zeros (a query has a few dozen features in 1,024
 * dimensions), so when fewer than a third of the entries are set the product
 * runs over those alone; a model's dense vector takes the plain loop.
 */
export class QueryVector {
  private readonly indices: Uint32Array | undefined;
  private readonly values: Float32Array | undefined;

  constructor(private readonly vector: Float32Array) {
    let nonZero = 0;
    for (const x of vector) if (x !== 0) nonZero++;
    if (nonZero * 3 > vector.length) return;
    this.indices = new Uint32Array(nonZero);
    this.values = new Float32Array(nonZero);
    let at = 0;
    for (let i = 0; i < vector.length; i++) {
      if (vector[i] === 0) continue;
      this.indices[at] = i;
      this.values[at++] = vector[i]!;
    }
  }

  /** The dot product with a vector of the same length. */
  dot(v: Float32Array): number {
    if (!this.indices || !this.values) return dot(this.vector, v);
    if (v.length !== this.vector.length) throw new RangeError(`vector lengths differ: ${this.vector.length} vs ${v.length}`);
    let s = 0;
    for (let i = 0; i < this.indices.length; i++) s += this.values[i]! * v[this.indices[i]!]!;
    return s;
  }
}
