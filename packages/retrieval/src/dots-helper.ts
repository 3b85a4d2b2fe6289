import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { SCORE_BLOCK } from "./score-blocks.js";
import { dotSegment, queryDimensions, zeroDots } from "./segment-dots.js";
import type { Dots, DotsInProgress, Segment } from "./segment-dots.js";

/**
 * The words of the control array the search thread and its helper share:
 * CLAIM holds a query's generation (high 16 bits) and the next segment to
 * claim (low 16), so a helper that wakes late for a finished query claims
 * nothing of the next one; FAILED is set by a claim whose work threw;
 * GENERATION is the query's generation alone, which the idle helper sleeps
 * on until it changes.
 */
const CLAIM = 0;
const FAILED = 1;
export const GENERATION = 2;

/** Segments one query can share out: a segment's number takes the claim word's low 16 bits. */
export const MAX_SHARED_SEGMENTS = 0xffff;

/** What the helper thread is sent whenever the segments change: every array here is in shared memory. */
export interface HelperState {
  segments: readonly Segment[];
  segmentSize: number;
  query: Float32Array;
  out: Dots;
  /** By segment, the generation of the last query whose dot products with it are made. */
  made: Int32Array;
}

/** What the helper thread starts with: the control array, and the port its states come on. */
export interface HelperData {
  control: Int32Array;
  port: MessagePort;
}

/**
 * Claims the query's segments one at a time until none is left, and does
 * `work` for each, then marks it made; called by both threads, so whichever
 * is free takes the next. Stops at once when the query is no longer
 * `generation`.
 */
export function claimSegments(control: Int32Array, made: Int32Array, generation: number, count: number, work: (segment: number) => void): void {
  for (;;) {
    const claim = Atomics.load(control, CLAIM);
    const segment = claim & 0xffff;
    if (claim >>> 16 !== generation || segment >= count) return;
    if (Atomics.compareExchange(control, CLAIM, claim, claim + 1) !== claim) continue;
    try {
      work(segment);
    } catch (error) {
      // the search thread, waiting for the segment, redoes the query and stops sharing
      Atomics.store(control, FAILED, 1);
      throw error;
    } finally {
      Atomics.store(made, segment, generation);
      Atomics.notify(made, segment);
    }
  }
}

/**
 * The helper thread, running dots-worker beside this module. Under tsx (the
 * tests run the TypeScript sources) a worker does not inherit tsx's loader on
 * Node 20, so it registers tsx's require hook before loading the source.
 */
function startWorker(data: HelperData): Worker {
  const options = { workerData: data, transferList: [data.port] };
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./dots-worker.js", import.meta.url), options);
  const source = fileURLToPath(new URL("./dots-worker.ts", import.meta.url));
  const tsx = createRequire(import.meta.url).resolve("tsx/cjs/api");
  return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`, { ...options, eval: true });
}

/** The helper threads of blocks that were garbage collected without failing, stopped. */
const orphans = new FinalizationRegistry<Worker>((worker) => void worker.terminate());

/**
 * A helper thread (dots-worker.ts) that takes a share of each query's
 * segments: the search thread starts a query and wakes the helper with
 * Atomics.notify (a message per query cost the search thread 0.2 ms to send
 * at 100,000 tools, and the helper a turn of its event loop to hear); the
 * helper claims segments while the search thread does other work, then the
 * search thread claims what is left and, as it scans the blocks in order,
 * waits for a segment the helper still holds only when it reaches it. A
 * helper that is busy elsewhere or not started yet claims nothing; the
 * search thread does it all. The segments' arrays and the sums are in shared memory; the sums are
 * the same as one thread's, each vector's added in its own order.
 */
export class DotsHelper {
  private readonly worker: Worker;
  private readonly control = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT));
  /** Where the helper's states go (HelperState): it takes them when it wakes for a query. */
  private readonly port: MessagePort;
  private query: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private out = zeroDots(0, 0, 0, false);
  private made: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** The block's version the helper was last sent (-1: none, or out of date). */
  private sent = -1;
  private generation = 0;
  private failed = false;
  /** Segments the helper thread has done so far, of every query. */
  helped = 0;
  /** Finishes the last query while some of its segments have not been waited for (its caller threw before): the next query does so first. */
  private unfinished: (() => unknown) | undefined;

  /** `onFailure` hears of a helper that failed; the block must then stop using this one. */
  constructor(
    private readonly segmentSize: number,
    private readonly onFailure: (error: Error) => void,
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.port.unref();
    this.worker = startWorker({ control: this.control, port: port2 });
    // a helper never keeps its process alive
    this.worker.unref();
    // the listener holds the helper weakly, so that a dropped block's helper can be collected and its thread stopped
    const self = new WeakRef(this);
    this.worker.on("error", (error) => self.deref()?.fail(error));
    orphans.register(this, this.worker, this);
  }

  /** `VectorBlock.startDots` for these segments (the block's `version` of them), with the sums over `length` places. */
  start(segments: readonly Segment[], version: number, query: Float32Array, length: number): () => DotsInProgress {
    // a query whose caller threw before finishing it: the helper may still hold one of its segments, writing sums
    this.unfinished?.();
    if (this.out.sums.length < length) {
      this.out = zeroDots(length, segments.length, this.segmentSize, true);
      this.made = new Int32Array(new SharedArrayBuffer(segments.length * Int32Array.BYTES_PER_ELEMENT));
      this.sent = -1;
    }
    if (this.query.length !== query.length) {
      this.query = new Float32Array(new SharedArrayBuffer(query.length * Float32Array.BYTES_PER_ELEMENT));
      this.sent = -1;
    }
    const { control, made, segmentSize, out } = this;
    const shared = this.query;
    if (this.sent !== version) {
      // queued on the helper's port at once: it takes these segments when it wakes for the query below
      this.port.postMessage({ segments, segmentSize, query: shared, out, made } satisfies HelperState);
      this.sent = version;
    }
    shared.set(query);
    const generation = (this.generation = (this.generation % 0x7fff) + 1);
    Atomics.store(control, CLAIM, generation << 16);
    Atomics.store(control, GENERATION, generation);
    Atomics.notify(control, GENERATION);
    const blocksPerSegment = segmentSize / SCORE_BLOCK;
    const finish = (): DotsInProgress => {
      const dims = queryDimensions(shared);
      let own = 0;
      const work = (s: number) => dotSegment(segments, s, segmentSize, shared, dims, out);
      claimSegments(control, made, generation, segments.length, (s) => {
        own++;
        work(s);
      });
      // every segment is claimed; the first `waited` are made
      let waited = 0;
      const ready = (block: number): number => {
        const last = Math.min(Math.floor(block / blocksPerSegment), segments.length - 1);
        for (; waited <= last; waited++) {
          for (let g = Atomics.load(made, waited); g !== generation; g = Atomics.load(made, waited)) Atomics.wait(made, waited, g);
          if (Atomics.load(control, FAILED) !== 0) {
            for (let s = 0; s < segments.length; s++) work(s);
            own = segments.length;
            waited = segments.length;
            this.fail(new Error("the dot products' helper thread failed: its query was redone on the search thread"));
            break;
          }
        }
        if (waited < segments.length) return waited * blocksPerSegment;
        if (this.unfinished) {
          this.unfinished = undefined;
          this.helped += segments.length - own;
        }
        return Infinity;
      };
      this.unfinished = () => ready(Infinity);
      return { sums: out.sums, maxima: out.maxima, ready };
    };
    this.unfinished = () => finish().ready(Infinity);
    return finish;
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    orphans.unregister(this);
    void this.worker.terminate();
    this.onFailure(error);
  }
}
