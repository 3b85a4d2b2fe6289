import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import {
  Packet_State,
  RoutingCandidateSchema,
  routingOf,
  ToolDefinition_SideEffect,
  ToolDefinitionSchema,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { Packet, RoutingCandidate } from "@switchyard/packet";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { candidates, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { chooseReviewer } from "../src/choose-reviewer.js";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { reviewStage } from "../src/review.js";
import { selected } from "./selected-packet.js";

const { APPROVED, SKIPPED, PENDING } = ToolRoutingState_ExecutionStatus;

const SHELL: RoutingCandidate = create(RoutingCandidateSchema, {
  score: 0.8,
  tool: create(ToolDefinitionSchema, {
    name: "shell.run_command",
    description: "Run a shell command.",
    inputSchema: { type: "object", required: ["command"], properties: { command: { type: "string" } } },
    sideEffect: ToolDefinition_SideEffect.EXECUTE,
  }),
});

const readTodo = () => selected("please read the file notes/todo.md", candidates({ "filesystem.read_text_file": 0.74 }), "filesystem.read_text_file", { path: "notes/todo.md" });
const rmRf = () => selected("wipe the build folder: rm -rf build", [SHELL], "shell.run_command", { command: "rm -rf build" });
const review = (body: { approved: boolean; confidence: number; reasoning: string }): ChatAnswer => ({ content: JSON.stringify(body) });
const lastReflection = (packet: Packet) => packet.reasoning!.reflectionLog.at(-1)!.summary;

describe("model reviewer (against the scripted OpenAI-compatible server)", () => {
  let server: ScriptedOpenAIServer;
  let answers: ChatAnswer[];
  let config: Config;

  const run = async (packet: Packet, settings: Partial<Config> = {}) => {
    const merged = { ...config, ...settings };
    const outcome = await reviewStage(packet, { config: merged, reviewer: chooseReviewer(merged) });
    return { outcome, routing: routingOf(packet), packet };
  };

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: () => answers.shift() ?? { status: 500, message: "script ran out" } });
    config = { ...defaultConfig, REVIEWER_MODEL: "scripted-reviewer", LLM_BASE_URL: server.url, LLM_TIMEOUT_MS: 1000 };
  });
  after(() => server.close());
  beforeEach(() => {
    server.chatRequests.length = 0;
    answers = [];
  });

  it("model reviewer - the request carries temperature 0.3, the review's schema, the tool and its arguments", async () => {
    answers = [review({ approved: true, confidence: 0.95, reasoning: "Reads the file the user named." })];
    const { outcome, routing, packet } = await run(readTodo());
    const [sent] = server.chatRequests;
    assert.equal(sent!.model, "scripted-reviewer");
    assert.equal(sent!.temperature, 0.3);
    assert.equal(sent!.responseFormat?.json_schema?.name, "tool_review");
    assert.deepEqual((sent!.responseFormat?.json_schema?.schema as { required: string[] }).required, ["approved", "confidence", "reasoning"]);
    assert.match(sent!.messages[1]!.content, /"name":"filesystem\.read_text_file"/);
    assert.match(sent!.messages[1]!.content, /Arguments: \{"path":"notes\/todo\.md"\}/);
    assert.deepEqual(outcome, { next: "execute" });
    assert.equal(routing.executionStatus, APPROVED);
    assert.equal(routing.reviewConfidence, 0.95);
    assert.match(lastReflection(packet), /model scripted-reviewer review/);
  });

  it("model reviewer - not approved caps confidence at 0.5 and the call is skipped", async () => {
    answers = [review({ approved: false, confidence: 0.9, reasoning: "The user asked for a different file." })];
    const { outcome, routing } = await run(readTodo());
    assert.deepEqual(outcome, { done: true });
    assert.equal(routing.reviewConfidence, 0.5);
    assert.equal(routing.executionStatus, SKIPPED);
  });

  it("model reviewer - below the threshold with LOW_CONFIDENCE_ACTION=ask, the packet asks the user", async () => {
    answers = [review({ approved: true, confidence: 0.6, reasoning: "Probably the right file." })];
    const { packet } = await run(readTodo(), { LOW_CONFIDENCE_ACTION: "ask" });
    assert.equal(packet.state, Packet_State.AWAITING_USER);
    assert.match(packet.stateReason, /Should I run filesystem\.read_text_file/);
  });

  it("model reviewer - an rm -rf the model approves is still only a dry run without ALLOW_EXECUTE_TOOLS", async () => {
    answers = [review({ approved: true, confidence: 0.99, reasoning: "The user asked to wipe the folder." })];
    const { routing, packet } = await run(rmRf());
    assert.equal(routing.dryRun, true);
    assert.equal(packet.state, Packet_State.EXECUTING);
    assert.match(lastReflection(packet), /as a dry run .*ALLOW_EXECUTE_TOOLS is off/);
    assert.match(routing.reviewReasoning, /^dry run: .*set ALLOW_EXECUTE_TOOLS=true.*Review: The user asked to wipe the folder\./);
  });

  it("model reviewer - with ALLOW_EXECUTE_TOOLS on, the approved rm -rf still waits for the user's approval", async () => {
    answers = [review({ approved: true, confidence: 0.99, reasoning: "The user asked to wipe the folder." })];
    const { outcome, routing, packet } = await run(rmRf(), { ALLOW_EXECUTE_TOOLS: true });
    assert.deepEqual(outcome, { done: true });
    assert.equal(packet.state, Packet_State.AWAITING_APPROVAL);
    assert.equal(routing.executionStatus, PENDING);
    assert.equal(routing.dryRun, false);
  });

  it("model reviewer - the code checks overrule the model's approval", async () => {
    answers = [review({ approved: true, confidence: 0.99, reasoning: "Looks fine." })];
    const packet = selected("please read the file notes/todo.md", candidates({ "filesystem.read_text_file": 0.74 }), "filesystem.read_text_file", {});
    const { routing } = await run(packet);
    assert.match(server.chatRequests[0]!.messages[1]!.content, /The code checks found: .*path/);
    assert.equal(routing.executionStatus, SKIPPED);
    assert.equal(routing.reviewConfidence, 0.5);
    assert.match(routing.reviewReasoning, /Overruled by the code checks/);
  });

  it("model reviewer - a 5xx leaves the review to the heuristic, with the reason in the packet", async () => {
    answers = [{ status: 502, message: "bad gateway" }];
    const { routing, packet } = await run(readTodo());
    assert.equal(routing.executionStatus, APPROVED);
    assert.match(lastReflection(packet), /heuristic, because the model answered HTTP 502/);
    assert.deepEqual(packet.fallbacks.map((f) => [f.stage, f.cause]), [["review", "http_5xx"]]);
    assert.match(packet.fallbacks[0]!.detail, /answered HTTP 502 .*, so the built-in reviewer scored filesystem\.read_text_file \d\.\d\d$/);
  });

  it("model reviewer - a timeout leaves the review to the heuristic, with the reason in the packet", async () => {
    answers = [{ content: "{}", delayMs: 3000 }];
    const { packet } = await run(readTodo(), { LLM_TIMEOUT_MS: 200 });
    assert.match(lastReflection(packet), /heuristic, because the model did not answer within 200 ms/);
  });

  it("model reviewer - an answer without the review's shape, twice, leaves the review to the heuristic", async () => {
    answers = [{ content: JSON.stringify({ ok: true }) }, { content: JSON.stringify({ approved: "yes" }) }];
    const { packet } = await run(readTodo());
    assert.equal(server.chatRequests.length, 2);
    assert.match(lastReflection(packet), /heuristic, because the model's answer does not have the review's shape/);
  });
});

describe("choose reviewer", () => {
  it("choose reviewer - no REVIEWER_MODEL: the heuristic reviews and the packet says no model is set", async () => {
    const packet = readTodo();
    await reviewStage(packet, { config: defaultConfig, reviewer: chooseReviewer(defaultConfig) });
    assert.match(lastReflection(packet), /heuristic, no REVIEWER_MODEL set review/);
  });
});
