/**
 * Request examples for the OpenAPI document at /docs: each route's example is written once,
 * beside its schema, and Swagger UI fills "Try it out" with it.
 */
import { Type } from "@fastify/type-provider-typebox";
import type { Static, TSchema } from "@fastify/type-provider-typebox";
import type { SwaggerTransform } from "@fastify/swagger";
import type { JsonObject } from "@bufbuild/protobuf";
import type { JsonSchemaObject } from "./proto-json-schema.js";

/**
 * `schema` with `example` as the request it documents: @fastify/swagger makes a body schema's
 * `examples` the media type's `example`, a path parameter's its `example`. Validation is the
 * same: `examples` is an annotation, no constraint.
 */
export function withExample<T extends TSchema>(schema: T, example: Static<T> & JsonObject) {
  return Type.Unsafe<Static<T>>({ ...schema, examples: [example] });
}

/**
 * For a route that reads its body itself (the MCP door answers a body that is not JSON-RPC in
 * JSON-RPC's words): its request body in the OpenAPI document only, as fastify does not validate
 * with it. Set as the route's `config.swaggerTransform`.
 */
export function documentedBody(body: JsonSchemaObject): SwaggerTransform {
  return ({ schema, url }) => ({ schema: { ...schema, body }, url });
}
