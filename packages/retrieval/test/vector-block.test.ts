import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dot } from "../src/embedder.js";
import { SCORE_BLOCK } from "../src/score-blocks.js";
import { mulberry32 } from "../src/seeded-random.js";
import type { StoredVector } from "../src/stored-vector.js";
import { VectorBlock } from "../src/vector-block.js";

const DIMENSIONS = 64;

/** A vector with about a fifth of its entries set; whole (every entry set) one time in eight. */
function randomVector(random: () => number): { stored: StoredVector; full: Float32Array } {
  const full = new Float32Array(DIMENSIONS);
  const whole = random() < 0.125;
  for (let d = 0; d < DIMENSIONS; d++) if (whole || random() < 0.2) full[d] = random() * 2 - 1 || 0.5;
  if (whole) return { stored: full, full };
  const indices = Uint16Array.from(full.keys()).filter((d) => full[d] !== 0);
  return { stored: { length: DIMENSIONS, indices, values: Float32Array.from(indices, (d) => full[d]!) }, full };
}

/** A plain dot product in ascending dimension order, over the query's nonzero dimensions: the sums the block must equal to the bit. */
function expectedDot(query: Float32Array, v: Float32Array): number {
  let sum = 0;
  for (let d = 0; d < DIMENSIONS; d++) if (query[d] !== 0) sum += query[d]! * v[d]!;
  return sum;
}

describe("VectorBlock", () => {
  it("gives every vector's dot product, to the bit, with and without a helper thread, across changes", () => {
    const random = mulberry32(19);
    const serial = new VectorBlock({ segmentSize: 64 });
    const shared = new VectorBlock({ segmentSize: 64, helperThread: true });
    const vectors = new Map<number, Float32Array>();
    for (let round = 0; round < 40; round++) {
      const changes = new Map<number, StoredVector | undefined>();
      for (let i = 0; i < 60; i++) {
        const id = Math.floor(random() * 400);
        if (random() < 0.2) {
          changes.set(id, undefined);
          vectors.delete(id);
        } else {
          const { stored, full } = randomVector(random);
          changes.set(id, stored);
          vectors.set(id, full);
        }
      }
      serial.update(changes);
      shared.update(changes);
      for (let q = 0; q < 25; q++) {
        const query = randomVector(random).full;
        const serialDots = serial.startDots(query)();
        const want = serialDots.sums.slice();
        const finish = shared.startDots(query);
        // the search thread's other work (BM25) while the helper claims segments
        for (const end = performance.now() + 0.5; performance.now() < end; );
        const got = finish();
        // read block by block as the index's scan does, each block as soon as `ready` says it is made
        for (let b = 0, made = 0; b * SCORE_BLOCK < want.length; b++) {
          if (b >= made) made = got.ready(b);
          assert.ok(made > b, `block ${b} made`);
          const inBlock = [...want.subarray(b * SCORE_BLOCK, (b + 1) * SCORE_BLOCK)];
          assert.deepEqual([...got.sums.subarray(b * SCORE_BLOCK, (b + 1) * SCORE_BLOCK)], inBlock, `block ${b}, helper thread`);
          assert.equal(serialDots.maxima[b], Math.max(...inBlock), `block ${b}'s highest`);
          assert.equal(got.maxima[b], serialDots.maxima[b], `block ${b}'s highest, helper thread`);
        }
        assert.equal(got.ready(Infinity), Infinity);
        for (const [id, v] of vectors) assert.equal(want[id], expectedDot(query, v), `vector ${id}`);
        for (let id = 0; id < 400; id++) if (!vectors.has(id) && id < want.length) assert.equal(got.sums[id], 0, `deleted vector ${id}`);
      }
    }
    assert.ok(shared.segmentsByHelper > 0, "the helper thread did part of the work");
    assert.equal(serial.segmentsByHelper, 0);
    // a sanity check of expectedDot itself: a cosine of a vector with itself
    const v = randomVector(random).full;
    assert.ok(Math.abs(expectedDot(v, v) - dot(v, v)) < 1e-9);
  });

  it("finishes a query its caller left unfinished before starting the next", () => {
    const random = mulberry32(7);
    const serial = new VectorBlock({ segmentSize: 8192 });
    const shared = new VectorBlock({ segmentSize: 8192, helperThread: true });
    const changes = new Map(Array.from({ length: 60000 }, (_, id) => [id, randomVector(random).stored]));
    serial.update(changes);
    shared.update(changes);
    for (let q = 0; q < 80; q++) {
      // started, then dropped, as by a search that threw between start and finish
      shared.startDots(randomVector(random).full);
      // long enough for the helper to be inside one of its segments
      for (const end = performance.now() + 0.15; performance.now() < end; );
      const query = randomVector(random).full;
      assert.deepEqual(shared.dots(query), serial.dots(query));
    }
  });

  it("rejects a segment size a 16-bit place cannot hold or that splits a score block", () => {
    assert.throws(() => new VectorBlock({ segmentSize: 0x10000 + SCORE_BLOCK }), /segmentSize/);
    assert.throws(() => new VectorBlock({ segmentSize: 0 }), /segmentSize/);
    assert.throws(() => new VectorBlock({ segmentSize: SCORE_BLOCK + 1 }), /segmentSize/);
  });
});
