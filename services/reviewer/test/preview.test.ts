import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "@bufbuild/protobuf";
import { newPacket, Packet_State, routingOf, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { candidates } from "@switchyard/test-fixtures";
import { defaultConfig } from "../src/config.js";
import type { Config } from "../src/config.js";
import { reviewStage } from "../src/review.js";
import { selected } from "./selected-packet.js";

const { APPROVED, SKIPPED } = ToolRoutingState_ExecutionStatus;
const READ_TOOLS = { "filesystem.read_text_file": 0.74, "filesystem.get_file_info": 0.53 };
const WRITE_TOOLS = { "filesystem.write_file": 0.65, "filesystem.read_text_file": 0.1 };
const WRITE = { path: "notes/a.txt", content: "hello" };
const config: Config = defaultConfig;

/** A selected packet whose request asked for a preview (PacketHeader.preview). */
function preview(message: string, tools: Record<string, number>, toolName: string, params: JsonObject, confidence: number): Packet {
  const packet = selected(message, candidates(tools), toolName, params, confidence);
  packet.header!.preview = true;
  return packet;
}

describe("reviewer - previews", () => {
  it("reviewer - a preview of a read says it would run, and the executor only dry-runs it", async () => {
    const packet = preview("please read the file notes/todo.md", READ_TOOLS, "filesystem.read_text_file", { path: "notes/todo.md" }, 0.86);
    assert.deepEqual(await reviewStage(packet, { config }), { next: "execute" });
    const routing = routingOf(packet);
    assert.equal(routing.dryRun, true);
    assert.equal(routing.executionStatus, APPROVED);
    assert.equal(packet.state, Packet_State.EXECUTING);
    assert.match(routing.reviewReasoning, /^dry run: a preview; would run filesystem\.read_text_file: filesystem\.read_text_file only reads, so it runs without approval\. Review: selection confidence 0\.86/);
    assert.match(packet.reasoning!.reflectionLog.at(-1)!.summary, /^Preview, nothing runs: would run filesystem\.read_text_file/);
  });

  it("reviewer - a preview of a write with approvals on says it would ask for approval, and holds nothing", async () => {
    const packet = preview("write hello to notes/a.txt", WRITE_TOOLS, "filesystem.write_file", WRITE, 0.82);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, ALLOW_WRITE_TOOLS: true } }), { next: "execute" });
    const routing = routingOf(packet);
    assert.equal(routing.dryRun, true);
    assert.equal(routing.approval, undefined, "no approval is asked for");
    assert.notEqual(packet.state, Packet_State.AWAITING_APPROVAL);
    assert.match(routing.reviewReasoning, /^dry run: a preview; would ask for approval before running filesystem\.write_file: .*not in TRUSTED_TOOLS/);
  });

  it("reviewer - a preview of a trusted write says it would run it, and of a switched-off one that it would only dry-run it", async () => {
    const trusted = preview("write hello to notes/a.txt", WRITE_TOOLS, "filesystem.write_file", WRITE, 0.82);
    await reviewStage(trusted, { config: { ...config, ALLOW_WRITE_TOOLS: true, TRUSTED_TOOLS: "filesystem.write_file" } });
    assert.equal(routingOf(trusted).dryRun, true);
    assert.match(routingOf(trusted).reviewReasoning, /^dry run: a preview; would run filesystem\.write_file: .*in TRUSTED_TOOLS/);
    const off = preview("write hello to notes/a.txt", WRITE_TOOLS, "filesystem.write_file", WRITE, 0.82);
    await reviewStage(off, { config });
    assert.match(routingOf(off).reviewReasoning, /^dry run: a preview; would only dry-run filesystem\.write_file: .*ALLOW_WRITE_TOOLS is off/);
  });

  it("reviewer - a preview below the threshold says it would skip, and ends there as a dry run", async () => {
    const packet = preview("notes/todo.md", READ_TOOLS, "filesystem.read_text_file", { path: "notes/todo.md" }, 0.52);
    assert.deepEqual(await reviewStage(packet, { config }), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(routingOf(packet).executionStatus, SKIPPED);
    assert.equal(routingOf(packet).dryRun, true, "so nothing is learned from it");
    assert.match(packet.stateReason, /^dry run: a preview; would skip: confidence 0\.52 < 0\.70 for filesystem\.read_text_file/);
    assert.equal(routingOf(packet).reviewReasoning, packet.stateReason);
  });

  it("reviewer - a preview with ask says what it would ask, without waiting for the user", async () => {
    const packet = preview("please read the file", READ_TOOLS, "filesystem.read_text_file", {}, 0.45);
    assert.deepEqual(await reviewStage(packet, { config: { ...config, LOW_CONFIDENCE_ACTION: "ask" } }), { done: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.match(packet.stateReason, /^dry run: a preview; would ask the user instead of running filesystem\.read_text_file, .*Which path should I use/);
  });

  it("reviewer - a preview the review would refuse says so, as would a selection outside the candidates or none", async () => {
    const contradiction = preview("delete notes/todo.md", READ_TOOLS, "filesystem.read_text_file", { path: "notes/todo.md" }, 0.9);
    await reviewStage(contradiction, { config });
    assert.match(contradiction.stateReason, /^dry run: a preview; would refuse: The request asks to delete, but filesystem\.read_text_file only reads\./);
    const outside = preview("write hello to notes/a.txt", READ_TOOLS, "filesystem.write_file", WRITE, 0.95);
    await reviewStage(outside, { config });
    assert.match(outside.stateReason, /^dry run: a preview; would refuse: filesystem\.write_file is not among the routing candidates/);
    const none = newPacket({ message: "hello", preview: true });
    assert.deepEqual(await reviewStage(none, { config }), { done: true });
    assert.match(none.stateReason, /^dry run: a preview; would refuse: No tool was selected/);
    assert.equal(routingOf(none).dryRun, true);
  });
});
