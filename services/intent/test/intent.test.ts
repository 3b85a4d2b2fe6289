import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  addDataField,
  newPacket,
  Packet_State,
  RoutingCandidateSchema,
  SelectedToolSchema,
  ToolExecutionResultSchema,
  ToolRoutingState_ExecutionStatus as Status,
  Turn_Role,
  TurnSchema,
} from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { detectToolNeed } from "../src/detect.js";
import { decideIntent, verdictOf } from "../src/intent.js";

const config: Config = defaultConfig;

/** What route → select → review → execute would leave behind for one step, then the executor's reinjection. */
function runStep(packet: Packet, status: Status, options: { dryRun?: boolean; error?: string } = {}): void {
  const routing = packet.toolRouting!;
  const tool = `fs.step${packet.intent!.stepIndex + 1}`;
  routing.candidates = [create(RoutingCandidateSchema, { tool: { name: tool }, score: 0.9 })];
  routing.selectedTool = create(SelectedToolSchema, { toolName: tool, params: { path: "notes/a.md" } });
  routing.alternativeTools = [create(SelectedToolSchema, { toolName: "fs.other" })];
  routing.reviewConfidence = 0.9;
  routing.reviewReasoning = "looks right";
  routing.dryRun = options.dryRun ?? false;
  routing.executionStatus = status;
  routing.executionResult = create(ToolExecutionResultSchema, { success: status !== Status.FAILED, error: options.error ?? "" });
  addDataField(packet, { key: "tool_result", value: { tool }, type: "tool_execution_result", source: "mcp:fs" });
  routing.reinjectionCount += 1;
  packet.state = Packet_State.REINJECTED;
}

const lastReflection = (packet: Packet) => packet.reasoning!.reflectionLog.at(-1)!;

describe("intent", () => {
  it("intent - small talk ends the packet: chat, SKIPPED, COMPLETED, and the log says why", () => {
    const packet = newPacket({ message: "thanks, that was helpful!" });
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.intent!.userIntent, "chat");
    assert.equal(packet.intent!.detectedBy, "smalltalk:thanks");
    assert.equal(packet.toolRouting!.needsTool, false);
    assert.equal(packet.toolRouting!.routingRequested, false);
    assert.equal(packet.toolRouting!.executionStatus, Status.SKIPPED);
    assert.deepEqual(packet.intent!.steps, []);
    assert.equal(lastReflection(packet).step, "intent");
    assert.match(lastReflection(packet).summary, /no tool needed \(smalltalk:thanks\): small talk/);
    assert.equal(packet.stateReason, "no tool needed: small talk; the model answers it without a tool");
  });

  it("intent - an opinion question and an empty message end with their own reasons", () => {
    const opinion = newPacket({ message: "what do you think about Rust?" });
    decideIntent(opinion, config);
    assert.match(opinion.stateReason, /^no tool needed: an opinion question/);
    const empty = newPacket({ message: "" });
    decideIntent(empty, config);
    assert.equal(empty.stateReason, "no tool needed: the prompt is empty");
  });

  const verdicts: [string, "tool" | "chat" | "undecided"][] = [
    ["read notes/a.md", "tool"],
    ["", "chat"],
    ["thanks, that was helpful!", "chat"],
    ["hi there", "chat"],
    ["what do you think about Rust?", "chat"],
    ["Hello! I'm planning a trip to London and would love to catch a musical", "undecided"],
    ["how can I find cheap flights to Rome?", "undecided"],
    ["write a poem about the sea", "undecided"],
    // issue 37: closings of any length are small talk; an order after an opener is a request
    ["cool, thanks, that's all I needed", "chat"],
    ["thank you so much for all your help with the migration yesterday, it was really useful", "chat"],
    ["that's all for today, have a nice weekend", "chat"],
    ["cool, love it", "chat"],
    ["Great, merge it", "undecided"],
    ["ok, ship this", "undecided"],
    ["thanks! can you also check the weather in Oslo", "tool"],
    ["thanks, what's the price of AAPL today?", "undecided"],
  ];
  for (const [message, expected] of verdicts) {
    it(`intent - the rules settle ${JSON.stringify(message)} as ${expected}`, () => {
      assert.equal(verdictOf(detectToolNeed(message), message), expected);
      const packet = newPacket({ message });
      const outcome = decideIntent(packet, config);
      assert.deepEqual(outcome, expected === "chat" ? { done: true } : { next: "route" });
      assert.equal(packet.toolRouting!.needsTool, expected === "tool");
    });
  }

  it("intent - a tool request is split into steps and sent to the router with the first step's query", () => {
    const packet = newPacket({ message: "read notes/a.md, then delete it" });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.equal(packet.state, Packet_State.ROUTING);
    assert.equal(packet.intent!.userIntent, "tool_routing");
    assert.equal(packet.intent!.detectedBy, "verb:read+path");
    assert.deepEqual(packet.intent!.steps, ["read notes/a.md", "delete it"]);
    assert.equal(packet.intent!.stepIndex, 0);
    assert.equal(packet.intent!.query, "read notes/a.md");
    assert.equal(packet.toolRouting!.needsTool, true);
    assert.equal(packet.toolRouting!.routingRequested, true);
    assert.match(lastReflection(packet).summary, /tool needed \(verb:read\+path\); 2 steps: 1\) read notes\/a\.md, 2\) delete it/);
  });

  it("intent - 'turn it off' after 'turn on the kitchen light' routes with the earlier turn in the query", () => {
    const history = [
      create(TurnSchema, { role: Turn_Role.USER, content: "turn on the kitchen light" }),
      create(TurnSchema, { role: Turn_Role.ASSISTANT, content: "Done." }),
    ];
    const packet = newPacket({ message: "turn it off", history });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.equal(packet.intent!.query, "turn it off");
    assert.deepEqual(packet.intent!.queryContext, ["turn on the kitchen light"]);
  });

  it("intent - 'do it again' needs a tool when the latest user request did, and says so", () => {
    const history = [
      create(TurnSchema, { role: Turn_Role.USER, content: "run the tests" }),
      create(TurnSchema, { role: Turn_Role.ASSISTANT, content: "3 passed." }),
    ];
    const packet = newPacket({ message: "do it again", history });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.equal(packet.intent!.detectedBy, "context:verb:run+object");
    assert.equal(packet.intent!.query, "do it again");
    assert.deepEqual(packet.intent!.queryContext, ["run the tests"]);

    // After chat, no rule settles "do it again": the router's tool-need gate decides.
    const chat = newPacket({ message: "do it again", history: [create(TurnSchema, { role: Turn_Role.USER, content: "write a haiku" })] });
    assert.deepEqual(decideIntent(chat, config), { next: "route" });
    assert.equal(chat.intent!.detectedBy, "default:no-indicator");
    assert.equal(chat.toolRouting!.needsTool, false);
    assert.equal(chat.toolRouting!.routingRequested, true);
    assert.match(lastReflection(chat).summary, /tool need undecided \(default:no-indicator\), the router decides/);
  });

  it("intent - reinjection walks the steps, clears the step's fields, and ends with all steps done", () => {
    const packet = newPacket({ message: "read notes/a.md, then delete it" });
    decideIntent(packet, config);

    runStep(packet, Status.EXECUTED);
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    const routing = packet.toolRouting!;
    assert.equal(packet.state, Packet_State.ROUTING);
    assert.equal(packet.intent!.stepIndex, 1);
    // "delete it" leans on the step before for its object.
    assert.equal(packet.intent!.query, "delete it");
    assert.deepEqual(packet.intent!.queryContext, ["read notes/a.md"]);
    assert.deepEqual(routing.candidates, []);
    assert.equal(routing.selectedTool, undefined);
    assert.deepEqual(routing.alternativeTools, []);
    assert.equal(routing.reviewConfidence, 0);
    assert.equal(routing.reviewReasoning, "");
    assert.equal(routing.dryRun, false);
    assert.equal(routing.executionStatus, Status.PENDING);
    assert.equal(routing.executionResult, undefined);
    assert.equal(packet.content!.dataFields.length, 1, "the executor's result stays in the data fields");
    assert.match(lastReflection(packet).summary, /step 1 of 2 done; routing step 2 of 2: "delete it"/);

    runStep(packet, Status.EXECUTED);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(routing.executionStatus, Status.EXECUTED);
    assert.equal(routing.reinjectionCount, 2);
    assert.equal(packet.content!.dataFields.length, 2);
    assert.equal(lastReflection(packet).summary, "all 2 steps done");
    assert.equal(packet.stateReason, "done: all 2 steps ran");
  });

  it("intent - a one-step request ends after its reinjection", () => {
    const packet = newPacket({ message: "delete notes/old.md" });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    runStep(packet, Status.EXECUTED);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.toolRouting!.executionStatus, Status.EXECUTED);
    assert.equal(lastReflection(packet).summary, "the only step is done");
    assert.equal(packet.stateReason, "done: fs.step1 ran");
  });

  it("intent - five steps under max_reinjections 3: three run, then SKIPPED with the cap and the steps left in the log", () => {
    const packet = newPacket({
      message: "1. read a.md 2. read b.md 3. read c.md 4. read d.md 5. read e.md",
      maxReinjections: 3,
    });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.equal(packet.intent!.steps.length, 5);

    const outcomes = [];
    for (let i = 0; i < 5 && packet.state !== Packet_State.COMPLETED; i++) {
      runStep(packet, Status.EXECUTED);
      outcomes.push(decideIntent(packet, config));
    }
    assert.deepEqual(outcomes, [{ next: "route" }, { next: "route" }, { done: true }]);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.intent!.stepIndex, 2);
    assert.equal(packet.toolRouting!.reinjectionCount, 3);
    assert.equal(packet.toolRouting!.executionStatus, Status.SKIPPED);
    assert.equal(packet.content!.dataFields.length, 3);
    assert.equal(lastReflection(packet).summary, "reinjection cap reached (3 of 3); steps not done: 4) read d.md, 5) read e.md");
    assert.equal(packet.stateReason, "reinjection cap reached (3): 2 of 5 steps not run; send them again or raise MAX_REINJECTIONS");
  });

  it("intent - a failed step stops the loop: COMPLETED, status FAILED, the error and the steps left in the log", () => {
    const packet = newPacket({ message: "read a.md, then read b.md, then read c.md" });
    decideIntent(packet, config);
    runStep(packet, Status.EXECUTED);
    decideIntent(packet, config);
    runStep(packet, Status.FAILED, { error: "ENOENT: b.md" });
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.toolRouting!.executionStatus, Status.FAILED);
    assert.equal(packet.intent!.stepIndex, 1);
    assert.equal(lastReflection(packet).summary, "step 2 of 3 failed: ENOENT: b.md; the loop stops; steps not done: 3) read c.md");
    // COMPLETED with a failed step: the reason says so first.
    assert.equal(packet.stateReason, "tool failed: fs.step2 (step 2 of 3): ENOENT: b.md");
  });

  it("intent - a failed one-step request: the reason names the tool and a short form of its error", () => {
    const packet = newPacket({ message: "read notes/missing.md" });
    decideIntent(packet, config);
    runStep(packet, Status.FAILED, { error: `ENOENT: no such file or directory, open 'notes/missing.md'${" and more".repeat(40)}` });
    decideIntent(packet, config);
    assert.match(packet.stateReason, /^tool failed: fs\.step1: ENOENT: no such file or directory, open 'notes\/missing\.md' and more/);
    assert.ok(packet.stateReason.length <= "tool failed: fs.step1: ".length + 200, packet.stateReason);
    assert.ok(packet.stateReason.endsWith("…"));

    const silent = newPacket({ message: "read notes/missing.md" });
    decideIntent(silent, config);
    runStep(silent, Status.FAILED);
    decideIntent(silent, config);
    assert.equal(silent.stateReason, "tool failed: fs.step1: no error message");
  });

  it("intent - a dry run or a skipped call counts as a finished step", () => {
    const packet = newPacket({ message: "write 'x' to a.md, then read b.md" });
    decideIntent(packet, config);
    runStep(packet, Status.SKIPPED, { dryRun: true });
    assert.deepEqual(decideIntent(packet, config), { next: "route" });
    assert.equal(packet.toolRouting!.dryRun, false);
    assert.match(lastReflection(packet).summary, /^step 1 of 2 was a dry run; routing step 2 of 2/);

    runStep(packet, Status.SKIPPED);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.toolRouting!.executionStatus, Status.SKIPPED);
    assert.equal(lastReflection(packet).summary, "all 2 steps done (step 2 of 2 was skipped)");
    assert.equal(packet.stateReason, "done: step 2 of 2 was skipped");
  });

  it("intent - a denied step stops the loop", () => {
    const packet = newPacket({ message: "delete a.md, then delete b.md" });
    decideIntent(packet, config);
    runStep(packet, Status.USER_DENIED);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(lastReflection(packet).summary, "step 1 of 2 was denied; the loop stops; steps not done: 2) delete b.md");
    assert.equal(packet.stateReason, "denied by the user: fs.step1 not run (step 1 of 2)");
  });

  it("intent - a reinjected packet whose step never ran ends FAILED with the reason", () => {
    const packet = newPacket({ message: "read a.md, then read b.md" });
    decideIntent(packet, config);
    runStep(packet, Status.APPROVED);
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.FAILED);
    assert.match(packet.stateReason, /reinjected with execution status APPROVED/);
  });

  it("intent - a packet that has already ended is left alone", () => {
    const packet = newPacket({ message: "read a.md" });
    packet.state = Packet_State.AWAITING_APPROVAL;
    assert.deepEqual(decideIntent(packet, config), { done: true });
    assert.equal(packet.state, Packet_State.AWAITING_APPROVAL);
    assert.deepEqual(packet.intent!.steps, []);
    assert.equal(packet.reasoning!.reflectionLog.length, 0);
  });
});
