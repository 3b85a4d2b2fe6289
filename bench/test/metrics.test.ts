import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ndcgAt, NoToolTally, percentile, recallAt, reciprocalRank } from "../src/metrics.js";

const ranked = ["a", "b", "c", "d", "e", "f"];

describe("metrics", () => {
  it("metrics - recall@k counts the share of expected tools in the top k", () => {
    const table: [expected: string[], k: number, recall: number][] = [
      [["a"], 1, 1],
      [["b"], 1, 0],
      [["b"], 3, 1],
      [["a", "f"], 5, 0.5],
      [["a", "f"], 10, 1],
      [["c", "x", "y", "z"], 3, 0.25],
      [[], 5, 0],
    ];
    for (const [expected, k, recall] of table) assert.equal(recallAt(expected, ranked, k), recall, `${expected} @${k}`);
  });

  it("metrics - reciprocal rank of the first expected tool found", () => {
    assert.equal(reciprocalRank(["a"], ranked), 1);
    assert.equal(reciprocalRank(["d", "c"], ranked), 1 / 3);
    assert.equal(reciprocalRank(["x"], ranked), 0);
  });

  it("metrics - nDCG@10 with binary relevance", () => {
    assert.equal(ndcgAt(["a", "b"], ranked, 10), 1);
    // one relevant tool at rank 2: (1/log2 3) / 1
    assert.equal(ndcgAt(["b"], ranked, 10), 1 / Math.log2(3));
    // relevant at ranks 1 and 3, two expected: (1 + 1/2) / (1 + 1/log2 3)
    assert.equal(ndcgAt(["a", "c"], ranked, 10), (1 + 1 / 2) / (1 + 1 / Math.log2(3)));
    // a third expected tool that is never found lowers the ideal's share
    const ideal3 = 1 + 1 / Math.log2(3) + 1 / 2;
    assert.equal(ndcgAt(["a", "c", "x"], ranked, 10), (1 + 1 / 2) / ideal3);
    assert.equal(ndcgAt(["f"], ranked, 5), 0, "rank 6 is outside the cut-off");
  });

  it("metrics - percentile by nearest rank", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    assert.equal(percentile(values, 50), 5);
    assert.equal(percentile(values, 99), 10);
    assert.equal(percentile(values, 10), 1);
    assert.equal(percentile([], 50), 0);
  });

  it("metrics - no-tool precision and recall, null where the ratio has no cases", () => {
    const tally = new NoToolTally();
    // predicted, expected
    for (const [p, e] of [
      [true, true],
      [true, true],
      [true, false],
      [false, true],
      [false, false],
      [false, false],
    ] as const) {
      tally.add(p, e);
    }
    assert.equal(tally.precision, 2 / 3);
    assert.equal(tally.recall, 2 / 3);

    const none = new NoToolTally();
    none.add(false, false);
    assert.equal(none.precision, null);
    assert.equal(none.recall, null);
  });
});
