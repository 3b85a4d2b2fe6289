import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { approvalHolds, newPacket, Packet_State, requestApproval, routingOf, SelectedToolSchema, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { approveCall, denyCall } from "../src/fleet/approvals.js";

const NOW = Date.parse("2026-11-22T12:00:00Z");
const TTL = 60_000;

function waiting(): Packet {
  const packet = newPacket({ message: "delete the build folder" });
  routingOf(packet).selectedTool = create(SelectedToolSchema, { toolName: "shell.run_command", params: { command: "rm -rf build" } });
  routingOf(packet).executionStatus = ToolRoutingState_ExecutionStatus.PENDING;
  requestApproval(packet, TTL, NOW);
  packet.state = Packet_State.AWAITING_APPROVAL;
  return packet;
}

describe("gateway approvals", () => {
  it("approvals - an approval in time, for the call asked about, lets exactly that call run", () => {
    const packet = waiting();
    assert.equal(approvalHolds(packet), false, "nothing runs before the approval");
    assert.deepEqual(approveCall(packet, routingOf(packet).approval!.callHash, NOW + 1000), { approved: true });
    assert.equal(packet.state, Packet_State.EXECUTING);
    assert.equal(routingOf(packet).executionStatus, ToolRoutingState_ExecutionStatus.APPROVED);
    assert.equal(approvalHolds(packet), true);

    routingOf(packet).selectedTool!.params = { command: "rm -rf /" };
    assert.equal(approvalHolds(packet), false, "the approval does not carry over to changed arguments");
  });

  it("approvals - a call changed since the approval was asked for needs a new one", () => {
    const packet = waiting();
    routingOf(packet).selectedTool!.params = { command: "rm -rf /" };
    const outcome = approveCall(packet, "", NOW);
    assert.equal(outcome.approved, false);
    assert.match(!outcome.approved ? outcome.message : "", /selected call changed/);
    assert.equal(packet.state, Packet_State.AWAITING_APPROVAL, "still waiting");
  });

  it("approvals - an expired approval is refused and ends the packet", () => {
    const packet = waiting();
    const outcome = approveCall(packet, "", NOW + TTL + 1);
    assert.deepEqual(outcome, { approved: false, message: `the approval expired at ${new Date(NOW + TTL).toISOString()}; send the request again`, ended: true });
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.stateReason, `skipped: shell.run_command not run, the approval expired at ${new Date(NOW + TTL).toISOString()}; send the request again`);
    assert.equal(routingOf(packet).executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);
    assert.equal(approvalHolds(packet), false);
  });

  it("approvals - a packet that asked for no approval cannot be approved", () => {
    const packet = waiting();
    routingOf(packet).approval = undefined;
    const outcome = approveCall(packet, "", NOW);
    assert.match(!outcome.approved ? outcome.message : "", /no approval was asked for/);
  });

  it("approvals - a denial ends the packet USER_DENIED with the reason", () => {
    const packet = waiting();
    denyCall(packet, "not on a Friday");
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(routingOf(packet).executionStatus, ToolRoutingState_ExecutionStatus.USER_DENIED);
    assert.equal(packet.stateReason, "denied by the user: shell.run_command not run (not on a Friday)");
  });
});
