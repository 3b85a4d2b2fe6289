import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { ToolNeedScorer } from "@switchyard/retrieval";
import { runPipeline } from "../src/pipeline.js";
import type { PipelineDeps } from "../src/pipeline.js";
import { WEATHER_CURRENCY_TOOLS } from "./fixtures.js";

const tools = WEATHER_CURRENCY_TOOLS.map((t) => create(ToolDefinitionSchema, t));

/** A tool-need model that always answers `probability`. */
const always = (probability: number): ToolNeedScorer => ({
  probability: () => probability,
  relevance: () => ({ top: 0, coverage: 0, bestCoverage: 0, name: 0, unexplained: 0, words: 0, gap: 0 }),
});

describe("pipeline", () => {
  const index = new EmbeddedIndex(new LocalEmbedder());
  const deps: PipelineDeps = { index, tools };
  before(() => index.upsert(tools).then(() => undefined));

  it("pipeline - small talk ends at intent: no tool", async () => {
    const outcome = await runPipeline({ query: "thanks, that was helpful!" }, deps);
    assert.deepEqual([outcome.noTool, outcome.toolCall, outcome.endedAt], [true, false, "intent"]);
  });

  it("pipeline - a clear request with its arguments gets a tool call", async () => {
    const outcome = await runPipeline({ query: "What's the weather in Paris, France right now?" }, deps);
    assert.equal(outcome.noTool, false);
    assert.equal(outcome.tool, "get_weather");
    assert.deepEqual(outcome.packet.toolRouting?.selectedTool?.params, { city: "Paris, France" });
  });

  it("pipeline - a request without a required argument gets no tool: the reviewer refuses the call", async () => {
    const outcome = await runPipeline({ query: "What's the weather like tomorrow?" }, { ...deps, toolNeed: always(1) });
    assert.deepEqual([outcome.noTool, outcome.toolCall, outcome.endedAt, outcome.tool], [true, false, "review", "get_weather"]);
    assert.match(outcome.packet.toolRouting?.reviewReasoning ?? "", /city is required/);
  });

  it("pipeline - a message the tool-need model turns down: the heuristic selector ends it on the router's verdict", async () => {
    const outcome = await runPipeline({ query: "write a poem about forecasts for a city" }, { ...deps, toolNeed: always(0.1) });
    assert.deepEqual([outcome.noTool, outcome.endedAt, outcome.end], [true, "select", "noToolRoute"]);
    assert.match(outcome.packet.stateReason, /^no tool needed: tool-need probability 0\.10 < 0\.15 .*set SELECTOR_MODEL/);
  });

  it("pipeline - a message in a language the offline router cannot read ends with that reason, not as 'no tool'", async () => {
    const outcome = await runPipeline({ query: "¿qué tiempo hace hoy en la ciudad de París?" }, deps);
    assert.deepEqual([outcome.noTool, outcome.toolCall, outcome.end], [false, false, "language"]);
    assert.match(outcome.packet.stateReason, /^cannot route a message in Spanish offline: .*EMBEDDINGS_BASE_URL/);
  });

  it("pipeline - a case's history is the request's history: a follow-up borrows the earlier turn's words", async () => {
    const history = [{ role: "user", content: "What's the weather in Paris, France?" }];
    const outcome = await runPipeline({ query: "do it again", history }, deps);
    assert.equal(outcome.packet.content?.history.length, 1);
    assert.equal(outcome.packet.intent?.query, "do it again");
    assert.deepEqual(outcome.packet.intent?.queryContext, ["What's the weather in Paris, France?"]);
    assert.equal(outcome.tool, "get_weather", "routed with the earlier turn's words");
  });

  it("pipeline - a case's candidates are its allow-list: no tool when none of them fits", async () => {
    const outcome = await runPipeline({ query: "What's the weather in Paris, France?", candidates: ["convert_currency"] }, deps);
    assert.equal(outcome.noTool, true);
    assert.notEqual(outcome.tool, "get_weather");
  });

  it("pipeline - with the shipped model, a request no rule recognises still gets its tool, and chat does not", async () => {
    const request = await runPipeline({ query: "Could you tell me the amount in Euros for 250 Canadian Dollars using the current currency rate?" }, deps);
    assert.equal(request.noTool, false, request.packet.reasoning?.reflectionLog.map((e) => e.summary).join("\n"));
    assert.equal(request.tool, "convert_currency");
    const chat = await runPipeline({ query: "Write a short story about a city where the weather never changes." }, deps);
    assert.equal(chat.noTool, true, chat.packet.reasoning?.reflectionLog.map((e) => e.summary).join("\n"));
    assert.match(chat.packet.stateReason, /^no tool needed: tool-need probability /, "the model decided, not the router's floor");
  });
});
