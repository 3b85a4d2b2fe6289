import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { judgeToolNeed, ToolNeedModel, ToolNeedTrainingSet, trainToolNeedModel } from "../src/index.js";
import type { ToolNeedExample, ToolNeedInput } from "../src/index.js";

const tool = (name: string, description: string) => create(ToolDefinitionSchema, { name, description });
const weather = tool("get_weather", "Current weather for a city");
const email = tool("send_email", "Send an email message to a recipient");

const message = (query: string): ToolNeedInput => ({ query, results: [], requested: false });
const examples: ToolNeedExample[] = [
  ["what is the weather in paris today", true],
  ["find cheap flights to rome next week", true],
  ["latest stock price of apple", true],
  ["book a table for two tonight", true],
  ["search the news about the election", true],
  ["write a poem about love", false],
  ["tell me a story about dragons", false],
  ["explain why the sky is blue", false],
  ["write a short essay on friendship", false],
  ["give me a synonym for happy", false],
].map(([query, needsTool]) => ({ input: message(query as string), needsTool: needsTool as boolean }));
const options = { epochs: 30, minCount: 1, minWeight: 0 };

describe("tool-need model", () => {
  it("tool-need - trained on a tiny hand-made set, it puts every message on its side and generalises to its words", () => {
    const model = trainToolNeedModel(examples, [weather, email], options);
    for (const { input, needsTool } of examples) {
      assert.equal(model.probability(input) >= 0.5, needsTool, `${input.query}: ${model.probability(input)}`);
    }
    assert.ok(model.probability(message("what is the weather in berlin today")) > 0.5);
    assert.ok(model.probability(message("write a poem about the moon")) < 0.5);
  });

  it("tool-need - training is deterministic, and a model read back from its JSON answers the same", () => {
    const a = trainToolNeedModel(examples, [weather, email], options);
    const b = trainToolNeedModel(examples, [weather, email], options);
    assert.deepEqual(a.toJSON(), b.toJSON());
    const copy = new ToolNeedModel(JSON.parse(JSON.stringify(a.toJSON())));
    for (const { input } of examples) assert.equal(copy.probability(input), a.probability(input));
  });

  it("tool-need - a training set trains the same model as trainToolNeedModel, and on a subset only on that subset", () => {
    const set = new ToolNeedTrainingSet(examples, [weather, email]);
    assert.deepEqual(set.train(options).toJSON(), trainToolNeedModel(examples, [weather, email], options).toJSON());
    const firstHalf = set.train(options, (i) => i < 5).toJSON();
    assert.deepEqual(firstHalf, trainToolNeedModel(examples.slice(0, 5), [weather, email], options).toJSON());
  });

  it("tool-need - rare features and small weights are pruned", () => {
    const full = trainToolNeedModel(examples, [weather, email], options);
    const pruned = trainToolNeedModel(examples, [weather, email], { ...options, minCount: 2, minWeight: 0.05 });
    const size = (m: ToolNeedModel) => Object.keys(m.toJSON().weights).length;
    assert.ok(size(pruned) < size(full) / 2, `${size(pruned)} of ${size(full)}`);
    for (const w of Object.values(pruned.toJSON().weights)) assert.ok(Math.abs(w) >= 0.05);
  });

  it("tool-need - relevance: the share of the message's content words the best tool's text covers, by idf", () => {
    const model = trainToolNeedModel(examples, [weather, email], options);
    // "weather" and "paris" are each in fewer than two tools, so both weigh the same (the unknown idf): half covered.
    const relevance = model.relevance({ query: "weather in paris", results: [{ tool: weather, score: 0.6 }], requested: false });
    assert.equal(relevance.top, 0.6);
    assert.equal(relevance.coverage, 0.5);
    assert.equal(relevance.name, 0.5); // "weather" of get_weather
    assert.equal(relevance.words, 2);
    const none = model.relevance({ query: "weather in paris", results: [], requested: false });
    assert.equal(none.coverage, 0);
    assert.equal(none.unexplained, 2 * model.toJSON().unknownIdf);
  });

  it("tool-need - the gate lets a rule's request through without the model, and applies the threshold otherwise", () => {
    const model = trainToolNeedModel(examples, [weather, email], options);
    const poem = message("write a poem about love");
    assert.equal(judgeToolNeed({ ...poem, requested: true }, { model }).needed, true);
    const p = model.probability(poem);
    assert.equal(judgeToolNeed(poem, { model, threshold: p }).needed, true);
    assert.equal(judgeToolNeed(poem, { model, threshold: p + 1e-9 }).needed, false);
  });

  it("tool-need - the shipped model loads, is small, and tells chat from a request", () => {
    const model = ToolNeedModel.builtIn();
    assert.equal(model.toJSON().format, "switchyard.tool-need/1");
    assert.ok(statSync(new URL("../models/tool-need.json", import.meta.url)).size < 1024 * 1024);
    const results = [{ tool: weather, score: 0.5 }];
    assert.ok(model.probability({ query: "what is the weather like in Paris this weekend?", results, requested: false }) >= 0.5);
    assert.ok(model.probability({ query: "write a poem about the weather", results, requested: false }) < 0.5);
  });
});
