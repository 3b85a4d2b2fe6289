import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
// The scripted OpenAI-compatible server is the test double of a remote model API: it plays the
// intent model and the selection model, and records what each was asked.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { RecordedChatRequest, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet, TestFleetOptions } from "./harness.js";

const skip = fleetSkipReason();
// A request of the words of a poem request: the test sets the offline gate's threshold so that it turns it down.
const HAIKU = "compose a haiku about my notes folder";
const TODO = "what's on my to-do list?";
const JOKE = "and what's a good joke about owls";

const userOf = (request: RecordedChatRequest): string => request.messages.find((m) => m.role === "user")?.content ?? "";
const schemaOf = (request: RecordedChatRequest): string | undefined => request.responseFormat?.json_schema?.name;

/** The intent model: a joke needs no tool, anything else does. The selection model: list the notes folder, or nothing. */
function models(request: RecordedChatRequest) {
  const user = userOf(request);
  if (request.model === "scripted-intent" && schemaOf(request) === "continuation") {
    return { content: JSON.stringify({ answered: true, next_step: null, reasoning: "The listing answers it." }) };
  }
  if (request.model === "scripted-intent") {
    const joke = user.includes("joke");
    return { content: JSON.stringify({ needs_tool: !joke, reason: joke ? "a joke, the assistant tells it" : "it asks about the user's notes" }) };
  }
  if (user.includes("to-do")) {
    const list = { tool: "filesystem.list_directory", arguments: { path: "notes" } };
    return { content: JSON.stringify({ ...list, reasoning: "The to-do list is in the notes folder.", confidence: 0.92, alternatives: [] }) };
  }
  return { content: JSON.stringify({ tool: null, arguments: {}, reasoning: "Writing a haiku needs no tool.", confidence: 0.9, alternatives: [] }) };
}

const LLM = (server: ScriptedOpenAIServer) => ({ LLM_BASE_URL: server.url, LLM_API_KEY: "sk-scripted", LLM_TIMEOUT_MS: "5000" });

/** A fleet whose services get `serviceEnv(server)` on top of the defaults, and the scripted model server, for a describe block. */
function fleetWithModels(serviceEnv: (server: ScriptedOpenAIServer) => TestFleetOptions["serviceEnv"]) {
  const ctx = {} as { t: TestFleet; server: ScriptedOpenAIServer };
  before(async () => {
    ctx.server = await startScriptedOpenAIServer({ chat: models });
    ctx.t = await startTestFleet({ serviceEnv: serviceEnv(ctx.server) });
  });
  after(async () => {
    await ctx.t?.close();
    await ctx.server?.close();
  });
  return ctx;
}

describe("fleet model routing - a selection model sees every message intent did not settle as chat", { skip }, () => {
  const fleet = fleetWithModels((server) => ({
    // A gate that says "no tool" to nearly everything: what it says must not keep a message from the model.
    "embedding-router": { ROUTER_TOOL_NEED_THRESHOLD: "0.99" },
    selector: { ...LLM(server), SELECTOR_MODEL: "scripted-selector" },
  }));

  it("fleet model routing - a message the offline gate turns down still reaches the selection model with its candidates", async () => {
    const { status, json: packet } = await fleet.t.post("/v1/packets", { message: HAIKU });
    assert.equal(status, 200);
    assert.equal(packet.toolRouting.toolNeed.needed, false, "the offline gate says no tool");
    const asked = fleet.server.chatRequests.filter((r) => r.model === "scripted-selector" && userOf(r).includes(HAIKU));
    assert.equal(asked.length, 1, "the selection model was asked");
    for (const candidate of packet.toolRouting.candidates) assert.ok(userOf(asked[0]!).includes(candidate.tool.name), candidate.tool.name);
    assert.ok(packet.toolRouting.candidates.length > 0);
    assert.equal(packet.state, "COMPLETED");
    assert.match(packet.stateReason, /^no tool selected among \d+ candidates: The model found no candidate that serves the request: Writing a haiku needs no tool\./);
  });
});

describe("fleet model routing - with an intent model, the rules' undecided messages are asked of it", { skip }, () => {
  const fleet = fleetWithModels((server) => ({
    intent: { ...LLM(server), INTENT_MODEL: "scripted-intent" },
    selector: { ...LLM(server), SELECTOR_MODEL: "scripted-selector" },
  }));

  it("fleet model routing - the intent model finds a tool request; the selection model lists the notes folder", async () => {
    const { status, json: packet } = await fleet.t.post("/v1/packets", { message: TODO });
    assert.equal(status, 200);
    const log = packet.reasoning.reflectionLog.map((e: { summary: string }) => e.summary).join("\n");
    assert.equal(packet.intent.detectedBy, "model:scripted-intent", log);
    assert.equal(packet.toolRouting.toolNeed, undefined, "the model decided, the gate was not asked");
    assert.equal(packet.toolRouting.selectedTool?.toolName, "filesystem.list_directory", log);
    assert.equal(packet.toolRouting.executionStatus, "EXECUTED", log);
    assert.match(JSON.stringify(packet.content.dataFields), /todo\.md/);
    const intentAsked = fleet.server.chatRequests.filter((r) => schemaOf(r) === "tool_need" && userOf(r).includes(TODO));
    assert.equal(intentAsked.length, 1);
    assert.match(userOf(intentAsked[0]!), /filesystem\.list_directory/, "the model is shown the catalog's tool names");
  });

  it("fleet model routing - the intent model settles a message as chat: no tool, its reason in the packet", async () => {
    const before = fleet.server.chatRequests.length;
    const { json: packet } = await fleet.t.post("/v1/packets", { message: JOKE });
    assert.equal(packet.state, "COMPLETED");
    assert.equal(packet.toolRouting.executionStatus, "SKIPPED");
    assert.equal(packet.stateReason, "no tool needed: model scripted-intent: a joke, the assistant tells it");
    assert.deepEqual(fleet.server.chatRequests.slice(before).map((r) => r.model), ["scripted-intent"], "the selector was not asked");
  });

  it("fleet model routing - a message the rules settle is not asked of the model", async () => {
    const before = fleet.server.chatRequests.length;
    const { json: packet } = await fleet.t.post("/v1/packets", { message: "thanks!" });
    assert.match(packet.stateReason, /^no tool needed: small talk/);
    assert.equal(fleet.server.chatRequests.length, before);
  });
});
