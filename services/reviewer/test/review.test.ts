import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  callHash,
  newPacket,
  Packet_State,
  recordCall,
  RoutingCandidateSchema,
  routingOf,
  ToolDefinition_SideEffect,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { candidate, candidates, toolDefinition } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { reviewStage } from "../src/review.js";
import type { Reviewer } from "../src/reviewer.js";
import { selected } from "./selected-packet.js";

const { APPROVED, SKIPPED, PENDING } = ToolRoutingState_ExecutionStatus;

const READ_TOOLS = { "filesystem.read_text_file": 0.74, "filesystem.read_multiple_files": 0.75, "filesystem.get_file_info": 0.53 };
const WRITE_TOOLS = { "filesystem.write_file": 0.65, "filesystem.read_text_file": 0.1 };

function lastReflection(packet: Packet) {
  const log = packet.reasoning!.reflectionLog;
  const entry = log[log.length - 1]!;
  assert.equal(entry.step, "review");
  return entry;
}

const config: Config = defaultConfig;

describe("reviewer - reviewStage", () => {
  it("reviewer - a read request is approved and goes to execute", async () => {
    const packet = selected("please read the file notes/todo.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.86);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, APPROVED);
    assert.equal(routing.dryRun, false);
    assert.equal(routing.reviewConfidence, 0.86);
    assert.match(routing.reviewReasoning, /^approved: filesystem\.read_text_file only reads, so it runs without approval\. Review: selection confidence 0\.86/);
    assert.equal(packet.state, Packet_State.EXECUTING);
    assert.match(lastReflection(packet).summary, /Approved filesystem\.read_text_file .* only reads/);
    assert.equal(lastReflection(packet).confidence, 0.86);
  });

  it("reviewer - a write request is dry-run while ALLOW_WRITE_TOOLS is off", async () => {
    const packet = selected("write hello to notes/a.txt", candidates(WRITE_TOOLS), "filesystem.write_file", { path: "notes/a.txt", content: "hello" }, 0.82);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, APPROVED);
    assert.equal(routing.dryRun, true);
    assert.equal(packet.state, Packet_State.EXECUTING);
    assert.match(lastReflection(packet).summary, /dry run.*write tool and ALLOW_WRITE_TOOLS is off/);
    // The executor ends the packet with this reasoning: it must say what happens and what would let the call run.
    assert.match(routing.reviewReasoning, /^dry run: filesystem\.write_file is a write tool and ALLOW_WRITE_TOOLS is off; set ALLOW_WRITE_TOOLS=true to run write tools with approval\. Review: /);
    assert.doesNotMatch(routing.reviewReasoning, /\bapproved\b/);
  });

  it("reviewer - a write request with ALLOW_WRITE_TOOLS waits for approval", async () => {
    const packet = selected("write hello to notes/a.txt", candidates(WRITE_TOOLS), "filesystem.write_file", { path: "notes/a.txt", content: "hello" }, 0.82);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, ALLOW_WRITE_TOOLS: true } }), { done: true });
    assert.equal(packet.state, Packet_State.AWAITING_APPROVAL);
    assert.match(packet.stateReason, /Approve filesystem\.write_file .*not in TRUSTED_TOOLS/);
    assert.equal(routingOf(packet).executionStatus, PENDING);
    assert.equal(routingOf(packet).dryRun, false);
    assert.match(routingOf(packet).reviewReasoning, /^awaiting approval: filesystem\.write_file is a write tool and is not in TRUSTED_TOOLS/);
    assert.match(lastReflection(packet).summary, /waits for the user's approval/);
    const approval = routingOf(packet).approval!;
    assert.equal(approval.callHash, callHash("filesystem.write_file", { content: "hello", path: "notes/a.txt" }), "bound to this exact call");
    assert.match(packet.stateReason, new RegExp(`callHash ${approval.callHash}`));
    const ttl = Number(approval.expiresAt!.seconds - approval.requestedAt!.seconds) * 1000;
    assert.equal(ttl, config.APPROVAL_TTL_MS);
    assert.equal(approval.grantedAt, undefined);
  });

  it("reviewer - the same call twice in one packet stops the loop", async () => {
    const packet = selected("read notes/todo.md again", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.9);
    packet.header!.hop = 5;
    recordCall(packet, { success: true, dryRun: false });
    packet.header!.hop = 9;
    assert.deepEqual(await reviewStage(packet, { config }), { done: true });
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(lastReflection(packet).summary, /already called at hop 5 of this packet; calling it again would loop/);
    assert.match(packet.stateReason, /^refused: filesystem\.read_text_file with these arguments was already called at hop 5/);
    assert.equal(routingOf(packet).reviewReasoning, packet.stateReason);

    const other = selected("read notes/todo.md again", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/done.md" }, 0.9);
    recordCall(other, { success: true, dryRun: false });
    routingOf(other).selectedTool!.params = { path: "notes/todo.md" };
    assert.deepEqual(await reviewStage(other, { config }), { next: "execute" }, "other arguments are another call");
  });

  it("reviewer - a trusted write tool runs when writes are allowed", async () => {
    const packet = selected("write hello to notes/a.txt", candidates(WRITE_TOOLS), "filesystem.write_file", { path: "notes/a.txt", content: "hello" }, 0.82);
    const outcome = await reviewStage(packet, { config: { ...config, ALLOW_WRITE_TOOLS: true, TRUSTED_TOOLS: "filesystem.write_file" } });
    assert.deepEqual(outcome, { next: "execute" });
    assert.equal(routingOf(packet).executionStatus, APPROVED);
    assert.equal(routingOf(packet).dryRun, false);
    assert.match(lastReflection(packet).summary, /in TRUSTED_TOOLS/);
  });

  it("reviewer - trust alone does not turn writes on", async () => {
    const packet = selected("write hello to notes/a.txt", candidates(WRITE_TOOLS), "filesystem.write_file", { path: "notes/a.txt", content: "hello" }, 0.82);
    await reviewStage(packet, { config: { ...config, TRUSTED_TOOLS: "filesystem.write_file" } });
    assert.equal(routingOf(packet).dryRun, true);
  });

  it("reviewer - 'delete' answered with a read-only tool is not executed", async () => {
    const packet = selected("delete notes/todo.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.8);
    assert.deepEqual(await reviewStage(packet, { config }), { done: true });
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, SKIPPED);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.ok(routing.reviewConfidence <= 0.5);
    assert.match(routing.reviewReasoning, /^refused: The request asks to delete, but filesystem\.read_text_file only reads\. Review: selection confidence 0\.80/);
    assert.equal(packet.stateReason, "refused: The request asks to delete, but filesystem.read_text_file only reads.");
    assert.match(lastReflection(packet).summary, /Skipped filesystem\.read_text_file, not approved: The request asks to delete, but filesystem\.read_text_file only reads/);
  });

  it("reviewer - a tool whose name says nothing of what it does is not taken to only read", async () => {
    // READ is also what a catalog that never classified its tools sends: "HeyGen" may well create the video.
    const heygen = create(RoutingCandidateSchema, { tool: { name: "heygen", description: "Create spokesperson videos." }, score: 0.6 });
    const packet = selected("create a spokesperson video for our product", [heygen], "heygen", {}, 0.8);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
    assert.doesNotMatch(routingOf(packet).reviewReasoning, /but heygen only reads/);
  });

  it("reviewer - 'show' answered with a write tool is not executed", async () => {
    const packet = selected("show notes/todo.md", candidates(WRITE_TOOLS), "filesystem.write_file", { path: "notes/todo.md", content: "x" }, 0.9);
    await reviewStage(packet, { config });
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.match(lastReflection(packet).summary, /only asks to show, but filesystem\.write_file writes/);
  });

  it("reviewer - a missing required argument is skipped", async () => {
    const packet = selected("please read the file", candidates(READ_TOOLS), "filesystem.read_text_file", {}, 0.45);
    assert.deepEqual(await reviewStage(packet, { config }), { done: true });
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(lastReflection(packet).summary, /path is required/);
  });

  it("reviewer - an argument of the wrong type is skipped", async () => {
    const packet = selected("read the first lines of a.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "a.md", head: "ten" }, 0.9);
    await reviewStage(packet, { config });
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.match(lastReflection(packet).summary, /head must be number/);
  });

  it("reviewer - low confidence is skipped by default, and the packet and the reasoning say so", async () => {
    const packet = selected("notes/todo.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.4);
    assert.deepEqual(await reviewStage(packet, { config }), { done: true });
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.match(lastReflection(packet).summary, /confidence 0\.40 is below the threshold 0\.70/);
    assert.equal(
      packet.stateReason,
      "skipped: confidence 0.40 < 0.70 for filesystem.read_text_file; the review model is not configured, so the selection's confidence decides; " +
        "set LLM_BASE_URL, SELECTOR_MODEL and REVIEWER_MODEL to select and review with a model",
    );
    assert.match(routingOf(packet).reviewReasoning, /^skipped: confidence 0\.40 < 0\.70 .*\. Review: selection confidence 0\.40/);
    assert.doesNotMatch(routingOf(packet).reviewReasoning, /\bapproved\b/);
  });

  it("reviewer - a model reviewer's low confidence is skipped without the hint to configure one", async () => {
    const unsure: Reviewer = { kind: "model m", review: () => ({ approved: true, confidence: 0.61, reasoning: "Maybe the right file." }) };
    const packet = selected("please read the file notes/todo.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.9);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, REVIEWER_MODEL: "m" }, reviewer: unsure }), { done: true });
    assert.equal(packet.stateReason, "skipped: confidence 0.61 < 0.70 for filesystem.read_text_file");
    assert.equal(routingOf(packet).reviewReasoning, "skipped: confidence 0.61 < 0.70 for filesystem.read_text_file. Review: Maybe the right file.");
  });

  it("reviewer - low confidence with ask waits for the user's answer", async () => {
    const packet = selected("notes/todo.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.4);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, LOW_CONFIDENCE_ACTION: "ask" } }), { done: true });
    assert.equal(packet.state, Packet_State.AWAITING_USER);
    assert.match(packet.stateReason, /^Should I run filesystem\.read_text_file with \{"path":"notes\/todo\.md"\}\?/);
    assert.equal(routingOf(packet).executionStatus, PENDING);
    assert.match(lastReflection(packet).summary, /Asked the user/);
    assert.match(routingOf(packet).reviewReasoning, /^asked the user instead of running filesystem\.read_text_file, confidence 0\.40 is below the threshold 0\.70\. Review: /);
  });

  it("reviewer - a missing argument with ask asks for it", async () => {
    const packet = selected("please read the file", candidates(READ_TOOLS), "filesystem.read_text_file", {}, 0.45);
    await reviewStage(packet, { config: { ...config, LOW_CONFIDENCE_ACTION: "ask" } });
    assert.equal(packet.state, Packet_State.AWAITING_USER);
    assert.match(packet.stateReason, /^Which path should I use for filesystem\.read_text_file\?/);
  });

  it("reviewer - a tool outside the candidates is rejected, even with ask", async () => {
    const packet = selected("write hello to notes/a.txt", candidates(READ_TOOLS), "filesystem.write_file", { path: "notes/a.txt", content: "hello" }, 0.95);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, LOW_CONFIDENCE_ACTION: "ask", ALLOW_WRITE_TOOLS: true, TRUSTED_TOOLS: "filesystem.write_file" } }), { done: true });
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, SKIPPED);
    assert.equal(routing.reviewConfidence, 0);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(lastReflection(packet).summary, /Rejected: filesystem\.write_file is not among the routing candidates/);
    assert.match(packet.stateReason, /^refused: filesystem\.write_file is not among the routing candidates/);
  });

  it("reviewer - nothing selected is rejected", async () => {
    const packet = newPacket({ message: "hello" });
    assert.deepEqual(await reviewStage(packet, { config }), { done: true });
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.match(lastReflection(packet).summary, /No tool was selected/);
  });

  it("reviewer - a mixed request loses 0.1 but a confident read still runs", async () => {
    const packet = selected("read notes/a.txt and then delete it", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/a.txt" }, 0.9);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
    assert.equal(routingOf(packet).reviewConfidence, 0.8);
  });

  it("reviewer - an unclassified delete tool is treated as a write tool", async () => {
    const unclassified = create(RoutingCandidateSchema, { tool: { ...toolDefinition("memory", "delete_entities"), sideEffect: ToolDefinition_SideEffect.READ }, score: 0.7 });
    const packet = selected("delete the entities 'Alice'", [unclassified], "memory.delete_entities", { entityNames: ["Alice"] }, 0.85);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
    assert.equal(routingOf(packet).dryRun, true);
    assert.match(lastReflection(packet).summary, /catalog marks memory\.delete_entities READ, but its name says it changes things/);
  });

  it("reviewer - a request mentioning writes in quotes is not a contradiction", async () => {
    const packet = selected("search my memory for 'delete me'", [candidate("memory", "search_nodes", 0.8)], "memory.search_nodes", { query: "delete me" }, 0.85);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
  });
});

describe("reviewer - reviewStage with a Reviewer", () => {
  const approvesEverything: Reviewer = { kind: "scripted", review: () => ({ approved: true, confidence: 0.99, reasoning: "looks fine" }) };

  it("reviewer - the code checks overrule a reviewer that approves", async () => {
    const packet = selected("please read the file", candidates(READ_TOOLS), "filesystem.read_text_file", {}, 0.9);
    assert.deepEqual(await reviewStage(packet, { config, reviewer: approvesEverything }), { done: true });
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, SKIPPED);
    assert.equal(routing.reviewConfidence, 0.5);
    assert.match(routing.reviewReasoning, /Overruled by the code checks/);
  });

  it("reviewer - not approved caps confidence at 0.5 and never runs, whatever the threshold", async () => {
    const refuses: Reviewer = { kind: "scripted", review: () => ({ approved: false, confidence: 0.9, reasoning: "wrong file" }) };
    const packet = selected("please read the file notes/todo.md", candidates(READ_TOOLS), "filesystem.read_text_file", { path: "notes/todo.md" }, 0.9);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, REVIEW_CONFIDENCE_THRESHOLD: 0.2 }, reviewer: refuses }), { done: true });
    assert.equal(routingOf(packet).reviewConfidence, 0.5);
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.match(lastReflection(packet).summary, /not approved: wrong file/);
    assert.equal(packet.stateReason, "refused: the review did not approve filesystem.read_text_file");
    assert.equal(routingOf(packet).reviewReasoning, "refused: the review did not approve filesystem.read_text_file. Review: wrong file");
  });

  it("reviewer - an approving reviewer does not widen policy", async () => {
    const packet = selected("write hello to notes/a.txt", candidates(WRITE_TOOLS), "filesystem.write_file", { path: "notes/a.txt", content: "hello" }, 0.9);
    assert.deepEqual(await reviewStage(packet, { config, reviewer: approvesEverything }), { next: "execute" });
    assert.equal(routingOf(packet).dryRun, true);
  });
});
