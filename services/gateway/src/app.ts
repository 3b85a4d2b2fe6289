import cookie from "@fastify/cookie";
import Fastify, { LogController } from "fastify";
import type { FastifyBaseLogger, FastifyServerOptions } from "fastify";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { DescMessage } from "@bufbuild/protobuf";
import {
  AddExamplesResponseSchema,
  FeedbackResponseSchema,
  FleetStatusSchema,
  ListExamplesResponseSchema,
  ListPacketsResponseSchema,
  ListServersResponseSchema,
  ListToolsResponseSchema,
  PacketSchema,
  RegisterServerResponseSchema,
  RouteResponseSchema,
  SubmitPacketResponseSchema,
  ToolExampleSchema,
} from "@switchyard/packet";
import type { ServerUrlPolicy } from "@switchyard/config";
import type { Authenticator } from "./shared/auth.js";
import { boundedJsonParser } from "./shared/bounded-json.js";
import { consoleLinks, DEFAULT_LINKS } from "./shared/console-links.js";
import type { ConsoleLinks } from "./shared/console-links.js";
import { consoleRoutes } from "./doors/console/console-routes.js";
import { GatewayError } from "./shared/deps.js";
import type { GatewayDeps } from "./shared/deps.js";
import { asksToRetry, errorBody, ErrorBodySchema, httpErrorOf, RETRY_AFTER_SECONDS } from "./shared/errors.js";
import { guardApi, guardLoopbackHost } from "./shared/http-guard.js";
import type { RateLimitSettings } from "./shared/http-guard.js";
import { protoJsonSchemas } from "./shared/proto-json-schema.js";
import type { GatewayLimits } from "./shared/requests.js";
import { DEFAULT_MCP_OPTIONS, mcpDoor } from "./doors/mcp/mcp-door.js";
import type { McpDoorOptions } from "./doors/mcp/mcp-door.js";
import { anthropicMessages } from "./doors/anthropic-messages/anthropic-messages.js";
import { DEFAULT_PROXY_SETTINGS } from "./shared/model-api/model-upstream.js";
import type { ProxySettings } from "./shared/model-api/model-upstream.js";
import { openAiProxy } from "./doors/openai-chat/openai-proxy.js";
import { openAiResponses } from "./doors/responses/openai-responses.js";
import { fleetRoutes } from "./doors/http-api/fleet-routes.js";
import { packetListRoutes } from "./doors/http-api/packet-list-routes.js";
import { packetRoutes } from "./doors/http-api/packet-routes.js";
import { probeRoutes } from "./doors/http-api/probe-routes.js";
import { serverRoutes } from "./doors/http-api/server-routes.js";
import { toolRoutes } from "./doors/http-api/tool-routes.js";
import { answerAfterUnreadBody } from "./shared/unread-body.js";

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
  /** The model-API doors' upstreams and trimming. @default DEFAULT_PROXY_SETTINGS */
  proxy?: ProxySettings;
  /** SERVER_URL_ALLOW: where registered MCP servers may be beyond public https hosts. @default nothing let through */
  serverUrls?: ServerUrlPolicy;
  /** The console at /console: its built files and JAEGER_UI_URL. @default not built, no Jaeger */
  console?: { assetsDir?: string; jaegerUiUrl?: string };
  /** PUBLIC_URL, where answers link the console (approvalUrl); read when an answer is made. @default http://127.0.0.1:<HTTP_PORT default> */
  publicUrl?: () => string;
}

/** The messages whose JSON the API returns; their schemas become OpenAPI components. */
const RESPONSE_MESSAGES: DescMessage[] = [
  PacketSchema,
  SubmitPacketResponseSchema,
  RouteResponseSchema,
  ListToolsResponseSchema,
  FeedbackResponseSchema,
  AddExamplesResponseSchema,
  ListExamplesResponseSchema,
  ToolExampleSchema,
  RegisterServerResponseSchema,
  ListServersResponseSchema,
  ListPacketsResponseSchema,
  FleetStatusSchema,
];

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
  // Every door's JSON checked once: UTF-8, well-formed text and bounded nesting (bounded-json.ts).
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer" },
    boundedJsonParser(parseJson, (message, field) => new GatewayError("invalid", message, field)),
  );

  for (const schema of protoJsonSchemas(RESPONSE_MESSAGES)) app.addSchema(schema);
  app.addSchema({ ...ErrorBodySchema, $id: "Error" });

  app.setErrorHandler((error, request, reply) => {
    const body = httpErrorOf(error);
    if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
    // NATS away, or too many packets in flight: worth trying again soon (the rate limiter sets its own).
    if (asksToRetry(body.statusCode) && !reply.hasHeader("retry-after")) {
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
        { name: "health", description: "Probes, and the fleet's state for the console" },
        { name: "console", description: "The console's sign-in: the API key in an HttpOnly cookie, accepted by every /v1 route" },
        {
          name: "agent doors",
          description: "The protocols agents already speak: an MCP server, and the OpenAI and Anthropic model APIs with each request's tools trimmed to the turn",
        },
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
      // @fastify/swagger marks every request body required; these are optional (preValidation supplies {}).
      for (const path of ["/v1/packets/{packetId}/approve", "/v1/packets/{packetId}/deny"]) {
        const post = document.openapiObject.paths?.[path]?.post;
        if (post?.requestBody && "content" in post.requestBody) post.requestBody.required = false;
      }
      return document.openapiObject;
    },
    // Components are named after the schemas' $id ("switchyard.v1.Packet", "Error") instead of def-0, def-1, ….
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`),
    },
  });
  void app.register(swaggerUi, { routePrefix: "/docs" });
  void app.register(cookie);
  void app.register(consoleRoutes({ ...opts.console, auth: opts.auth, jaegerUiUrl: opts.console?.jaegerUiUrl ?? "" }), { prefix: "/console" });
  const links = opts.publicUrl ? consoleLinks(opts.publicUrl) : DEFAULT_LINKS;
  void app.register(api(deps, opts, links));
  void app.register(probeRoutes(deps));
  return app;
}

export type GatewayApp = ReturnType<typeof buildApp>;

/** The API, behind API keys and the rate limit, in its own context so the guard covers these routes only. */
function api(deps: GatewayDeps, opts: AppOptions, links: ConsoleLinks): FastifyPluginAsyncTypebox {
  return async (app) => {
    await guardApi(app, opts.auth, opts.rateLimit ?? { max: 0, windowMs: 1 });
    await app.register(packetRoutes(deps, opts, links));
    await app.register(packetListRoutes(deps, opts));
    await app.register(fleetRoutes(deps));
    await app.register(toolRoutes(deps, opts));
    await app.register(serverRoutes(deps, opts));
    await app.register(mcpDoor(deps, opts.mcp ?? DEFAULT_MCP_OPTIONS, opts, links));
    await app.register(openAiProxy(deps, opts.proxy ?? DEFAULT_PROXY_SETTINGS, opts));
    await app.register(anthropicMessages(deps, opts.proxy ?? DEFAULT_PROXY_SETTINGS, opts));
    await app.register(openAiResponses(deps, opts.proxy ?? DEFAULT_PROXY_SETTINGS, opts));
  };
}
