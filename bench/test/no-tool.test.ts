import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readBench } from "@switchyard/bench-data";
import { ToolNeedModel } from "@switchyard/retrieval";
import { parseEvalArgs } from "../src/cli-args.js";
import { evaluate } from "../src/evaluate.js";
import { sharedTrainingCorpora, trainOn } from "../src/tool-need-training.js";

/**
 * The targets of issue 16 that hold, measured as `pnpm eval` measures them: each shared
 * dataset answered by a tool-need model that never saw its catalog (leave one catalog out).
 * No-tool recall on MetaTool (0.10, target 0.75) is not asserted: bench/README.md says why.
 */
describe("no-tool answer, leave-one-catalog-out, on the shared datasets", () => {
  const targets: [string, number | undefined][] = [
    ["metatool", undefined],
    ["bfcl", 0.75],
    ["apibank", undefined],
  ];
  for (const [name, recall] of targets) {
    it(`no-tool - ${name}: falseNoTool at most 0.05${recall ? `, no-tool recall at least ${recall}` : ""}`, async () => {
      const result = await evaluate(readBench(name));
      assert.equal(result.toolNeedModel, "leave-one-catalog-out");
      assert.ok(result.falseNoTool !== null && result.falseNoTool <= 0.05, `falseNoTool ${result.falseNoTool}`);
      if (recall) assert.ok((result.noTool.recall ?? 0) >= recall, `no-tool recall ${result.noTool.recall}`);
    });
  }
});

describe("no-tool answer, the shipped model", () => {
  it("no-tool - the shipped model is what `pnpm train` gives on the shared datasets (re-run it after changing the features)", async () => {
    const trained = trainOn(await sharedTrainingCorpora()).toJSON();
    const shipped = ToolNeedModel.builtIn().toJSON();
    assert.deepEqual({ ...shipped, trainedOn: "" }, { ...trained, trainedOn: "" });
  });
});

describe("no-tool answer, options", () => {
  it("no-tool - leave-one-catalog-out by default; --folds k for within-catalog folds, 0 for the shipped model; 1 refused", () => {
    assert.deepEqual(parseEvalArgs([]).toolNeed, { kind: "loco" });
    assert.deepEqual(parseEvalArgs(["--folds", "0"]).toolNeed, { kind: "shipped" });
    assert.deepEqual(parseEvalArgs(["--folds", "10"]).toolNeed, { kind: "folds", folds: 10 });
    assert.throws(() => parseEvalArgs(["--folds", "1"]), /--folds must be 0 or a whole number of at least 2/);
    assert.throws(() => parseEvalArgs(["--folds", "2.5"]), /--folds/);
  });
});
