import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { FleetStatusSchema } from "@switchyard/packet";
import type { GatewayDeps } from "../../shared/deps.js";
import { messageJson } from "../../shared/json.js";
import { errorResponse, protoResponse } from "../../shared/response-schemas.js";

/** GET /v1/fleet: the console's Fleet page. */
export function fleetRoutes(deps: Pick<GatewayDeps, "fleetStatus">): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/v1/fleet",
      {
        schema: {
          operationId: "getFleetStatus",
          summary: "Each service's readiness, and the caller's packets in flight, waiting for a person and falling back",
          description:
            "Services as they answer NATS micro's `$SRV.PING` (as /readyz's `down`); the counts are over the caller's latest 1000 packets.",
          tags: ["health"],
          response: { 200: protoResponse(FleetStatusSchema, "The fleet"), 503: errorResponse("The fleet cannot take requests now") },
        },
      },
      async (request) => messageJson(FleetStatusSchema, await deps.fleetStatus(request.tenant)),
    );
  };
}
