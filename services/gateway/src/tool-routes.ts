import { Type } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { JsonValue } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { GatewayDeps } from "./deps.js";
import { messageJson } from "./json.js";
import { protoSchemaRef } from "./proto-json-schema.js";
import { requestSchemas } from "./requests.js";
import type { GatewayLimits } from "./requests.js";

/**
 * Tool security over HTTP: `POST /v1/tools/{name}/approve` pins the definition the tool's
 * MCP server serves now and lifts its quarantine (a rug pull, or hidden instructions in its
 * description); the executor does the work (services/executor/src/tool-approval.ts).
 */
export function toolRoutes(deps: Pick<GatewayDeps, "approveTool">, limits: GatewayLimits): FastifyPluginAsyncTypebox {
  const { toolRef } = requestSchemas(limits);
  return async (app) => {
    app.post(
      "/v1/tools/:name/approve",
      {
        schema: {
          operationId: "approveTool",
          summary: "Approve a tool's current definition: it is pinned and leaves quarantine",
          description:
            "A catalog tool whose definition changed on its MCP server since it was pinned, or whose description holds " +
            "hidden instructions, is quarantined: neither routed nor called. Approving pins the definition served now.",
          tags: ["tools"],
          params: toolRef,
          response: {
            200: Type.Unsafe<JsonValue>({ ...protoSchemaRef(ToolDefinitionSchema), description: "The catalog entry, pinned" }),
            404: Type.Unsafe<JsonValue>({ $ref: "Error#", description: "No MCP tool of the caller's tenant (or shared) has this name" }),
            503: Type.Unsafe<JsonValue>({ $ref: "Error#", description: "No executor running the tool's server answered" }),
          },
        },
      },
      async (request) => messageJson(ToolDefinitionSchema, await deps.approveTool(request.tenant, request.params.name)),
    );
  };
}
