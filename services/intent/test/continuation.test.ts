import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { addDataField, newPacket, Packet_State, SelectedToolSchema, ToolRoutingState_ExecutionStatus as Status } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { ModelClient } from "@switchyard/llm";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { judgeContinuation } from "../src/continuation.js";
import { decideIntent } from "../src/intent.js";

/** A one-step packet whose step the executor just ran, with `output` as its result. */
function afterOneStep(config: Config, output: string, status = Status.EXECUTED): Packet {
  const packet = newPacket({ message: "read notes/todo.md and tell me what is left" });
  assert.deepEqual(decideIntent(packet, config), { next: "route" });
  const routing = packet.toolRouting!;
  routing.selectedTool = create(SelectedToolSchema, { toolName: "filesystem.read_text_file", params: { path: "notes/todo.md" } });
  routing.executionStatus = status;
  addDataField(packet, { key: "tool_result", value: { tool: "filesystem.read_text_file", output }, type: "tool_execution_result", source: "mcp:filesystem" });
  routing.reinjectionCount += 1;
  packet.state = Packet_State.REINJECTED;
  return packet;
}

const verdict = (answered: boolean, next: string | null, reasoning = "scripted"): ChatAnswer => ({ content: JSON.stringify({ answered, next_step: next, reasoning }) });
const summaries = (packet: Packet) => packet.reasoning!.reflectionLog.map((e) => e.summary).join("\n");

describe("intent with a model (against the scripted OpenAI-compatible server)", () => {
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

  it("intent model - results that answer the request end the packet; the model saw the request and the results", async () => {
    answers = [verdict(true, null, "The file lists what is left.")];
    const packet = afterOneStep(config, "- [ ] ship the executor");
    await judgeContinuation(packet, client, config);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(summaries(packet), /model scripted-intent: the results answer the request \(The file lists what is left\.\)/);
    const prompt = server.chatRequests[0]!.messages[1]!.content;
    assert.match(prompt, /^Request: read notes\/todo\.md and tell me what is left/);
    assert.match(prompt, /ship the executor/);
    assert.equal(server.chatRequests[0]!.temperature, 0);
  });

  it("intent model - another tool call needed: the model's step is routed next", async () => {
    answers = [verdict(false, "list the directory notes", "The file points to other notes.")];
    const packet = afterOneStep(config, "see the other notes in notes/");
    await judgeContinuation(packet, client, config);
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.equal(packet.intent!.steps.length, 2);
    assert.equal(packet.intent!.query, "list the directory notes");
    assert.match(summaries(packet), /another tool call is needed, added step 2: "list the directory notes"/);
  });

  it("intent model - a failing model leaves the decision to the plan, and the log says why", async () => {
    answers = [{ status: 503, message: "overloaded" }];
    const packet = afterOneStep(config, "- [ ] ship the executor");
    await judgeContinuation(packet, client, config);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.match(summaries(packet), /model scripted-intent could not judge the results \(the model answered HTTP 503/);
    assert.match(packet.stateReason, /\. Decided without: the model scripted-intent at [\d.:]+ answered HTTP 503 .*, so the plan decided whether to go on\.$/, "the finished packet names the outage");
  });

  it("intent model - not asked after a dry run, a failure, or at the reinjection cap", async () => {
    for (const packet of [afterOneStep(config, "x", Status.SKIPPED), afterOneStep(config, "x", Status.FAILED)]) {
      await judgeContinuation(packet, client, config);
    }
    const capped = afterOneStep(config, "x");
    capped.toolRouting!.reinjectionCount = capped.toolRouting!.maxReinjections;
    await judgeContinuation(capped, client, config);
    assert.equal(server.chatRequests.length, 0);
  });
});
