import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { catalogStats, trainToolNeedModel } from "@switchyard/retrieval";
import type { ToolNeedExample } from "@switchyard/retrieval";
import { crossValidatedModels, foldsOf } from "../src/tool-need-training.js";
import type { TrainingCorpus } from "../src/tool-need-training.js";

const catalog = catalogStats([]);
const FORMS = ["write a poem", "what is the weather today?", "explain why", "find my files", "please book it", "tell me a joke"];

/** A corpus of messages of varied forms, labelled alternately. */
function corpusOf(n: number, name = "corpus"): TrainingCorpus {
  const examples: ToolNeedExample[] = Array.from({ length: n }, (_, i) => ({
    input: { query: `${FORMS[i % FORMS.length]} ${"x ".repeat(i % 7)}`, catalog, results: [], requested: false },
    needsTool: i % 2 === 0,
  }));
  return { name, tools: [], examples };
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

  it("folds - model k is exactly the model trained on the other corpora and on the cases outside fold k", () => {
    const corpus = corpusOf(20);
    const other = corpusOf(5, "other");
    const options = { epochs: 10, minCount: 1, minWeight: 0 };
    const { models, foldOf } = crossValidatedModels(corpus, [other], 4, 3, options);
    for (const [k, model] of models.entries()) {
      const seen = [...other.examples, ...corpus.examples.filter((_, i) => foldOf[i] !== k)].filter((e) => e !== undefined);
      assert.deepEqual(model.toJSON().weights, trainToolNeedModel(seen, options).toJSON().weights, `fold ${k}`);
    }
  });

  it("folds - cases that give no example (decided before or after the gate) are left out of every fold's training", () => {
    const corpus = corpusOf(6);
    corpus.examples[2] = undefined;
    const { models } = crossValidatedModels(corpus, [], 3, 1, { epochs: 5, minCount: 1, minWeight: 0 });
    assert.equal(models.length, 3);
    for (const model of models) assert.ok(Object.keys(model.toJSON().weights).length > 0);
  });
});
