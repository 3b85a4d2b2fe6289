/** A vector of mostly zeros by its nonzero entries alone, in ascending index order. */
export interface SparseVector {
  /** The full vector's length. */
  readonly length: number;
  readonly indices: Uint32Array;
  readonly values: Float32Array;
}

/**
 * A tool's vector as the index keeps it. The local embedder's vectors are
 * mostly zeros (70 to 150 of 1,024 entries set), so they are kept by their
 * nonzero entries: a seventh of the memory, and a dot product that reads them
 * in order instead of touching a 4 KiB array at random (vector-block.ts). A
 * model's dense vector is kept whole.
 */
export type StoredVector = Float32Array | SparseVector;

/** The vector to keep: sparse when fewer than a third of its entries are set. */
export function storeVector(vector: Float32Array): StoredVector {
  let nonZero = 0;
  for (const x of vector) if (x !== 0) nonZero++;
  if (nonZero * 3 > vector.length) return vector;
  const indices = new Uint32Array(nonZero);
  const values = new Float32Array(nonZero);
  let at = 0;
  for (let i = 0; i < vector.length; i++) {
    if (vector[i] === 0) continue;
    indices[at] = i;
    values[at++] = vector[i]!;
  }
  return { length: vector.length, indices, values };
}
