import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultConfig as routerDefaults } from "@switchyard/embedding-router";
import { LocalEmbedder } from "@switchyard/retrieval";
import { defaultConfig as selectorDefaults } from "@switchyard/selector";
import { calibrationOf, isotonicFit } from "../src/calibration.js";
import { evaluate } from "../src/evaluate.js";
import { fitTemperature, TEMPERATURE_GRID } from "../src/fit-temperature.js";
import { reliabilityChart, temperatureTable } from "../src/report.js";
import { tinyDataset } from "./fixtures.js";

const calls = (confidence: number, right: number, wrong: number) => [
  ...Array.from({ length: right }, () => ({ confidence, correct: true })),
  ...Array.from({ length: wrong }, () => ({ confidence, correct: false })),
];

describe("calibration", () => {
  it("calibration - a confidence that says how often it is right has an ECE of 0", () => {
    const result = calibrationOf([...calls(0.25, 1, 3), ...calls(0.75, 3, 1)], 0.7);
    assert.equal(result.ece, 0);
    assert.deepEqual(result.atThreshold, { threshold: 0.7, n: 4, right: 0.75 });
    assert.deepEqual(result.skipped, { n: 4, right: 1 });
    assert.deepEqual(result.bins[2], { lo: 0.2, hi: 0.3, n: 4, confidence: 0.25, accuracy: 0.25 });
    assert.deepEqual(result.bins[0], { lo: 0, hi: 0.1, n: 0, confidence: null, accuracy: null });
  });

  it("calibration - ECE weighs each bin's gap by its share of the calls", () => {
    // 8 calls at 0.5 all right (gap 0.5), 2 calls at 0.95 all right (gap 0.05)
    const result = calibrationOf([...calls(0.5, 8, 0), ...calls(0.95, 2, 0)], 0.7);
    assert.equal(result.ece, Math.round((0.8 * 0.5 + 0.2 * 0.05) * 10_000) / 10_000);
    assert.equal(result.bins[9]!.n, 2, "1.0 and 0.95 fall in the last bin");
    assert.deepEqual(result.skipped, { n: 8, right: 8 });
  });

  it("calibration - recalibrated: the calls an in-sample recalibration keeping the order would make at the threshold", () => {
    // at 0.9: 1 right of 4 (25 %); at 0.6: 9 of 10; at 0.3: 0 of 4. Keeping the order, 0.6 and 0.9 pool to 10 of 14 (71 %).
    const result = calibrationOf([...calls(0.3, 0, 4), ...calls(0.6, 9, 1), ...calls(0.9, 1, 3)], 0.7);
    assert.deepEqual(result.atThreshold, { threshold: 0.7, n: 4, right: 0.25 });
    assert.deepEqual(result.recalibrated, { n: 14, right: 0.7143 });
    // a confidence already calibrated is its own recalibration
    assert.deepEqual(calibrationOf([...calls(0.25, 1, 3), ...calls(0.75, 3, 1)], 0.7).recalibrated, { n: 4, right: 0.75 });
    // and one that orders nothing right makes no call at all
    assert.deepEqual(calibrationOf([...calls(0.4, 3, 3), ...calls(0.9, 1, 1)], 0.7).recalibrated, { n: 0, right: null });
  });

  it("calibration - isotonic fit pools the values that break the order, by weight", () => {
    assert.deepEqual(isotonicFit([{ value: 0, weight: 1 }, { value: 1, weight: 3 }, { value: 0, weight: 1 }, { value: 1, weight: 1 }]), [0, 0.75, 0.75, 1]);
    assert.deepEqual(isotonicFit([]), []);
  });

  it("calibration - the reliability diagram has a point per filled bin, the diagonal and an escaped legend", () => {
    const svg = reliabilityChart([{ dataset: "a<b", calibration: calibrationOf([...calls(0.25, 1, 3), ...calls(0.75, 3, 1)], 0.7) }]);
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((svg.match(/<circle /g) ?? []).length, 2);
    assert.match(svg, /stroke-dasharray/);
    assert.match(svg, /a&lt;b \(ECE 0\.000\)/);
  });
});

describe("calibration - pnpm eval --fit-temperature", () => {
  it("calibration - each catalog is scored at the temperature fitted on the others, and at the shipped one as evaluate scores it", async () => {
    const other = { ...tinyDataset(), name: "tiny-copy" };
    const fit = await fitTemperature([tinyDataset(), other], { embedder: new LocalEmbedder(), router: routerDefaults(), seed: 1, toolNeed: { kind: "loco" } });
    assert.deepEqual(fit.heldOut.map((h) => h.dataset), ["tiny", "tiny-copy"]);
    for (const h of fit.heldOut) assert.ok((TEMPERATURE_GRID as readonly number[]).includes(h.temperature), `${h.temperature} is on the grid`);
    assert.equal(fit.shipped, selectorDefaults.SELECTOR_CONFIDENCE_TEMPERATURE);
    const evaluated = await evaluate(tinyDataset(), { embedder: new LocalEmbedder() });
    assert.ok(evaluated.calibration.n > 0, "the tiny dataset has reviewed calls");
    assert.equal(fit.heldOut[0]!.shippedEce, evaluated.calibration.ece);
    assert.match(temperatureTable(fit), /^\| tiny \| 0\.\d+ \| \d\.\d{3} \| \d\.\d{3} \|$/m);
  });
});
