import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ToolDefinition } from "./gen/switchyard/v1/packet_pb.js";
import { ToolDefinitionSchema } from "./gen/switchyard/v1/packet_pb.js";
import type { RouteResponse } from "./gen/switchyard/v1/router_pb.js";
import { EncodedRouteResponseSchema, RouteResponseSchema } from "./gen/switchyard/v1/router_pb.js";

/**
 * A route's answer on the wire, written as EncodedRouteResponse (router.proto): the
 * candidates' definitions with their input schemas were most of a route's encoding and
 * decoding, though the same few tools come back again and again. Wire-identical to
 * RouteResponse, so anything reading one reads the other.
 */

/**
 * Each definition's bytes, encoded the first time it is routed. Keyed by the object:
 * the router's definitions are never changed in place (a change to a tool is a new object).
 */
const encodedTools = new WeakMap<ToolDefinition, Uint8Array>();

export function encodeRouteResponse(response: MessageInitShape<typeof RouteResponseSchema>): Uint8Array {
  return toBinary(
    EncodedRouteResponseSchema,
    create(EncodedRouteResponseSchema, {
      warnings: response.warnings ?? [],
      need: response.need,
      candidates: (response.candidates ?? []).map((c) => ({
        score: c.score ?? 0,
        source: c.source ?? 0,
        exampleId: c.exampleId ?? "",
        tool: c.tool ? encodedTool(create(ToolDefinitionSchema, c.tool)) : undefined,
        matchedWords: c.matchedWords ?? [],
        example: c.example ?? "",
      })),
    }),
  );
}

function encodedTool(tool: ToolDefinition): Uint8Array {
  let bytes = encodedTools.get(tool);
  if (bytes === undefined) {
    bytes = toBinary(ToolDefinitionSchema, tool);
    encodedTools.set(tool, bytes);
  }
  return bytes;
}

/** How many distinct definitions a reader keeps decoded by default. */
const DEFAULT_KEPT_TOOLS = 4096;

/**
 * Reads route answers, decoding each distinct definition once: the definitions it hands
 * out are shared between answers and must not be changed. Keyed by the definition's
 * bytes, so a tool that changes is a new entry; the oldest entries go first.
 */
export class RouteResponseReader {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(private readonly keep = DEFAULT_KEPT_TOOLS) {}

  read(bytes: Uint8Array): RouteResponse {
    const encoded = fromBinary(EncodedRouteResponseSchema, bytes);
    return create(RouteResponseSchema, {
      warnings: encoded.warnings,
      need: encoded.need,
      candidates: encoded.candidates.map((c) => ({
        score: c.score,
        source: c.source,
        exampleId: c.exampleId,
        tool: c.tool.length > 0 ? this.tool(c.tool) : undefined,
        matchedWords: c.matchedWords,
        example: c.example,
      })),
    });
  }

  private tool(bytes: Uint8Array): ToolDefinition {
    const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
    let tool = this.tools.get(key);
    if (tool === undefined) {
      tool = fromBinary(ToolDefinitionSchema, bytes);
      if (this.tools.size >= this.keep) this.tools.delete(this.tools.keys().next().value!);
      this.tools.set(key, tool);
    }
    return tool;
  }
}
