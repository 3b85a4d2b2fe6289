import { Type } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { readiness } from "@switchyard/runtime";
import { processMetrics } from "@switchyard/telemetry";
import type { GatewayDeps } from "../../shared/deps.js";
import { errorBody } from "../../shared/errors.js";
import { errorResponse } from "../../shared/response-schemas.js";

/**
 * Probes and metrics, open without a key: orchestrators and Prometheus call them
 * without credentials, and they say nothing about any tenant's packets or tools.
 * (The OpenAPI document at /docs is open too: it describes the API, holds no data.)
 */
export function probeRoutes(deps: Pick<GatewayDeps, "isReady" | "downDependencies">): FastifyPluginAsyncTypebox {
  return async (app) => {
    const probeBody = Type.Object({ status: Type.String() });
    const readyBody = Type.Object({
      status: Type.Union([Type.Literal("ready"), Type.Literal("degraded")]),
      down: Type.Optional(Type.Array(Type.String(), { description: "Configured dependencies that do not answer; their stages decide by built-in fallbacks meanwhile" })),
    });
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
          summary: "Readiness: 200 when the gateway can take requests; degraded names the fleet's configured dependencies that are down",
          tags: ["health"],
          security: [],
          response: { 200: readyBody, 503: errorResponse("Not ready") },
        },
      },
      async (_request, reply) =>
        deps.isReady() ? readiness(await deps.downDependencies()) : reply.code(503).send(errorBody(503, "not ready")),
    );

    // Prometheus scrapes this; it is not part of the API, so not in the OpenAPI document.
    app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
      const { contentType, body } = await processMetrics().exposition();
      return reply.type(contentType).send(body);
    });
  };
}
