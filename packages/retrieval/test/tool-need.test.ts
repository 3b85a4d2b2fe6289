import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { catalogStats, DEFAULT_TOOL_NEED_THRESHOLD, judgeToolNeed, ToolNeedModel, ToolNeedTrainingSet, trainToolNeedModel } from "../src/index.js";
import type { ToolNeedExample, ToolNeedInput } from "../src/index.js";

const tool = (name: string, description: string) => create(ToolDefinitionSchema, { name, description });
const weather = tool("get_weather", "Current weather for a city");
const email = tool("send_email", "Send an email message to a recipient");

const catalog = catalogStats([weather, email]);
const message = (query: string, results: ToolNeedInput["results"] = []): ToolNeedInput => ({ query, catalog, results, requested: false });
// Requests come with a tool that fits them; chat comes with none.
const examples: ToolNeedExample[] = [
  ["what is the weather in paris today", weather],
  ["find cheap flights to rome next week", weather],
  ["latest stock price of apple", weather],
  ["send my report to anna", email],
  ["search the news about the election", weather],
  ["write a poem about love", undefined],
  ["tell me a story about dragons", undefined],
  ["explain why the sky is blue", undefined],
  ["write a short essay on friendship", undefined],
  ["what is your favorite color", undefined],
].map(([query, tool]) => ({
  input: message(query as string, tool ? [{ tool: tool as typeof weather, score: 0.5 }] : []),
  needsTool: tool !== undefined,
}));
const options = { epochs: 30, minCount: 1, minWeight: 0 };

describe("tool-need model", () => {
  it("tool-need - trained on a tiny hand-made set, it puts every message on its side and generalises to its words", () => {
    const model = trainToolNeedModel(examples, options);
    for (const { input, needsTool } of examples) {
      assert.equal(model.probability(input) >= 0.5, needsTool, `${input.query}: ${model.probability(input)}`);
    }
    assert.ok(model.probability(message("what is the weather in berlin today", [{ tool: weather, score: 0.4 }])) > 0.5);
    assert.ok(model.probability(message("write a poem about the moon")) < 0.5);
  });

  it("tool-need - no topic word is a feature: messages of the same form and relevance get the same probability", () => {
    const model = trainToolNeedModel(examples, options);
    const results = [{ tool: weather, score: 0.3 }];
    const a = model.probability(message("please book a flight for tomorrow", results));
    assert.equal(model.probability(message("please book a zorblax for tomorrow", results)), a);
    assert.equal(model.probability(message("please order a pizza for tomorrow", results)), a);
  });

  it("tool-need - training is deterministic, and a model read back from its JSON answers the same", () => {
    const a = trainToolNeedModel(examples, options);
    const b = trainToolNeedModel(examples, options);
    assert.deepEqual(a.toJSON(), b.toJSON());
    const copy = new ToolNeedModel(JSON.parse(JSON.stringify(a.toJSON())));
    for (const { input } of examples) assert.equal(copy.probability(input), a.probability(input));
  });

  it("tool-need - a training set trains the same model as trainToolNeedModel, and on a subset only on that subset", () => {
    const set = new ToolNeedTrainingSet(examples);
    assert.deepEqual(set.train(options).toJSON(), trainToolNeedModel(examples, options).toJSON());
    const firstHalf = set.train(options, (i) => i < 5).toJSON();
    assert.deepEqual(firstHalf, trainToolNeedModel(examples.slice(0, 5), options).toJSON());
  });

  it("tool-need - rare features and small weights are pruned", () => {
    const full = trainToolNeedModel(examples, options);
    const pruned = trainToolNeedModel(examples, { ...options, minCount: 2, minWeight: 0.05 });
    const size = (m: ToolNeedModel) => Object.keys(m.toJSON().weights).length;
    assert.ok(size(pruned) < size(full) / 2, `${size(pruned)} of ${size(full)}`);
    for (const w of Object.values(pruned.toJSON().weights)) assert.ok(Math.abs(w) >= 0.05);
  });

  it("tool-need - relevance: the share of the message's content words the best tool's text covers, by this catalog's idf", () => {
    const model = trainToolNeedModel(examples, options);
    // "weather" and "paris" are each in fewer than two tools, so both weigh the same (the unknown idf): half covered.
    const relevance = model.relevance(message("weather in paris", [{ tool: weather, score: 0.6 }, { tool: email, score: 0.2 }]));
    assert.equal(relevance.top, 0.6);
    assert.ok(Math.abs(relevance.gap - 0.4) < 1e-12);
    assert.equal(relevance.coverage, 0.5);
    assert.equal(relevance.name, 0.5); // "weather" of get_weather
    assert.equal(relevance.words, 2);
    const none = model.relevance(message("weather in paris"));
    assert.equal(none.coverage, 0);
    assert.equal(none.unexplained, 2 * catalog.unknown);
  });

  it("tool-need - catalog statistics: idf of the stems two or more tools share, computed once per catalog array", () => {
    const forecast = tool("get_forecast", "Weather forecast for a city");
    const tools = [weather, email, forecast];
    const stats = catalogStats(tools);
    assert.equal(stats.tools, 3);
    assert.ok(stats.idf.has("weather") && stats.idf.has("citi"), [...stats.idf.keys()].join(" "));
    assert.ok(!stats.idf.has("email"));
    assert.ok(stats.idf.get("weather")! < stats.unknown);
    assert.equal(catalogStats(tools), stats);
  });

  it("tool-need - the gate lets a rule's request through without the model, and applies the threshold otherwise", () => {
    const model = trainToolNeedModel(examples, options);
    const poem = message("write a poem about love");
    assert.equal(judgeToolNeed({ ...poem, requested: true }, { model }).needed, true);
    const p = model.probability(poem);
    assert.equal(judgeToolNeed(poem, { model, threshold: p }).needed, true);
    assert.equal(judgeToolNeed(poem, { model, threshold: p + 1e-9 }).needed, false);
  });

  it("tool-need - the shipped model loads, is small, and tells chat from a request", () => {
    const model = ToolNeedModel.builtIn();
    assert.equal(model.toJSON().format, "switchyard.tool-need/2");
    assert.ok(statSync(new URL("../models/tool-need.json", import.meta.url)).size < 64 * 1024);
    const results = [{ tool: weather, score: 0.5 }];
    assert.ok(model.probability(message("what is the weather like in Paris this weekend?", results)) >= DEFAULT_TOOL_NEED_THRESHOLD);
    assert.ok(model.probability(message("write a poem about the weather", results)) < DEFAULT_TOOL_NEED_THRESHOLD);
  });
});
