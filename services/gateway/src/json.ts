import { create, toJson } from "@bufbuild/protobuf";
import type { DescMessage, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { ListToolsResponseSchema, packetToJson, SubmitPacketResponseSchema } from "@switchyard/packet";
import type { ListToolsResponse, Packet, SubmitPacketResponse, ToolDefinition } from "@switchyard/packet";

/**
 * The API's answers as protobuf messages (what gRPC sends) and in the proto3
 * JSON mapping (what HTTP sends), so both doors answer with the same message.
 * JSON emits every field, defaults included, so clients need no defaults table.
 */

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export function submitResponse(packet: Packet, finished: boolean): SubmitPacketResponse {
  return create(SubmitPacketResponseSchema, { packetId: packet.header?.packetId ?? "", finished, packet });
}

/** The 202 body: the packet's id only, since the packet is still on its way. */
export function acceptedJson(packetId: string): JsonValue {
  return toJson(SubmitPacketResponseSchema, create(SubmitPacketResponseSchema, { packetId, finished: false }), JSON_OPTIONS);
}

export function packetJson(packet: Packet): JsonValue {
  return packetToJson(packet);
}


export function listToolsResponse(tools: ToolDefinition[]): ListToolsResponse {
  return create(ListToolsResponseSchema, { tools });
}

/** Any response message in the proto3 JSON mapping, every field present. */
export function messageJson<Desc extends DescMessage>(desc: Desc, message: MessageShape<Desc>): JsonValue {
  return toJson(desc, message, JSON_OPTIONS);
}

export function listToolsJson(tools: ToolDefinition[]): JsonValue {
  return toJson(ListToolsResponseSchema, listToolsResponse(tools), JSON_OPTIONS);
}
