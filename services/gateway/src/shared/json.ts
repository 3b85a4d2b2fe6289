import { create, toJson } from "@bufbuild/protobuf";
import type { DescMessage, JsonObject, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { ListToolsResponseSchema, packetToJson, RouteResponseSchema, SubmitPacketResponseSchema, ToolDefinitionSchema } from "@switchyard/packet";
import type { ListToolsResponse, Packet, RouteResponse, SubmitPacketResponse, ToolDefinition } from "@switchyard/packet";

/**
 * The API's answers as protobuf messages (what gRPC sends) and in the proto3
 * JSON mapping (what HTTP sends), so both doors answer with the same message.
 * JSON emits every field, defaults included, so clients need no defaults table.
 */

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

/** gRPC's answer to a submission; `approvalUrl`: the console's page for a packet waiting for approval, else "". */
export function submitResponse(packet: Packet, finished: boolean, approvalUrl = ""): SubmitPacketResponse {
  return create(SubmitPacketResponseSchema, { packetId: packet.header?.packetId ?? "", finished, packet, approvalUrl });
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

/**
 * Each routed tool's JSON, made once: a gateway's route answers share their definitions
 * (packet's RouteResponseReader), which nobody changes, and a definition with its input
 * schema was most of a route's JSON to make.
 */
const toolJsons = new WeakMap<ToolDefinition, JsonValue>();

/** A route's answer as messageJson makes it, each candidate's tool from toolJsons. */
export function routeJson(response: RouteResponse): JsonValue {
  const bare = create(RouteResponseSchema, {
    warnings: response.warnings,
    need: response.need,
    candidates: response.candidates.map(({ score, source, exampleId, matchedWords, example }) => ({ score, source, exampleId, matchedWords, example })),
  });
  const json = messageJson(RouteResponseSchema, bare) as { candidates: JsonObject[] };
  json.candidates = json.candidates.map((candidate, i) => {
    const tool = response.candidates[i]!.tool;
    return tool ? { tool: toolJson(tool), ...candidate } : candidate;
  });
  return json;
}

function toolJson(tool: ToolDefinition): JsonValue {
  let json = toolJsons.get(tool);
  if (json === undefined) {
    json = messageJson(ToolDefinitionSchema, tool);
    toolJsons.set(tool, json);
  }
  return json;
}

export function listToolsJson(tools: ToolDefinition[]): JsonValue {
  return toJson(ListToolsResponseSchema, listToolsResponse(tools), JSON_OPTIONS);
}
