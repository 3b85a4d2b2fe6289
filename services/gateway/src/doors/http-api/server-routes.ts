import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsyncTypebox, Static } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { serverUrlPolicy, serverUrlProblem } from "@switchyard/config";
import type { ServerUrlPolicy } from "@switchyard/config";
import {
  ListServersResponseSchema,
  RegisteredServer_Trust,
  RegisteredServerSchema,
  RegisterServerResponseSchema,
  SERVER_NAME_PATTERN,
  TENANT_PATTERN,
} from "@switchyard/packet";
import type { RegisteredServer } from "@switchyard/packet";
import type { Authenticator } from "../../shared/auth.js";
import { GatewayError } from "../../shared/deps.js";
import type { GatewayDeps } from "../../shared/deps.js";
import { messageJson } from "../../shared/json.js";
import { withExample } from "../../shared/openapi.js";
import { errorResponse, protoResponse } from "../../shared/response-schemas.js";
import { MAX_GROUP_CHARS } from "../../shared/requests.js";

/**
 * MCP servers that arrive at run time (seed 003's discovered tools): an admin registers a
 * streamable HTTP server, every executor runs it and lists its tools into the catalog, the
 * router routes them within seconds; quarantine rules apply as for the servers of
 * switchyard.yaml, and `trust: review` holds every new tool until it is approved.
 */

const registration = Type.Object(
  {
    name: Type.String({ pattern: SERVER_NAME_PATTERN.source, description: 'The first half of its tools\' names, "<name>.<tool>": letters, digits, "_" and "-"' }),
    url: Type.String({
      maxLength: 2048,
      pattern: "^https?://\\S+$",
      description:
        "Its MCP streamable HTTP endpoint, e.g. https://tools.example.com/mcp: https, on no private, link-local, loopback or metadata address " +
        "unless SERVER_URL_ALLOW lets the host through (then http too); in local mode also http to loopback",
    }),
    pool: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_GROUP_CHARS, description: "The pool (a group of related tools) of its tools; its name when absent" })),
    domains: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_GROUP_CHARS }), { maxItems: 32, uniqueItems: true, description: "Subject domains of its tools, e.g. files, web" }),
    ),
    core: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 256, uniqueItems: true, description: "Its tools always offered, by the names the server lists them under" }),
    ),
    tenants: Type.Optional(
      Type.Array(Type.String({ pattern: TENANT_PATTERN.source }), { maxItems: 256, uniqueItems: true, description: "The tenants that may see and call its tools; absent: every tenant" }),
    ),
    trust: Type.Optional(
      Type.Union([Type.Literal("first-use"), Type.Literal("review")], {
        description: "first-use (default): tools pinned as first served, as for switchyard.yaml; review: each tool quarantined until approved",
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: "^[A-Za-z0-9-]{1,64}$" }), Type.String({ maxLength: 4096 }), {
        maxProperties: 32,
        description: "Sent with every request to the server (its own Authorization); never answered back",
      }),
    ),
  },
  { additionalProperties: false },
);
const serverRef = Type.Object({ name: Type.String({ pattern: SERVER_NAME_PATTERN.source, examples: ["search"] }) }, { additionalProperties: false });

const errors = {
  400: errorResponse("The body is invalid; `field` names the part at fault"),
  403: errorResponse("The key is not an admin's (ADMIN_API_KEYS)"),
  503: errorResponse("NATS is not reachable"),
};

export interface ServerRouteOptions {
  /** Local mode (no keys required) may register servers on loopback over http. */
  auth: Pick<Authenticator, "required">;
  /** SERVER_URL_ALLOW, parsed. @default nothing let through */
  serverUrls?: ServerUrlPolicy;
}

export function serverRoutes(deps: Pick<GatewayDeps, "registerServer" | "listServers" | "removeServer">, opts: ServerRouteOptions): FastifyPluginAsyncTypebox {
  const policy = opts.serverUrls ?? serverUrlPolicy("");
  return async (app) => {
    app.post(
      "/v1/servers",
      {
        schema: {
          operationId: "registerServer",
          summary: "Register an MCP server (admin keys only)",
          description:
            "Every executor runs the server and lists its tools into the catalog. Answers 201 with the tools listed while the request " +
            "waited (WAIT_TIMEOUT_MS), or 202 when none were: the executors could not reach it yet (their logs say why); delete and register it again to retry.",
          tags: ["servers"],
          body: withExample(registration, { name: "search", url: "https://search.example.com/mcp", domains: ["web"], trust: "review" }),
          response: {
            201: protoResponse(RegisterServerResponseSchema, "Registered; its tools as listed"),
            202: protoResponse(RegisterServerResponseSchema, "Registered; no tools listed yet"),
            ...errors,
            409: errorResponse("The name is registered already, or belongs to a server of switchyard.yaml"),
          },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        // The executors check again, with the addresses the host resolves to, before they connect.
        const problem = serverUrlProblem(request.body.url, policy, { localMode: !opts.auth.required });
        if (problem) throw new GatewayError("invalid", `url ${problem}`, "url");
        const { server, tools } = await deps.registerServer(registeredServer(request.body, request.tenant));
        const body = messageJson(RegisterServerResponseSchema, create(RegisterServerResponseSchema, { server: redacted(server), tools }));
        return reply.code(tools.length > 0 ? 201 : 202).send(body);
      },
    );

    app.get(
      "/v1/servers",
      {
        schema: {
          operationId: "listServers",
          summary: "The MCP servers registered at run time (admin keys only)",
          tags: ["servers"],
          response: { 200: protoResponse(ListServersResponseSchema, "Header values redacted"), ...errors },
        },
      },
      async (request) => {
        requireAdmin(request);
        const servers = (await deps.listServers()).map(redacted);
        return messageJson(ListServersResponseSchema, create(ListServersResponseSchema, { servers }));
      },
    );

    app.delete(
      "/v1/servers/:name",
      {
        schema: {
          operationId: "removeServer",
          summary: "Unregister an MCP server (admin keys only): the executors stop it and retire its tools",
          tags: ["servers"],
          params: serverRef,
          response: {
            204: Type.Null({ description: "Unregistered" }),
            ...errors,
            404: errorResponse("No server of that name is registered"),
          },
        },
      },
      async (request, reply) => {
        requireAdmin(request);
        await deps.removeServer(request.params.name);
        return reply.code(204).send(null);
      },
    );
  };
}

function requireAdmin(request: FastifyRequest): void {
  if (!request.admin) throw new GatewayError("forbidden", "registering MCP servers needs an admin's API key (ADMIN_API_KEYS)");
}

/** The stored record of a registration request. */
function registeredServer(body: Static<typeof registration>, tenant: string): RegisteredServer {
  return create(RegisteredServerSchema, {
    name: body.name,
    url: body.url,
    pool: body.pool ?? "",
    domains: body.domains ?? [],
    core: body.core ?? [],
    tenants: body.tenants ?? [],
    trust: body.trust === "review" ? RegisteredServer_Trust.REVIEW : RegisteredServer_Trust.FIRST_USE,
    headers: body.headers ?? {},
    registeredBy: tenant,
    registeredAt: timestampNow(),
  });
}

/** The record as answered: header values (credentials, often) replaced. */
function redacted(server: RegisteredServer): RegisteredServer {
  const headers = Object.fromEntries(Object.keys(server.headers).map((name) => [name, "redacted"]));
  return create(RegisteredServerSchema, { ...server, headers });
}
