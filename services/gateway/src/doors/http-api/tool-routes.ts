import { create } from "@bufbuild/protobuf";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  AddExamplesRequestSchema,
  AddExamplesResponseSchema,
  DeleteExampleRequestSchema,
  ListExamplesRequestSchema,
  ListExamplesResponseSchema,
  ListToolsResponseSchema,
  RouteRequestSchema,
  RouteResponseSchema,
  ToolDefinitionSchema,
  ToolExampleSchema,
} from "@switchyard/packet";
import type { GatewayDeps } from "../../shared/deps.js";
import { listToolsJson, messageJson, routeJson } from "../../shared/json.js";
import { protoRequest, requestSchemas } from "../../shared/requests.js";
import type { GatewayLimits } from "../../shared/requests.js";
import { withExample } from "../../shared/openapi.js";
import { errorResponse, protoResponse } from "../../shared/response-schemas.js";

/**
 * Tools over HTTP: which tools a turn should see (`POST /v1/route`), the catalog, examples
 * added by hand, and tool security: `POST /v1/tools/{name}/approve` pins the definition the tool's
 * MCP server serves now and lifts its quarantine (a rug pull, or hidden instructions in its
 * description); the executor does the work (services/executor/src/tool-approval.ts).
 */
export function toolRoutes(
  deps: Pick<GatewayDeps, "route" | "listTools" | "addExamples" | "listExamples" | "deleteExample" | "approveTool">,
  limits: GatewayLimits,
): FastifyPluginAsyncTypebox {
  const schemas = requestSchemas(limits);
  return async (app) => {
    app.post(
      "/v1/route",
      {
        schema: {
          operationId: "route",
          summary: "Which tools should this turn see? Executes nothing",
          tags: ["route"],
          body: withExample(schemas.route, { message: "list the files in notes", topK: 3 }),
          response: {
            200: protoResponse(RouteResponseSchema, "Core tools and the best matches, with scores"),
            400: errorResponse("The request is invalid"),
          },
        },
      },
      async (request) => routeJson(await deps.route(request.tenant, protoRequest(RouteRequestSchema, request.body))),
    );

    app.get(
      "/v1/tools",
      {
        schema: {
          operationId: "listTools",
          summary: "The tool catalog",
          tags: ["tools"],
          response: { 200: protoResponse(ListToolsResponseSchema, "Every tool the router knows") },
        },
      },
      async (request) => listToolsJson(await deps.listTools(request.tenant)),
    );

    app.post(
      "/v1/tools/:name/examples",
      {
        schema: {
          operationId: "addExamples",
          summary: "Add example requests to a tool; the router indexes them with it",
          description:
            "The examples are the caller's tenant's: they rank its requests alone and only it sees them. " +
            "With shared=true (an admin's key) they are every tenant's.",
          tags: ["tools"],
          params: schemas.toolRef,
          body: withExample(schemas.addExamples, { examples: ["how big is notes/todo.md?", "when was this file last changed?"] }),
          response: {
            200: protoResponse(AddExamplesResponseSchema, "The tool's stored examples after the change"),
            400: errorResponse("The request is invalid"),
            403: errorResponse("shared=true needs an admin's API key (ADMIN_API_KEYS)"),
            404: errorResponse("The caller's tenant has no tool of this name"),
            503: errorResponse("No embedding-router answered"),
          },
        },
      },
      async (request) =>
        messageJson(AddExamplesResponseSchema, await deps.addExamples(request, protoRequest(AddExamplesRequestSchema, { tool: request.params.name, ...request.body }))),
    );
    app.get(
      "/v1/tools/:name/examples",
      {
        schema: {
          operationId: "listExamples",
          summary: "A tool's stored examples: the shared ones and the caller's tenant's, each with its id, source and time",
          tags: ["tools"],
          params: schemas.toolRef,
          response: {
            200: protoResponse(ListExamplesResponseSchema, "The stored examples, the shared ones first"),
            404: errorResponse("The caller's tenant has no tool of this name"),
          },
        },
      },
      async (request) => messageJson(ListExamplesResponseSchema, await deps.listExamples(request, create(ListExamplesRequestSchema, { tool: request.params.name }))),
    );
    app.delete(
      "/v1/tools/:name/examples/:id",
      {
        schema: {
          operationId: "deleteExample",
          summary: "Remove one stored example; it is not learned again",
          description: "One of the caller's tenant's examples, or (with an admin's key) a shared one.",
          tags: ["tools"],
          params: schemas.exampleRef,
          response: {
            200: protoResponse(ToolExampleSchema, "The example removed"),
            400: errorResponse("The request is invalid"),
            403: errorResponse("A shared example, and the key is not an admin's (ADMIN_API_KEYS)"),
            404: errorResponse("No such tool for the caller's tenant, or no example with this id"),
          },
        },
      },
      async (request) =>
        messageJson(ToolExampleSchema, await deps.deleteExample(request, create(DeleteExampleRequestSchema, { tool: request.params.name, id: request.params.id }))),
    );
    app.post(
      "/v1/tools/:name/approve",
      {
        schema: {
          operationId: "approveTool",
          summary: "Approve a tool's current definition: it is pinned and leaves quarantine (admin keys only)",
          description:
            "A catalog tool whose definition changed on its MCP server since it was pinned, or whose description holds " +
            "hidden instructions, is quarantined: neither routed nor called. Approving pins the definition served now, " +
            "for every tenant that sees the tool, so it needs an admin's API key (ADMIN_API_KEYS; in local mode, the one user).",
          tags: ["tools"],
          params: schemas.toolRef,
          response: {
            200: protoResponse(ToolDefinitionSchema, "The catalog entry, pinned"),
            403: errorResponse("The key is not an admin's (ADMIN_API_KEYS)"),
            404: errorResponse("No MCP tool of the caller's tenant (or shared) has this name"),
            503: errorResponse("No executor running the tool's server answered"),
          },
        },
      },
      async (request) => messageJson(ToolDefinitionSchema, await deps.approveTool(request, request.params.name)),
    );
  };
}
