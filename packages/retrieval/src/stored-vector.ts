/** A vector of mostly zeros by its nonzero entries alone, in ascending index order. */
export interface SparseVector {
  /** The full vector's length. */
  readonly length: number;
  readonly indices: Uint16Array | Uint32Array;
  readonly values: Float32Array;
}

/**
 * A tool's vector as the index keeps it. The local embedder's vectors are
 * mostly zeros (70 to 700 of 1,024 entries set), so they are kept by their
 * nonzero entries: less memory, and the dot products with all of them touch
 * only the dimensions a query sets (vector-block.ts). A model's dense vector
 * is kept whole.
 */
export type StoredVector = Float32Array | SparseVector;

/**
 * The vector to keep: whole only when every entry is set (a model's). Any
 * density below that is kept sparse: the local embedder's queries set a
 * twelfth of the dimensions, so a by-dimension scan reads a small share of
 * even its densest vectors, where a whole one costs every dimension.
 */
export function storeVector(vector: Float32Array): StoredVector {
  // one pass over the vector into scratch arrays of its length, then copies of the part used
  if (scratch.values.length < vector.length) scratch = { indices: new Uint32Array(vector.length), values: new Float32Array(vector.length) };
  let nonZero = 0;
  for (let i = 0; i < vector.length; i++) {
    if (vector[i] === 0) continue;
    scratch.indices[nonZero] = i;
    scratch.values[nonZero++] = vector[i]!;
  }
  if (nonZero === vector.length) return vector;
  const indices = vector.length <= 0x10000 ? Uint16Array.from(scratch.indices.subarray(0, nonZero)) : scratch.indices.slice(0, nonZero);
  return { length: vector.length, indices, values: scratch.values.slice(0, nonZero) };
}

let scratch = { indices: new Uint32Array(0), values: new Float32Array(0) };
