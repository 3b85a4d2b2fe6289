/**
 * The user's answer to a packet waiting for approval. An approval is bound to the hash of
 * the exact call it was asked for (@switchyard/packet tool-call.ts): it is refused when it
 * has expired, when the packet's call changed since, or when the caller names another call.
 * An expired approval also ends the packet, so it does not wait for ever.
 */
import { addReflection, approvalRefusal, finish, grantApproval, Packet_State, routingOf, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";

export type ApprovalOutcome = { approved: true } | { approved: false; message: string; ended: boolean };

/** Approves the packet's pending call (it goes on to execute), or says why not. */
export function approveCall(packet: Packet, seenHash = "", now = Date.now()): ApprovalOutcome {
  const routing = routingOf(packet);
  const toolName = routing.selectedTool?.toolName ?? "?";
  const refusal = approvalRefusal(packet, now, seenHash);
  if (refusal?.reason === "expired") {
    routing.executionStatus = ToolRoutingState_ExecutionStatus.SKIPPED;
    addReflection(packet, { step: "approval", summary: `${toolName} not run: ${refusal.message}` });
    finish(packet, Packet_State.COMPLETED, `skipped: ${toolName} not run, ${refusal.message}`);
    return { approved: false, message: refusal.message, ended: true };
  }
  if (refusal) return { approved: false, message: refusal.message, ended: false };
  grantApproval(packet, now);
  routing.executionStatus = ToolRoutingState_ExecutionStatus.APPROVED;
  packet.state = Packet_State.EXECUTING;
  packet.stateReason = "";
  addReflection(packet, { step: "approval", summary: `approved by the user: ${toolName} (call ${routing.approval!.callHash.slice(0, 12)}…)` });
  return { approved: true };
}

/** Denies the packet's pending call: the packet ends, the tool marked USER_DENIED. */
export function denyCall(packet: Packet, reason: string): void {
  const routing = routingOf(packet);
  routing.executionStatus = ToolRoutingState_ExecutionStatus.USER_DENIED;
  const summary = `denied by the user: ${routing.selectedTool?.toolName ?? "?"} not run${reason ? ` (${reason})` : ""}`;
  addReflection(packet, { step: "approval", summary });
  finish(packet, Packet_State.COMPLETED, summary);
}
