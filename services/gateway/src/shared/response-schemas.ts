import { Type } from "@fastify/type-provider-typebox";
import type { DescMessage, JsonValue } from "@bufbuild/protobuf";
import { protoSchemaRef } from "./proto-json-schema.js";

/** A response documented by a generated message schema; the body itself comes from protobuf-es `toJson`. */
export function protoResponse(desc: DescMessage, description: string) {
  return Type.Unsafe<JsonValue>({ ...protoSchemaRef(desc), description });
}

/** An error response: the `Error` schema (errors.ts) with what it means on this route. */
export function errorResponse(description: string) {
  return Type.Unsafe<JsonValue>({ $ref: "Error#", description });
}
