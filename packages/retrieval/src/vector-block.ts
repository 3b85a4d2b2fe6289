import { DotsHelper, MAX_SHARED_SEGMENTS } from "./dots-helper.js";
import { SCORE_BLOCK } from "./score-blocks.js";
import { allMade, dotSegment, queryDimensions, segmentMemory, zeroDots } from "./segment-dots.js";
import type { DotsInProgress, Segment } from "./segment-dots.js";
import type { StoredVector } from "./stored-vector.js";

/**
 * Vectors per segment. Segments are also the share of a query's dot
 * products that the search thread and its helper claim one at a time
 * (`VectorBlock` options), so at 100,000 tools there are seven to balance.
 * On one thread a quarter of a 16-bit place ran about a tenth slower than
 * the whole of one (2.4 against 2.2 ms at 100,000 tools, near this
 * machine's noise): each dimension's runs are shorter.
 */
const SEGMENT = 0x4000;

export interface VectorBlockOptions {
  /**
   * Share each query's dot products with a helper thread (dots-helper.ts)
   * once there is more than one segment: the search thread claims segments
   * too, so a busy helper costs only the wait for the segment it holds.
   * @default false
   */
  helperThread?: boolean;
  /** Vectors per segment: a multiple of SCORE_BLOCK, at most 65,536 (a 16-bit place). @default SEGMENT */
  segmentSize?: number;
}

/**
 * Vectors by number, the only copy the index keeps, laid out for the scan
 * that scores them all against a query. The sparse vectors (the local
 * embedder's) are listed by dimension, so a query's dot products with all of
 * them touch only the dimensions the query sets (about 80 of 1,024, each set
 * in about a seventh of the vectors); whole vectors (a model's) are
 * multiplied out. The lists are cut into segments, so that a vector's place
 * takes 16 bits, a change repacks only the segments it touches, and two
 * threads can share a query's segments. Each segment's lists are in a
 * WebAssembly memory of their own, added up by scatter.wat: 1.3 to 1.5
 * times as fast as the same loop in JavaScript, which checks three arrays'
 * bounds on every entry.
 */
export class VectorBlock {
  /** The length of every vector here, fixed by the first one (0 before). */
  private dimensions = 0;
  private readonly segments: Segment[] = [];
  /** Counts the merges that changed `segments`, so the helper is sent them again only then. */
  private version = 0;
  /** The dot products of the last query, reused: a search makes one set at a time. */
  private out: DotsInProgress = { ...zeroDots(0, 0, 0, false), ready: allMade };
  private readonly segmentSize: number;
  /** Made at the first query with more than one segment, when asked for. */
  private helper: DotsHelper | undefined;
  private helperThread: boolean;

  /**
   * Changes since the segments were last repacked, by vector number: merged in
   * by the next `dots`, so that many updates between two queries (a catalog
   * read one tool at a time) repack each segment once, not once each.
   */
  private readonly waiting = new Map<number, StoredVector | undefined>();

  constructor(options: VectorBlockOptions = {}) {
    this.segmentSize = options.segmentSize ?? SEGMENT;
    if (!Number.isInteger(this.segmentSize) || this.segmentSize % SCORE_BLOCK !== 0 || this.segmentSize < SCORE_BLOCK || this.segmentSize > 0x10000) {
      throw new RangeError(`segmentSize must be a multiple of ${SCORE_BLOCK} in [${SCORE_BLOCK}, 65536], got ${this.segmentSize}`);
    }
    this.helperThread = options.helperThread ?? false;
  }

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
      const s = Math.floor(id / this.segmentSize);
      let segment = bySegment.get(s);
      if (!segment) bySegment.set(s, (segment = new Map()));
      segment.set(id % this.segmentSize, vector);
    }
    this.waiting.clear();
    for (const [s, segmentChanges] of bySegment) {
      while (this.segments.length <= s) this.segments.push(this.emptySegment());
      this.segments[s] = this.repack(this.segments[s]!, segmentChanges);
    }
    this.version++;
  }

  /** Segments of queries' dot products that a helper thread did (0 without one). */
  get segmentsByHelper(): number {
    return this.helper?.helped ?? 0;
  }

  /** The dot product of `query` with every vector, by vector number (0 for numbers without one); valid until the next call. */
  dots(query: Float32Array): Float64Array {
    const dots = this.startDots(query)();
    dots.ready(Infinity);
    return dots.sums;
  }

  /**
   * `dots`, started: with a helper thread, it begins on the helper at once
   * and the returned function claims the rest and returns them, the
   * helper's still in progress, so the caller can do other work in between
   * and use each block's once it is ready; without one, the returned
   * function does it all. No other call on the block may come in between.
   */
  startDots(query: Float32Array): () => DotsInProgress {
    this.merge();
    if (this.segments.length === 0) return () => this.out;
    if (query.length !== this.dimensions) throw new RangeError(`vector lengths differ: ${query.length} vs ${this.dimensions}`);
    const length = (this.segments.length - 1) * this.segmentSize + this.segments.at(-1)!.extent;
    if (this.helperThread && this.segments.length > 1 && this.segments.length <= MAX_SHARED_SEGMENTS) {
      this.helper ??= new DotsHelper(this.segmentSize, (error) => {
        // the helper's segments were redone here; later queries go without it
        process.emitWarning(error);
        this.helper = undefined;
        this.helperThread = false;
      });
      return this.helper.start(this.segments, this.version, query, length);
    }
    if (this.out.sums.length < length) this.out = { ...zeroDots(length, this.segments.length, this.segmentSize, false), ready: allMade };
    const { segments, segmentSize, out } = this;
    return () => {
      const dims = queryDimensions(query);
      for (let s = 0; s < segments.length; s++) dotSegment(segments, s, segmentSize, query, dims, out);
      return out;
    };
  }

  private emptySegment(): Segment {
    return {
      extent: 0,
      byDimension: this.array(Uint32Array, this.dimensions + 1),
      ...segmentMemory(this.segmentSize, 0),
      wholeVector: this.array(Uint16Array, 0),
      wholeValues: this.array(Float32Array, 0),
    };
  }

  /** The segment with its changed places' entries dropped and their new vectors added: a counting sort by dimension. */
  private repack(old: Segment, changes: ReadonlyMap<number, StoredVector | undefined>): Segment {
    const dims = this.dimensions;
    const changed = new Uint8Array(this.segmentSize);
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

    const byDimension = this.array(Uint32Array, dims + 1);
    for (let d = 0; d < dims; d++) {
      for (let i = old.byDimension[d]!; i < old.byDimension[d + 1]!; i++) if (!changed[old.vector[i]!]) byDimension[d + 1]!++;
    }
    for (const { indices } of sparse) for (let j = 0; j < indices.length; j++) byDimension[indices[j]! + 1]!++;
    for (let d = 0; d < dims; d++) byDimension[d + 1]! += byDimension[d]!;
    const { memory, vector, value } = segmentMemory(this.segmentSize, byDimension[dims]!);
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
    const wholeValues = this.array(Float32Array, whole.length * dims);
    whole.forEach(({ values }, w) => wholeValues.set(values, w * dims));
    let extent = old.extent;
    for (const [place, v] of changes) if (v) extent = Math.max(extent, place + 1);
    const wholeVector = this.array(Uint16Array, whole.length);
    whole.forEach(({ place }, w) => (wholeVector[w] = place));
    return { extent, byDimension, memory, vector, value, wholeVector, wholeValues };
  }

  /** A typed array of zeros, in memory a helper thread can share when there may be one. */
  private array<T extends Uint16Array | Uint32Array | Float32Array>(type: { new (length: number): T; new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number): T {
    return this.helperThread ? new type(new SharedArrayBuffer(length * type.BYTES_PER_ELEMENT)) : new type(length);
  }
}
