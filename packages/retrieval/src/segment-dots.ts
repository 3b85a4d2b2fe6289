/** One segment of a VectorBlock and a query's dot products with it: the work the search thread and its helper (dots-helper.ts) share. */
import { SCATTER_WASM } from "./gen/scatter-wasm.js";
import { SCORE_BLOCK } from "./score-blocks.js";

/** The vectors numbered from `segmentSize * s` on, s the segment's position. */
export interface Segment {
  /** One more than the highest place that ever held a vector: the places a query's sums are kept for. */
  extent: number;
  /** The sparse vectors' entries by dimension: dimension d's are byDimension[d] up to byDimension[d + 1] of `vector` (its place in the segment) and `value`. */
  byDimension: Uint32Array;
  /** Where `vector` and `value` are, after room for a query's sums by place (`segmentMemory`): scatter.wat adds them up there. */
  memory: WebAssembly.Memory;
  vector: Uint16Array;
  value: Float32Array;
  /** The whole vectors: the w-th is at place wholeVector[w], its entries wholeValues[w * dimensions …]. */
  wholeVector: Uint16Array;
  wholeValues: Float32Array;
}

/**
 * A segment's memory for `entries` sparse entries, in `segmentSize` places:
 * the sums (8 bytes a place) from byte 0, then the places (2 bytes an
 * entry), then the values (4 bytes, aligned). Shared, so that the helper
 * thread adds up the segments it claims in the same memory.
 */
export function segmentMemory(segmentSize: number, entries: number): { memory: WebAssembly.Memory; vector: Uint16Array; value: Float32Array } {
  const places = segmentSize * Float64Array.BYTES_PER_ELEMENT;
  const values = places + Math.ceil((entries * Uint16Array.BYTES_PER_ELEMENT) / 4) * 4;
  const pages = Math.ceil((values + entries * Float32Array.BYTES_PER_ELEMENT) / WASM_PAGE) || 1;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
  return { memory, vector: new Uint16Array(memory.buffer, places, entries), value: new Float32Array(memory.buffer, values, entries) };
}

const WASM_PAGE = 0x10000;
const scatter = new WebAssembly.Module(SCATTER_WASM);

/** scatter.wat's `add`: sums[place] += weight * value for `n` entries, their places and values from those byte offsets on. */
type Add = (weight: number, places: number, values: number, n: number) => void;
/** `add` on each segment memory this thread has used. */
const adders = new WeakMap<WebAssembly.Memory, Add>();

function adderOf(memory: WebAssembly.Memory): Add {
  let add = adders.get(memory);
  if (!add) {
    add = new WebAssembly.Instance(scatter, { segment: { memory } }).exports["add"] as Add;
    adders.set(memory, add);
  }
  return add;
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
  const { extent, byDimension, memory, vector, value, wholeVector, wholeValues } = segments[s]!;
  const out = dots.sums.subarray(s * segmentSize);
  const blocks = segmentSize / SCORE_BLOCK;
  const maxima = dots.maxima.subarray(s * blocks, (s + 1) * blocks);
  const sums = new Float64Array(memory.buffer, 0, extent);
  sums.fill(0);
  // each vector's products are added in ascending dimension order, as a plain dot product adds them
  const add = adderOf(memory);
  for (const d of dims) {
    const from = byDimension[d]!;
    const n = byDimension[d + 1]! - from;
    if (n > 0) add(query[d]!, vector.byteOffset + from * Uint16Array.BYTES_PER_ELEMENT, value.byteOffset + from * Float32Array.BYTES_PER_ELEMENT, n);
  }
  out.set(sums);
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
