import { randomUUID } from "node:crypto";
import { create, fromBinary, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import type { JsonValue, MessageInitShape } from "@bufbuild/protobuf";
import { timestampNow, ValueSchema } from "@bufbuild/protobuf/wkt";
import type { Value } from "@bufbuild/protobuf/wkt";
import {
  DataFieldSchema,
  IntentSchema,
  Packet_State,
  PacketContentSchema,
  ReasoningSchema,
  ToolRoutingStateSchema,
  ToolScopeSchema,
  PacketApprovalSummarySchema,
  PacketSchema,
  PacketSummarySchema,
  ReflectionLogEntrySchema,
  ToolRoutingState_ExecutionStatus,
  Turn_Role,
  TurnSchema,
} from "./gen/switchyard/v1/packet_pb.js";
import { withFallbacks } from "./fallbacks.js";
import type { Intent, Packet, PacketApprovalSummary, PacketContent, PacketSummary, Reasoning, ToolRoutingState, ToolScope, Turn } from "./gen/switchyard/v1/packet_pb.js";

/** The default cap on reinjection rounds (seed 000 §3.1). */
export const DEFAULT_MAX_REINJECTIONS = 3;

export interface NewPacketInput {
  message: string;
  sessionId?: string;
  history?: Turn[];
  /** The tools the request may use; absent: the whole catalog. */
  scope?: MessageInitShape<typeof ToolScopeSchema>;
  /** @default DEFAULT_MAX_REINJECTIONS */
  maxReinjections?: number;
  /** A preview (PacketHeader.preview): its call is only dry-run, whatever the policy. @default false */
  preview?: boolean;
}

/** A packet as the gateway creates it: state RECEIVED, no hop taken yet. */
export function newPacket(input: NewPacketInput): Packet {
  const now = timestampNow();
  const packetId = randomUUID();
  return create(PacketSchema, {
    header: {
      packetId,
      sessionId: input.sessionId || packetId,
      createdAt: now,
      updatedAt: now,
      hop: 0,
      preview: input.preview ?? false,
    },
    content: {
      originalPrompt: input.message,
      history: input.history ?? [],
      scope: input.scope ?? {},
    },
    intent: {},
    toolRouting: {
      executionStatus: ToolRoutingState_ExecutionStatus.PENDING,
      maxReinjections: input.maxReinjections ?? DEFAULT_MAX_REINJECTIONS,
    },
    reasoning: {},
    state: Packet_State.RECEIVED,
  });
}

/** A turn from its role's name in any case ("user", "ASSISTANT"); a name that is no role counts as the user's. */
export function turnOf(role: string, content: string): Turn {
  const value = Turn_Role[role.toUpperCase() as keyof typeof Turn_Role];
  return create(TurnSchema, { role: typeof value === "number" ? value : Turn_Role.USER, content });
}

export function encodePacket(packet: Packet): Uint8Array {
  return toBinary(PacketSchema, packet);
}

export function decodePacket(bytes: Uint8Array): Packet {
  return fromBinary(PacketSchema, bytes);
}

/** A stored packet's header and state alone; the rest of its bytes are skipped, not kept. */
export function decodePacketSummary(bytes: Uint8Array): PacketSummary {
  return fromBinary(PacketSummarySchema, bytes, { readUnknownFields: false });
}

/** A packet's header and its call's approval alone; the rest of its bytes are skipped, not kept. */
export function decodePacketApprovalSummary(bytes: Uint8Array): PacketApprovalSummary {
  return fromBinary(PacketApprovalSummarySchema, bytes, { readUnknownFields: false });
}

/** The packet in the proto3 JSON mapping, with every field present so clients need no defaults table. */
export function packetToJson(packet: Packet): JsonValue {
  return toJson(PacketSchema, packet, { alwaysEmitImplicit: true });
}

export function toValue(json: JsonValue): Value {
  return fromJson(ValueSchema, json);
}

export function fromValue(value: Value | undefined): JsonValue {
  return value === undefined ? null : toJson(ValueSchema, value);
}

/** The packet's routing state, created on first use so stages never deal with undefined. */
export function routingOf(packet: Packet): ToolRoutingState {
  packet.toolRouting ??= create(ToolRoutingStateSchema, {});
  return packet.toolRouting;
}

export function reasoningOf(packet: Packet): Reasoning {
  packet.reasoning ??= create(ReasoningSchema, {});
  return packet.reasoning;
}

export function intentOf(packet: Packet): Intent {
  packet.intent ??= create(IntentSchema, {});
  return packet.intent;
}

export function contentOf(packet: Packet): PacketContent {
  packet.content ??= create(PacketContentSchema, {});
  return packet.content;
}

/** The tools the packet's request may use (created empty: the whole catalog). */
export function scopeOf(packet: Packet): ToolScope {
  const content = contentOf(packet);
  content.scope ??= create(ToolScopeSchema, {});
  return content.scope;
}

export interface ReflectionInput {
  step: string;
  summary: string;
  confidence?: number;
  durationMs?: number;
}

/** Appends an audit entry; every decision a stage makes about a packet is explained here. */
export function addReflection(packet: Packet, entry: ReflectionInput): void {
  reasoningOf(packet).reflectionLog.push(
    create(ReflectionLogEntrySchema, {
      step: entry.step,
      summary: entry.summary,
      confidence: entry.confidence ?? 0,
      durationMs: Math.round(entry.durationMs ?? 0),
      at: timestampNow(),
    }),
  );
}

export function addDataField(packet: Packet, field: { key: string; value: JsonValue; type: string; source: string }): void {
  contentOf(packet).dataFields.push(create(DataFieldSchema, { ...field, value: toValue(field.value) }));
}

/**
 * The data field the executor appends for each call (seed 000 §5.2): tool, params, success,
 * output, error. It is the only copy of a tool's output in the packet (issue 19).
 */
export const TOOL_RESULT_FIELD = "tool_result";

/** The output of the packet's latest call (its last `TOOL_RESULT_FIELD`), or undefined before any call or when it had none. */
export function latestToolOutput(packet: Packet): JsonValue | undefined {
  const fields = packet.content?.dataFields ?? [];
  for (let i = fields.length - 1; i >= 0; i--) {
    if (fields[i]!.key !== TOOL_RESULT_FIELD) continue;
    const result = fromValue(fields[i]!.value);
    return result !== null && typeof result === "object" && !Array.isArray(result) ? result["output"] : undefined;
  }
  return undefined;
}

/**
 * Ends the packet: the state it finished in, and why, in words a person can act on
 * (docs/packet-outcomes.md lists the outcomes and their reasons), followed by each outage a
 * stage's fallback stood in for (`addFallback`).
 */
export function finish(packet: Packet, state: Packet_State, reason: string): Packet {
  packet.state = state;
  packet.stateReason = withFallbacks(reason, packet.fallbacks);
  if (packet.header) packet.header.updatedAt = timestampNow();
  return packet;
}

export function isFinal(state: Packet_State): boolean {
  return (
    state === Packet_State.COMPLETED ||
    state === Packet_State.FAILED ||
    state === Packet_State.AWAITING_APPROVAL ||
    state === Packet_State.AWAITING_USER
  );
}

