import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ToolNeedExample } from "@switchyard/retrieval";
import { crossValidatedModels, foldsOf } from "../src/tool-need-training.js";
import type { TrainingCorpus } from "../src/tool-need-training.js";

/** A corpus whose every message is one word no other message has, so each case leaves its own trace in a model. */
function uniqueWords(n: number): TrainingCorpus {
  const examples: ToolNeedExample[] = Array.from({ length: n }, (_, i) => ({
    input: { query: `zq${i}x`, results: [], requested: false },
    needsTool: i % 2 === 0,
  }));
  return { name: "unique", tools: [], examples };
}

describe("tool-need training", () => {
  it("folds - every case in exactly one fold, folds differ in size by at most one, the same seed the same split", () => {
    const folds = foldsOf(23, 5, 7);
    assert.equal(folds.length, 23);
    const sizes = [0, 1, 2, 3, 4].map((k) => folds.filter((f) => f === k).length);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `${sizes}`);
    assert.equal(sizes.reduce((a, b) => a + b, 0), 23);
    assert.deepEqual(foldsOf(23, 5, 7), folds);
    assert.notDeepEqual(foldsOf(23, 5, 8), folds);
    assert.throws(() => foldsOf(10, 1, 7), /at least 2/);
  });

  it("folds - no case is ever scored by a model that saw it", () => {
    const corpus = uniqueWords(20);
    const other = { name: "other", tools: [], examples: [{ input: { query: "zqotherx", results: [], requested: false }, needsTool: true }] };
    const options = { epochs: 10, minCount: 1, minWeight: 0 };
    const { models, foldOf } = crossValidatedModels(corpus, [other], 4, 3, options);
    const unseen = { query: "zqneverx", results: [], requested: false };
    for (const [i, example] of corpus.examples.entries()) {
      for (const [k, model] of models.entries()) {
        // A word a model never trained on weighs nothing: its answer equals that for any unseen word.
        const same = model.probability(example!.input) === model.probability(unseen);
        assert.equal(same, foldOf[i] === k, `case ${i} (fold ${foldOf[i]}) against model ${k}`);
      }
    }
    // The other corpus is in every fold's training.
    for (const model of models) assert.notEqual(model.probability(other.examples[0]!.input), model.probability(unseen));
  });

  it("folds - cases that give no example (decided before or after the gate) are left out of every fold's training", () => {
    const corpus = uniqueWords(6);
    corpus.examples[2] = undefined;
    const { models } = crossValidatedModels(corpus, [], 3, 1, { epochs: 5, minCount: 1, minWeight: 0 });
    assert.equal(models.length, 3);
    for (const model of models) assert.ok(Object.keys(model.toJSON().weights).length > 0);
  });
});
