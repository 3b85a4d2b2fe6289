import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readBench } from "@switchyard/bench-data";
import { EmbeddedIndex, LocalEmbedder, mulberry32, shuffleInPlace } from "@switchyard/retrieval";
import { parseEvalArgs } from "../src/cli-args.js";
import { NoToolTally } from "../src/metrics.js";
import { noToolAnswers } from "../src/no-tool.js";

const SAMPLE = 300;

/**
 * A regression floor, not the measurement: the shipped model has seen these
 * cases (it is trained on the shared splits), so this checks that the model
 * file still fits the features the code computes (re-run `pnpm train` after
 * changing them). The honest, cross-validated figures come from `pnpm eval`.
 */
describe("no-tool answer, shipped model, on a sample of the shared split", () => {
  const floors: [string, number, number][] = [
    ["metatool", 0.9, 0.9],
    ["bfcl", 0.6, 0.85],
  ];
  for (const [name, precision, recall] of floors) {
    it(
      `no-tool - ${name}: precision at least ${precision}, recall at least ${recall}`,
      async () => {
        const dataset = readBench(name);
        const cases = shuffleInPlace([...dataset.cases], mulberry32(1)).slice(0, SAMPLE);
        const index = new EmbeddedIndex(new LocalEmbedder());
        await index.upsert(dataset.tools);
        const answers = await noToolAnswers(dataset, cases, index, { folds: 0, seed: 1 });
        const tally = new NoToolTally();
        cases.forEach((c, i) => tally.add(answers[i]!, c.expected.length === 0));
        assert.ok((tally.precision ?? 0) >= precision, `precision ${tally.precision}`);
        assert.ok((tally.recall ?? 0) >= recall, `recall ${tally.recall}`);
      },
    );
  }
});

describe("no-tool answer, options", () => {
  it("no-tool - --folds defaults to 5, takes 0 (the shipped model) or 2 and more, and refuses 1", () => {
    assert.equal(parseEvalArgs([]).folds, 5);
    assert.equal(parseEvalArgs(["--folds", "0"]).folds, 0);
    assert.equal(parseEvalArgs(["--folds", "10"]).folds, 10);
    assert.throws(() => parseEvalArgs(["--folds", "1"]), /--folds must be 0 or a whole number of at least 2/);
    assert.throws(() => parseEvalArgs(["--folds", "2.5"]), /--folds/);
  });
});
