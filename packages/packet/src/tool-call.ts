/**
 * A tool call's identity and what the packet records about it: the hash an approval is bound
 * to (so a changed call needs a new approval) and the calls already made (so the same call
 * twice in one packet is caught, seed 002's repetition detection).
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { create } from "@bufbuild/protobuf";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ApprovalSchema, ToolCallSchema } from "./gen/switchyard/v1/packet_pb.js";
import type { Packet, ToolCall } from "./gen/switchyard/v1/packet_pb.js";
import { routingOf } from "./packet.js";

/**
 * JSON in the RFC 8785 canonical form (`canonicalize`): object keys sorted, numbers and
 * strings written one way, so equal values give equal text. (Strings that went through a
 * packet are well-formed; the canonical form refuses lone surrogates.)
 */
export function canonicalJson(value: JsonValue): string {
  return canonicalize(value) ?? "null";
}

/** sha256 (hex) of the tool's name and its arguments as canonical JSON. */
export function callHash(toolName: string, params: JsonObject | undefined): string {
  return createHash("sha256")
    .update(`${toolName}\u0000${canonicalJson(params ?? {})}`)
    .digest("hex");
}

/** The hash of the packet's selected call; "" when nothing is selected. */
export function selectedCallHash(packet: Packet): string {
  const selected = routingOf(packet).selectedTool;
  return selected?.toolName ? callHash(selected.toolName, selected.params) : "";
}

/** Asks for the user's approval of the selected call, valid for `ttlMs` from `now`. */
export function requestApproval(packet: Packet, ttlMs: number, now = Date.now()): void {
  routingOf(packet).approval = create(ApprovalSchema, {
    callHash: selectedCallHash(packet),
    requestedAt: timestampFromMs(now),
    expiresAt: timestampFromMs(now + ttlMs),
  });
}

/** Why a pending approval cannot be given: which rule, and a sentence for the user. */
export interface ApprovalRefusal {
  reason: "none-asked" | "expired" | "call-changed" | "other-call";
  message: string;
}

/**
 * Why the pending approval cannot be given now, or undefined when it can: none was asked
 * for, it has expired, the selected call is no longer the one it was asked for, or the
 * caller approves another call (`seenHash`, the hash the user saw, when the caller sends it).
 */
export function approvalRefusal(packet: Packet, now = Date.now(), seenHash = ""): ApprovalRefusal | undefined {
  const approval = routingOf(packet).approval;
  if (!approval?.callHash) return { reason: "none-asked", message: "no approval was asked for" };
  if (approval.expiresAt && timestampDate(approval.expiresAt).getTime() < now) {
    return { reason: "expired", message: `the approval expired at ${timestampDate(approval.expiresAt).toISOString()}; send the request again` };
  }
  if (approval.callHash !== selectedCallHash(packet)) {
    return { reason: "call-changed", message: "the selected call changed since the approval was asked for; it needs a new approval" };
  }
  if (seenHash && seenHash !== approval.callHash) {
    return { reason: "other-call", message: `callHash ${seenHash} is not the call waiting for approval (${approval.callHash})` };
  }
  return undefined;
}

/** Records that the user approved the pending call (approvalRefusal first). */
export function grantApproval(packet: Packet, now = Date.now()): void {
  const approval = routingOf(packet).approval;
  if (approval) approval.grantedAt = timestampFromMs(now);
}

/**
 * Whether the selected call may run as far as approvals go: no approval was asked for, or
 * one was given for exactly this call. The executor checks it before any real call.
 */
export function approvalHolds(packet: Packet): boolean {
  const approval = routingOf(packet).approval;
  if (!approval?.callHash) return true;
  return approval.grantedAt !== undefined && approval.callHash === selectedCallHash(packet);
}

/** Records the selected call as handled by the executor at the packet's current hop. */
export function recordCall(packet: Packet, outcome: { success: boolean; dryRun: boolean }): void {
  const routing = routingOf(packet);
  const selected = routing.selectedTool;
  if (!selected?.toolName) return;
  routing.calls.push(
    create(ToolCallSchema, {
      toolName: selected.toolName,
      callHash: callHash(selected.toolName, selected.params),
      hop: packet.header?.hop ?? 0,
      success: outcome.success,
      dryRun: outcome.dryRun,
    }),
  );
}

/** The earlier call of this packet that the selected call repeats (same tool, same arguments), if any. */
export function repeatedCall(packet: Packet): ToolCall | undefined {
  const hash = selectedCallHash(packet);
  return hash ? routingOf(packet).calls.find((call) => call.callHash === hash) : undefined;
}
