import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { newPacket, Packet_State, ToolRoutingState_ExecutionStatus as Status } from "@switchyard/packet";
import { ModelClient } from "@switchyard/llm";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { decideIntent } from "../src/intent.js";
import { askToolNeed } from "../src/model-tool-need.js";
import { intentStage } from "../src/stage.js";

const catalog = { toolNames: () => ["filesystem.read_text_file", "memory.read_graph"] };
const need = (needsTool: boolean, reason = "scripted"): ChatAnswer => ({ content: JSON.stringify({ needs_tool: needsTool, reason }) });
const summaries = (packet: ReturnType<typeof newPacket>) => packet.reasoning!.reflectionLog.map((e) => e.summary).join("\n");

describe("intent model: does a message the rules leave undecided need a tool? (against the scripted OpenAI-compatible server)", () => {
  let server: ScriptedOpenAIServer;
  let answers: ChatAnswer[];
  let config: Config;
  let client: ModelClient;

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: () => answers.shift() ?? { status: 500, message: "script ran out" } });
    config = { ...defaultConfig, INTENT_MODEL: "scripted-intent", LLM_BASE_URL: server.url };
    client = new ModelClient({ baseURL: server.url, timeoutMs: 1000 });
  });
  after(() => server.close());
  beforeEach(() => {
    server.chatRequests.length = 0;
    answers = [];
  });

  it("intent model - a tool request: the packet goes to the router needing a tool, the model's word recorded", async () => {
    answers = [need(true, "it asks about the user's notes")];
    const packet = newPacket({ message: "what do you remember about me?" });
    const judged = await askToolNeed(packet, client, config, catalog);
    assert.deepEqual(judged, { needsTool: true, rule: "model:scripted-intent", reason: "it asks about the user's notes" });
    assert.deepEqual(decideIntent(packet, config, catalog, judged), { next: "route" });
    assert.equal(packet.toolRouting?.needsTool, true);
    assert.equal(packet.intent?.detectedBy, "model:scripted-intent");
    assert.match(summaries(packet), /^tool needed \(model:scripted-intent: it asks about the user's notes\)/);
    const prompt = server.chatRequests[0]!.messages[1]!.content;
    assert.match(prompt, /^Message: what do you remember about me\?/);
    assert.match(prompt, /Tools available: filesystem\.read_text_file, memory\.read_graph/);
    assert.equal(server.chatRequests[0]!.responseFormat?.json_schema?.name, "tool_need");
  });

  it("intent model - no tool: the packet ends as chat with the model's reason", async () => {
    answers = [need(false, "a general-knowledge question")];
    const packet = newPacket({ message: "who wrote the iliad?" });
    assert.deepEqual(decideIntent(packet, config, catalog, await askToolNeed(packet, client, config, catalog)), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.toolRouting?.executionStatus, Status.SKIPPED);
    assert.equal(packet.stateReason, "no tool needed: model scripted-intent: a general-knowledge question");
  });

  it("intent model - the stage as the service runs it asks the model when one is given, and only then", async () => {
    answers = [need(false, "a general-knowledge question")];
    const asked = newPacket({ message: "who wrote the iliad?" });
    assert.deepEqual(await intentStage(asked, { config, catalog, model: client }), { done: true });
    assert.equal(asked.stateReason, "no tool needed: model scripted-intent: a general-knowledge question");
    const rulesOnly = newPacket({ message: "who wrote the iliad?" });
    assert.deepEqual(await intentStage(rulesOnly, { config, catalog }), decideIntent(newPacket({ message: "who wrote the iliad?" }), config, catalog));
    assert.equal(server.chatRequests.length, 1, "no model, no request");
  });

  it("intent model - messages the rules settle are not asked: a request with a path, small talk", async () => {
    for (const message of ["please read notes/todo.md", "thanks!"]) {
      assert.equal(await askToolNeed(newPacket({ message }), client, config, catalog), undefined, message);
    }
    assert.equal(server.chatRequests.length, 0);
  });

  it("intent model - a model that fails leaves the message undecided for the router, and says why", async () => {
    answers = [{ status: 503, message: "overloaded" }];
    const packet = newPacket({ message: "what do you remember about me?" });
    const judged = await askToolNeed(packet, client, config, catalog);
    assert.equal(judged, undefined);
    assert.match(summaries(packet), /model scripted-intent could not say whether a tool is needed \(.*\); the router decides/);
    assert.deepEqual(packet.fallbacks.map((f) => [f.stage, f.cause]), [["intent", "http_5xx"]]);
    assert.match(packet.fallbacks[0]!.detail, /, so the router's tool-need gate decided whether a tool is needed$/);
    assert.deepEqual(decideIntent(packet, config, catalog, judged), { next: "route" });
    assert.equal(packet.toolRouting?.needsTool, false);
    assert.equal(packet.intent?.detectedBy, "default:no-indicator");
  });

  it("intent model - its verdict never overrides a rule: a rule's chat stays chat", () => {
    const packet = newPacket({ message: "thanks!" });
    decideIntent(packet, config, catalog, { needsTool: true, rule: "model:scripted-intent", reason: "ignored" });
    assert.match(packet.stateReason, /^no tool needed: small talk/);
  });
});
