/** One segment of a VectorBlock and a query's dot products with it: the work the search thread and its helper (dots-helper.ts) share. */
import { SCORE_BLOCK } from "./score-blocks.js";

/** The vectors numbered from `segmentSize * s` on, s the segment's position. */
export interface Segment {
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

/** A query's dot products with every vector, by vector number (0 for numbers without one), and the highest in each score block (score-blocks.ts). */
export interface Dots {
  sums: Float64Array;
  maxima: Float64Array;
}

/**
 * A query's dot products while they are being made (by two threads):
 * `ready(block)` returns once the sums and maxima of every score block up to
 * `block` are there, with the first block not yet known to be (Infinity once
 * all are), so a scan in block order waits only where it catches up.
 */
export interface DotsInProgress extends Dots {
  ready(block: number): number;
}

/** `ready` of dot products that are all there. */
export const allMade = (): number => Infinity;

/** Zeroed dot products for `length` vectors in `segments` segments of `segmentSize`, in memory a helper thread can share or not. */
export function zeroDots(length: number, segments: number, segmentSize: number, shared: boolean): Dots {
  const array = (n: number) => (shared ? new Float64Array(new SharedArrayBuffer(n * Float64Array.BYTES_PER_ELEMENT)) : new Float64Array(n));
  return { sums: array(length), maxima: array((segments * segmentSize) / SCORE_BLOCK) };
}

/** The dimensions a query sets, in ascending order. */
export function queryDimensions(query: Float32Array): number[] {
  const dims: number[] = [];
  for (let d = 0; d < query.length; d++) if (query[d] !== 0) dims.push(d);
  return dims;
}

/**
 * The dot products of `query` (setting `dims`) with the vectors of segment
 * `s`, into their places of `dots.sums`; and the highest of them in each of
 * the segment's score blocks into `dots.maxima` (0 for a block without
 * vectors). A segment's size is a multiple of SCORE_BLOCK.
 */
export function dotSegment(segments: readonly Segment[], s: number, segmentSize: number, query: Float32Array, dims: readonly number[], dots: Dots): void {
  const { extent, byDimension, vector, value, wholeVector, wholeValues } = segments[s]!;
  const out = dots.sums.subarray(s * segmentSize);
  const blocks = segmentSize / SCORE_BLOCK;
  const maxima = dots.maxima.subarray(s * blocks, (s + 1) * blocks);
  out.fill(0, 0, extent);
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
  const dimensions = query.length;
  for (let w = 0; w < wholeVector.length; w++) {
    const from = w * dimensions;
    let sum = 0;
    for (let d = 0; d < dimensions; d++) sum += query[d]! * wholeValues[from + d]!;
    out[wholeVector[w]!] = sum;
  }
  // here, while the segment's sums are in cache, by whichever thread made them
  for (let b = 0; b < maxima.length; b++) {
    const from = b * SCORE_BLOCK;
    const to = Math.min(from + SCORE_BLOCK, extent);
    let highest = from < to ? out[from]! : 0;
    for (let p = from + 1; p < to; p++) if (out[p]! > highest) highest = out[p]!;
    maxima[b] = highest;
  }
}
