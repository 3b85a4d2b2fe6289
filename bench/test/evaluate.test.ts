import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { evaluate, withLearnedExamples } from "../src/evaluate.js";
import { calibrationOf } from "../src/calibration.js";
import { recallChart } from "../src/report.js";
import { tinyDataset } from "./fixtures.js";

/** The outcome fields of a result that ran no case. */
const NO_OUTCOMES = {
  falseNoTool: null,
  noToolCalled: null,
  rightAtThreshold: null,
  outcomes: { call: 0, skipped: 0, refused: 0, noToolIntent: 0, noToolRoute: 0, noToolSelect: 0, language: 0 },
  toolNeedModel: "leave-one-catalog-out",
  calibration: calibrationOf([], 0.7),
};

describe("evaluate", () => {
  it("evaluate - outcomes count how each case that needs a tool ended; falseNoTool is the share ended at intent or route", async () => {
    const data = tinyDataset();
    const result = await evaluate(data, { byTag: true });
    const needing = data.cases.filter((c) => c.expected.length > 0).length;
    assert.equal(Object.values(result.outcomes).reduce((a, b) => a + b, 0), needing);
    const dropped = result.outcomes.noToolIntent + result.outcomes.noToolRoute;
    assert.equal(result.falseNoTool, Math.round((dropped / needing) * 10_000) / 10_000);
    const noneNeeded = data.cases.filter((c) => c.expected.length === 0).length;
    assert.ok(noneNeeded > 0 && result.noToolCalled !== null && result.noToolCalled >= 0 && result.noToolCalled <= 1);
    assert.equal(result.rightAtThreshold, result.calibration.atThreshold.right);
    assert.ok(result.byTag, "--by-tag gives figures per tag");
    for (const [tag, figures] of Object.entries(result.byTag)) {
      const tagged = data.cases.filter((c) => (c.tags ?? [c.category ?? c.kind]).includes(tag));
      assert.equal(figures.n, tagged.length, tag);
    }
  });

  it("evaluate - returns exactly the documented JSON shape", async () => {
    const result = await evaluate(tinyDataset());
    assert.deepEqual(Object.keys(result).sort(), ["calibration", "dataset", "falseNoTool", "latencyMs", "mrr", "n", "ndcg10", "noTool", "noToolCalled", "outcomes", "recall", "rightAtThreshold", "toolNeedModel"]);
    assert.deepEqual(Object.keys(result.outcomes), ["call", "skipped", "refused", "noToolIntent", "noToolRoute", "noToolSelect", "language"]);
    assert.equal(result.toolNeedModel, "leave-one-catalog-out");
    assert.deepEqual(Object.keys(result.recall), ["1", "3", "5", "10"]);
    assert.deepEqual(Object.keys(result.noTool).sort(), ["precision", "recall"]);
    assert.deepEqual(Object.keys(result.latencyMs).sort(), ["p50", "p99"]);
    assert.equal(result.dataset, "tiny");
    assert.equal(result.n, 6);
    for (const x of [...Object.values(result.recall), result.mrr, result.ndcg10]) assert.ok(x >= 0 && x <= 1, `${x}`);
    assert.ok(result.latencyMs.p50 >= 0 && result.latencyMs.p99 >= result.latencyMs.p50);
    // the tiny catalog is easy: every expected tool is in the top 3
    assert.equal(result.recall["3"], 1);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), result, "survives JSON as it is");
  });

  it("evaluate - the no-tool answer of a case with candidates is taken within them", async () => {
    const result = await evaluate(tinyDataset());
    // the Oslo case would match weather_forecast in the whole catalog, but not among its candidates
    const oslo = tinyDataset();
    oslo.cases = oslo.cases.filter((c) => c.id === "6");
    const alone = await evaluate(oslo);
    assert.deepEqual(alone.noTool, { precision: 1, recall: 1 });
    assert.ok(result.noTool.recall !== null && result.noTool.recall >= 0.5);
  });

  it("evaluate - --candidates ranks each case within its own candidates", async () => {
    const data = tinyDataset();
    data.cases = [{ id: "c", query: "weather in Paris", expected: ["stock_quote"], candidates: ["stock_quote", "read_file"] }];
    const open = await evaluate(data);
    const within = await evaluate(data, { candidates: true });
    assert.ok(open.recall["1"]! < 1, "weather_forecast leads in the whole catalog");
    assert.equal(within.recall["5"], 1);
    assert.ok(within.mrr >= 0.5);
  });

  it("evaluate - learned examples reach the expected tools like learning from use: deduplicated, capped, oldest out", () => {
    const tools = [create(ToolDefinitionSchema, { name: "a", examples: ["own example"] }), create(ToolDefinitionSchema, { name: "b" })];
    const learned = [
      { id: "1", query: "first", expected: ["a"] },
      { id: "2", query: "FIRST ", expected: ["a"] },
      { id: "3", query: "second", expected: ["a", "b"] },
      { id: "4", query: "third", expected: ["a", "unknown"] },
    ];
    const [a, b] = withLearnedExamples(tools, learned, 2);
    assert.deepEqual(a!.examples, ["own example", "second", "third"]);
    assert.deepEqual(b!.examples, ["second"]);
    assert.equal(withLearnedExamples(tools, [])[1], tools[1], "a tool that learned nothing is passed as it is");
  });

  it("evaluate - --learn-fraction scores only the cases it did not learn", async () => {
    const data = tinyDataset();
    const result = await evaluate(data, { learnFraction: 0.5 });
    const withExpected = data.cases.filter((c) => c.expected.length > 0).length;
    assert.equal(result.n, data.cases.length - Math.round(withExpected / 2));
  });

  it("report - the chart has one bar per dataset and k", () => {
    const svg = recallChart([
      { dataset: "x", n: 1, recall: { "1": 0.5, "3": 0.6, "5": 0.7, "10": 1 }, mrr: 0, ndcg10: 0, noTool: { precision: null, recall: null }, ...NO_OUTCOMES, latencyMs: { p50: 0, p99: 0 } },
      { dataset: "y<z", n: 1, recall: { "1": 0, "3": 0, "5": 0, "10": 0 }, mrr: 0, ndcg10: 0, noTool: { precision: null, recall: null }, ...NO_OUTCOMES, latencyMs: { p50: 0, p99: 0 } },
    ]);
    assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((svg.match(/<title>/g) ?? []).length, 8);
    assert.match(svg, /y&lt;z/);
    assert.match(svg, />\.70</);
    assert.match(svg, />1</);
  });
});
