import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { intentOf, newPacket, Packet_State, routingOf, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { candidates, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { chooseSelector } from "../src/choose-selector.js";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { selectStage } from "../src/select.js";

const CANDIDATES = {
  "filesystem.read_text_file": 0.74,
  "filesystem.read_multiple_files": 0.7,
  "filesystem.get_file_info": 0.53,
};
const REQUEST = "please read the file notes/todo.md";

function packetFor(message = REQUEST): Packet {
  const packet = newPacket({ message });
  intentOf(packet).query = message;
  routingOf(packet).candidates = candidates(CANDIDATES);
  packet.state = Packet_State.SELECTING;
  return packet;
}

const answer = (body: Record<string, unknown>): ChatAnswer => ({ content: JSON.stringify(body) });
const READ_TODO = answer({
  tool: "filesystem.read_text_file",
  arguments: { path: "notes/todo.md" },
  reasoning: "The user asks to read one text file.",
  confidence: 0.93,
  alternatives: [{ tool: "filesystem.read_multiple_files", confidence: 0.4 }],
});

function lastReflection(packet: Packet): string {
  return packet.reasoning!.reflectionLog.at(-1)!.summary;
}

describe("model selector (against the scripted OpenAI-compatible server)", () => {
  let server: ScriptedOpenAIServer;
  let answers: ChatAnswer[];
  let config: Config;

  const select = async (packet = packetFor(), settings: Partial<Config> = {}) => {
    const merged = { ...config, ...settings };
    const outcome = await selectStage(packet, { config: merged, selector: chooseSelector(merged) });
    return { packet, outcome, routing: routingOf(packet) };
  };

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: () => answers.shift() ?? { status: 500, message: "script ran out" } });
    config = { ...defaultConfig, SELECTOR_MODEL: "scripted-selector", LLM_BASE_URL: server.url, LLM_TIMEOUT_MS: 1000 };
  });
  after(() => server.close());
  beforeEach(() => {
    server.chatRequests.length = 0;
    answers = [];
  });

  it("model selector - the request carries the temperature, the answer's JSON schema and only the candidates", async () => {
    answers = [READ_TODO, READ_TODO];
    await select();
    await select(packetFor(), { SELECTOR_TEMPERATURE: 0.05 });
    const [first, second] = server.chatRequests;
    assert.equal(first!.model, "scripted-selector");
    assert.equal(first!.temperature, 0.15, "the default temperature");
    assert.equal(second!.temperature, 0.05, "SELECTOR_TEMPERATURE");
    assert.equal(first!.responseFormat?.type, "json_schema");
    const schema = first!.responseFormat!.json_schema!.schema as { properties: { tool: { anyOf: { enum?: string[] }[] } } };
    assert.deepEqual(schema.properties.tool.anyOf[0]!.enum, Object.keys(CANDIDATES));
    const prompt = first!.messages[1]!.content;
    const listed = JSON.parse(prompt.slice(prompt.indexOf("["))) as { name: string; inputSchema: unknown }[];
    assert.deepEqual(
      listed.map((t) => t.name),
      Object.keys(CANDIDATES),
      "only the routed candidates, never the catalog",
    );
    assert.ok(listed.every((t) => typeof t.inputSchema === "object"), "each with its JSON schema");
    assert.match(prompt, /^Request: please read the file notes\/todo\.md/);
  });

  it("model selector - a sound answer becomes the selection, its alternatives the runners-up", async () => {
    answers = [READ_TODO];
    const { outcome, routing, packet } = await select();
    assert.deepEqual(outcome, { next: "review" });
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file");
    assert.deepEqual(routing.selectedTool?.params, { path: "notes/todo.md" });
    assert.equal(routing.selectedTool?.selectionConfidence, 0.93);
    assert.deepEqual(
      routing.alternativeTools.map((a) => a.toolName),
      ["filesystem.read_multiple_files"],
    );
    assert.match(lastReflection(packet), /\(model scripted-selector, confidence 0\.93\)/);
  });

  it("model selector - invalid JSON is repaired once", async () => {
    answers = [{ content: "{tool: read" }, READ_TODO];
    const { routing, packet } = await select();
    assert.equal(server.chatRequests.length, 2);
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file");
    assert.match(routing.selectedTool!.selectionReasoning, /after one repair attempt/);
    assert.match(lastReflection(packet), /model scripted-selector/);
  });

  it("model selector - invalid JSON twice: the heuristic selects, and the packet says why", async () => {
    answers = [{ content: "not json" }, { content: "still not json" }];
    const { routing, packet } = await select();
    assert.equal(server.chatRequests.length, 2, "one repair attempt, no more");
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file", "the heuristic's choice");
    assert.match(lastReflection(packet), /\(heuristic, because the reply holds no JSON object, after one repair attempt, confidence/);
  });

  it("model selector - a tool outside the candidates is sent back once, then rejected and never selected", async () => {
    const shell = answer({ tool: "shell.run", arguments: { command: "cat notes/todo.md" }, reasoning: "cat it", confidence: 0.99, alternatives: [{ tool: "filesystem.read_text_file", confidence: 0.5 }] });
    answers = [shell, shell];
    const { outcome, routing, packet } = await select();
    assert.match(server.chatRequests[1]!.messages.at(-1)!.content, /"shell\.run" is not one of the candidate tools/);
    assert.deepEqual(outcome, { done: true });
    assert.equal(routing.selectedTool, undefined, "neither the outsider nor an alternative without arguments is selected");
    assert.equal(routing.executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(lastReflection(packet), /Dropped choices outside the candidates: shell\.run/);
  });

  it("model selector - arguments that fail the schema are repaired once", async () => {
    answers = [answer({ tool: "filesystem.read_text_file", arguments: { file: "notes/todo.md", head: "ten" }, reasoning: "read", confidence: 0.9, alternatives: [] }), READ_TODO];
    const { routing } = await select();
    const repair = server.chatRequests[1]!.messages.at(-1)!.content;
    assert.match(repair, /path: is required/, "missing required");
    assert.match(repair, /head: must be number/, "wrong type");
    assert.match(repair, /file: is not a parameter of this tool/, "unknown property");
    assert.deepEqual(routing.selectedTool?.params, { path: "notes/todo.md" });
  });

  it("model selector - arguments still invalid after the repair: the packet names the field, the reviewer will refuse", async () => {
    const bad = answer({ tool: "filesystem.read_text_file", arguments: { head: 3 }, reasoning: "read", confidence: 0.9, alternatives: [] });
    answers = [bad, bad];
    const { outcome, routing, packet } = await select();
    assert.deepEqual(outcome, { next: "review" });
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file");
    assert.ok(routing.selectedTool!.selectionConfidence <= 0.5, "invalid arguments cap the confidence");
    assert.match(routing.selectedTool!.selectionReasoning, /Invalid arguments: path: is required/);
    assert.match(lastReflection(packet), /arguments are invalid: path: is required; the reviewer will refuse it/);
  });

  it("model selector - a no-tool answer ends the packet normally", async () => {
    answers = [answer({ tool: null, arguments: {}, reasoning: "The user is just saying thanks.", confidence: 0.9, alternatives: [] })];
    const { outcome, routing, packet } = await select(packetFor("thanks, that was helpful"));
    assert.deepEqual(outcome, { done: true });
    assert.equal(routing.selectedTool, undefined);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(lastReflection(packet), /No tool selected \(model scripted-selector\).*just saying thanks/);
    assert.match(packet.stateReason, /^no tool selected among \d+ candidates: The model found no candidate that serves the request: The user is just saying thanks\.$/);
  });

  it("model selector - a 5xx falls back to the heuristic with the reason in the packet", async () => {
    answers = [{ status: 503, message: "overloaded" }];
    const { routing, packet } = await select();
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file");
    assert.match(lastReflection(packet), /heuristic, because the model answered HTTP 503/);
    assert.deepEqual(
      packet.fallbacks.map((f) => [f.stage, f.dependency, f.cause]),
      [["select", "model", "http_5xx"]],
      "the fallback is on the packet, for its stateReason",
    );
    assert.match(packet.fallbacks[0]!.detail, /^the model scripted-selector at 127\.0\.0\.1:\d+ answered HTTP 503 .*, so the built-in selector chose filesystem\.read_text_file$/);
  });

  it("model selector - a timeout falls back to the heuristic with the reason in the packet", async () => {
    answers = [{ ...READ_TODO, delayMs: 3000 }];
    const { routing, packet } = await select(packetFor(), { LLM_TIMEOUT_MS: 200 });
    assert.equal(routing.selectedTool?.toolName, "filesystem.read_text_file");
    assert.match(lastReflection(packet), /heuristic, because the model did not answer within 200 ms/);
  });
});

describe("choose selector", () => {
  it("choose selector - no SELECTOR_MODEL: the heuristic selects and the packet says no model is set", async () => {
    const packet = packetFor();
    await selectStage(packet, { config: defaultConfig, selector: chooseSelector(defaultConfig) });
    assert.equal(routingOf(packet).selectedTool?.toolName, "filesystem.read_text_file");
    assert.match(lastReflection(packet), /\(heuristic, no SELECTOR_MODEL set, confidence/);
  });
});
