import Fastify, { LogController } from "fastify";
import type { FastifyBaseLogger, FastifyReply, FastifyServerOptions } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { Type, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { JsonValue } from "@bufbuild/protobuf";
import {
  AddExamplesResponseSchema,
  FeedbackResponseSchema,
  ListServersResponseSchema,
  ListToolsResponseSchema,
  PacketSchema,
  RegisterServerResponseSchema,
  RouteResponseSchema,
  SubmitPacketResponseSchema,
} from "@switchyard/packet";
import type { DescMessage } from "@bufbuild/protobuf";
import type { Packet } from "@switchyard/packet";
import { processMetrics } from "@switchyard/telemetry";
import type { Authenticator } from "./auth.js";
import { GatewayError } from "./deps.js";
import type { GatewayDeps } from "./deps.js";
import { errorBody, ErrorBodySchema, httpErrorOf, RETRY_AFTER_SECONDS } from "./errors.js";
import { guardApi, guardLoopbackHost } from "./http-guard.js";
import type { RateLimitSettings } from "./http-guard.js";
import { acceptedJson, listToolsJson, messageJson, packetJson, routeResponseJson } from "./json.js";
import { protoJsonSchemas, protoSchemaRef } from "./proto-json-schema.js";
import { requestSchemas, toCallInput, toFeedbackInput, toRouteInput, toSubmitInput } from "./requests.js";
import type { GatewayLimits } from "./requests.js";
import { DEFAULT_MCP_OPTIONS, mcpDoor } from "./mcp-door.js";
import type { McpDoorOptions } from "./mcp-door.js";
import { DEFAULT_PROXY_SETTINGS, openAiProxy } from "./openai-proxy.js";
import type { ProxySettings } from "./openai-proxy.js";
import { serverRoutes } from "./server-routes.js";
import { toolRoutes } from "./tool-routes.js";
import { answerAfterUnreadBody } from "./unread-body.js";

export interface AppOptions extends GatewayLimits {
  /** Who may call the API, and as which tenant. */
  auth: Authenticator;
  /** Requests per tenant per window. @default unlimited */
  rateLimit?: RateLimitSettings;
  /** Fastify's logger option (`true`, pino options, …). @default false */
  logger?: FastifyServerOptions["logger"];
  /** A ready pino-compatible logger instead of `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** The gateway listens on loopback only: requests for other Host names are refused (DNS rebinding). @default false */
  loopbackOnly?: boolean;
  /** The MCP door's settings. @default DEFAULT_MCP_OPTIONS */
  mcp?: McpDoorOptions;
  /** The OpenAI-compatible proxy's upstream and trimming. @default DEFAULT_PROXY_SETTINGS */
  proxy?: ProxySettings;
}

/** The messages whose JSON the API returns; their schemas become OpenAPI components. */
const RESPONSE_MESSAGES: DescMessage[] = [
  PacketSchema,
  SubmitPacketResponseSchema,
  RouteResponseSchema,
  ListToolsResponseSchema,
  FeedbackResponseSchema,
  AddExamplesResponseSchema,
  RegisterServerResponseSchema,
  ListServersResponseSchema,
];

/** A response documented by a generated message schema; the body itself comes from protobuf-es `toJson`. */
function protoResponse(desc: DescMessage, description: string) {
  return Type.Unsafe<JsonValue>({ ...protoSchemaRef(desc), description });
}

function errorResponse(description: string) {
  return Type.Unsafe<JsonValue>({ $ref: "Error#", description });
}

/** Probes and scrapes, which come every few seconds and say nothing worth a log line. */
const UNLOGGED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * The HTTP API. front-doors.ts listens on it; tests call `app.inject()`. Bodies are
 * validated by the TypeBox schemas in requests.ts, which also make the OpenAPI
 * document served at /docs/json (Swagger UI at /docs).
 */
export function buildApp(deps: GatewayDeps, opts: AppOptions) {
  const app = Fastify({
    bodyLimit: opts.bodyLimitBytes,
    // One access line per API request (the onResponse hook below), instead of fastify's
    // two, and none for probes and scrapes: at thousands of requests a second the log
    // writes were a large share of the gateway's CPU.
    logController: new LogController({ disableRequestLogging: true }),
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger ?? false }),
  }).withTypeProvider<TypeBoxTypeProvider>();

  answerAfterUnreadBody(app);
  if (opts.loopbackOnly) guardLoopbackHost(app);
  app.addHook("onResponse", async (request, reply) => {
    if (UNLOGGED_PATHS.has(request.url)) return;
    request.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode, responseTimeMs: reply.elapsedTime }, "request completed");
  });

  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  // Responses are already proto3 JSON from protobuf-es; their schemas only document them.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // JSON only: without this fastify parses text/plain bodies into strings.
  app.removeContentTypeParser("text/plain");

  for (const schema of protoJsonSchemas(RESPONSE_MESSAGES)) app.addSchema(schema);
  app.addSchema({ ...ErrorBodySchema, $id: "Error" });

  app.setErrorHandler((error, request, reply) => {
    const body = httpErrorOf(error);
    if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
    // NATS away, or too many packets in flight: worth trying again soon (the rate limiter sets its own).
    if ((body.statusCode === 503 || body.statusCode === 429) && !reply.hasHeader("retry-after")) {
      void reply.header("retry-after", String(RETRY_AFTER_SECONDS));
    }
    return reply.code(body.statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(404, `Route ${request.method}:${request.url} not found`)),
  );

  void app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Switchyard",
        description:
          "A tool router for LLM agents. Route only (`POST /v1/route`) or run the full packet (`POST /v1/packets`). " +
          "The same API is served over gRPC (`switchyard.v1.Router`).",
        version: "v1",
      },
      tags: [
        { name: "route", description: "Which tools should this turn see" },
        { name: "packets", description: "The full flow: intent, route, select, review, execute, reinject" },
        { name: "tools", description: "The tool catalog" },
        { name: "servers", description: "MCP servers registered at run time (admin keys)" },
        { name: "health", description: "Probes" },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            description: "An API key from API_KEYS; it names the caller's tenant. Missing or wrong: 401. Over the rate limit: 429",
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transformObject: (document) => {
      if (!("openapiObject" in document)) return document.swaggerObject;
      // @fastify/swagger marks every request body required; the deny body is optional (preValidation supplies {}).
      const deny = document.openapiObject.paths?.["/v1/packets/{packetId}/deny"]?.post;
      if (deny?.requestBody && "content" in deny.requestBody) deny.requestBody.required = false;
      return document.openapiObject;
    },
    // Components are named after the schemas' $id ("switchyard.v1.Packet", "Error") instead of def-0, def-1, ….
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`),
    },
  });
  void app.register(swaggerUi, { routePrefix: "/docs" });
  void app.register(routes(deps, opts));
  void app.register(probes(deps));
  return app;
}

export type GatewayApp = ReturnType<typeof buildApp>;

/** The finished packet, or 202 with its id and where to poll it. */
function submitted(reply: FastifyReply, { packet, finished }: { packet: Packet; finished: boolean }) {
  if (finished) return packetJson(packet);
  const packetId = packet.header?.packetId ?? "";
  return reply.code(202).header("location", `/v1/packets/${encodeURIComponent(packetId)}`).send(acceptedJson(packetId));
}

/** The API, behind API keys and the rate limit, in its own context so the guard covers these routes only. */
function routes(deps: GatewayDeps, opts: AppOptions): FastifyPluginAsyncTypebox {
  const schemas = requestSchemas(opts);
  const notFound = (packetId: string) => new GatewayError("not_found", `packet ${packetId} not found`);

  return async (app) => {
    await guardApi(app, opts.auth, opts.rateLimit ?? { max: 0, windowMs: 1 });
    await app.register(toolRoutes(deps, opts));
    await app.register(serverRoutes(deps));
    await app.register(mcpDoor(deps, opts.mcp ?? DEFAULT_MCP_OPTIONS));
    await app.register(openAiProxy(deps, opts.proxy ?? DEFAULT_PROXY_SETTINGS));

    app.post(
      "/v1/packets",
      {
        schema: {
          operationId: "submitPacket",
          summary: "Run a request through the full packet flow",
          description:
            "Answers 200 with the finished packet (completed, failed, or waiting for approval or the user), " +
            "or 202 with the packet id when it is still running after the wait timeout or `wait` is false.",
          tags: ["packets"],
          body: schemas.submitPacket,
          response: {
            200: protoResponse(PacketSchema, "The finished packet"),
            202: protoResponse(SubmitPacketResponseSchema, "Still running; poll the Location header"),
            400: errorResponse("The request is invalid"),
            413: errorResponse("The body is larger than the limit"),
            415: errorResponse("The body is not JSON"),
            503: errorResponse("The fleet cannot take requests now"),
          },
        },
      },
      async (request, reply) => submitted(reply, await deps.submitPacket(toSubmitInput(request.tenant, request.body))),
    );

    app.post(
      "/v1/calls",
      {
        schema: {
          operationId: "submitCall",
          summary: "Review and run a tool call the caller chose",
          description:
            "The call starts a packet at the review stage: the tool's schema, side-effect policy and approvals apply as to any " +
            "packet (a write answers AWAITING_APPROVAL; approve it with POST /v1/packets/{id}/approve). 200 with the finished " +
            "packet, or 202 with its id when it is still running.",
          tags: ["packets"],
          body: schemas.submitCall,
          response: {
            200: protoResponse(PacketSchema, "The finished packet"),
            202: protoResponse(SubmitPacketResponseSchema, "Still running; poll the Location header"),
            400: errorResponse("The request is invalid, or a bare tool name two servers share"),
            404: errorResponse("No tool of yours has this name"),
            503: errorResponse("The fleet cannot take requests now"),
          },
        },
      },
      async (request, reply) => submitted(reply, await deps.submitCall(toCallInput(request.tenant, request.body))),
    );

    app.get(
      "/v1/packets/:packetId",
      {
        schema: {
          operationId: "getPacket",
          summary: "A packet, finished or in flight",
          tags: ["packets"],
          params: schemas.packetRef,
          response: { 200: protoResponse(PacketSchema, "The packet"), 404: errorResponse("No packet of yours has this id") },
        },
      },
      async (request) => {
        const packet = await deps.getPacket(request.tenant, request.params.packetId);
        if (!packet) throw notFound(request.params.packetId);
        return packetJson(packet);
      },
    );

    app.post(
      "/v1/packets/:packetId/approve",
      {
        schema: {
          operationId: "approvePacket",
          summary: "Approve the tool call a packet is waiting on; the packet resumes",
          description:
            "The approval is bound to the exact call (tool and arguments) it was asked for: it is refused (409) when it has expired " +
            "(the packet then ends), when the packet's call changed since, or when `callHash` names another call.",
          tags: ["packets"],
          params: schemas.packetRef,
          body: schemas.approve,
          response: {
            200: protoResponse(PacketSchema, "The packet after approval"),
            404: errorResponse("No packet has this id"),
            409: errorResponse("The packet is not awaiting approval, or the approval cannot be given"),
          },
        },
        // The body is optional: a bare POST approves the pending call.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => packetJson(await deps.approvePacket(request.tenant, request.params.packetId, request.body.callHash)),
    );

    app.post(
      "/v1/packets/:packetId/deny",
      {
        schema: {
          operationId: "denyPacket",
          summary: "Deny the tool call a packet is waiting on; the packet ends",
          tags: ["packets"],
          params: schemas.packetRef,
          body: schemas.deny,
          response: {
            200: protoResponse(PacketSchema, "The packet after the denial"),
            404: errorResponse("No packet has this id"),
            409: errorResponse("The packet is not awaiting approval"),
          },
        },
        // The body is optional: a bare POST denies without a reason.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request) => packetJson(await deps.denyPacket(request.tenant, request.params.packetId, request.body.reason ?? "")),
    );

    app.post(
      "/v1/packets/:packetId/feedback",
      {
        schema: {
          operationId: "feedback",
          summary: "Say whether a finished packet's tool was the right one; the router learns from it",
          description:
            "With `correct: false` the packet's query stops being an example of the packet's tool (and is not learned " +
            "for it again); with `tool` it becomes an example of that tool. `correct: true` changes nothing.",
          tags: ["packets"],
          params: schemas.packetRef,
          body: schemas.feedback,
          response: {
            200: protoResponse(FeedbackResponseSchema, "What changed"),
            400: errorResponse("The request is invalid"),
            404: errorResponse("No packet has this id, or no tool that name"),
            409: errorResponse("The packet is still running"),
            503: errorResponse("No embedding-router answered"),
          },
        },
      },
      async (request) =>
        messageJson(FeedbackResponseSchema, await deps.feedback(request.tenant, toFeedbackInput(request.params.packetId, request.body))),
    );

    app.post(
      "/v1/route",
      {
        schema: {
          operationId: "route",
          summary: "Which tools should this turn see? Executes nothing",
          tags: ["route"],
          body: schemas.route,
          response: {
            200: protoResponse(RouteResponseSchema, "Core tools and the best matches, with scores"),
            400: errorResponse("The request is invalid"),
          },
        },
      },
      async (request) => routeResponseJson(await deps.route(request.tenant, toRouteInput(request.body))),
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
          tags: ["tools"],
          params: schemas.toolRef,
          body: schemas.addExamples,
          response: {
            200: protoResponse(AddExamplesResponseSchema, "The tool's stored examples after the change"),
            400: errorResponse("The request is invalid"),
            404: errorResponse("No tool has this name"),
            503: errorResponse("No embedding-router answered"),
          },
        },
      },
      async (request) =>
        messageJson(AddExamplesResponseSchema, await deps.addExamples(request.tenant, request.params.name, request.body.examples)),
    );
  };
}

/**
 * Probes and metrics, open without a key: orchestrators and Prometheus call them
 * without credentials, and they say nothing about any tenant's packets or tools.
 * (The OpenAPI document at /docs is open too: it describes the API, holds no data.)
 */
function probes(deps: GatewayDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const probeBody = Type.Object({ status: Type.String() });
    app.get(
      "/healthz",
      {
        schema: {
          operationId: "healthz",
          summary: "Liveness: 200 while the process runs",
          tags: ["health"],
          security: [],
          response: { 200: probeBody },
        },
      },
      async () => ({ status: "ok" }),
    );

    app.get(
      "/readyz",
      {
        schema: {
          operationId: "readyz",
          summary: "Readiness: 200 when the gateway can take requests",
          tags: ["health"],
          security: [],
          response: { 200: probeBody, 503: errorResponse("Not ready") },
        },
      },
      async (_request, reply) =>
        deps.isReady() ? { status: "ready" } : reply.code(503).send(errorBody(503, "not ready")),
    );

    // Prometheus scrapes this; it is not part of the API, so not in the OpenAPI document.
    app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
      const { contentType, body } = await processMetrics().exposition();
      return reply.type(contentType).send(body);
    });
  };
}
