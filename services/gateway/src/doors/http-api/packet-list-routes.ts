import type { ServerResponse } from "node:http";
import { create } from "@bufbuild/protobuf";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ListPacketsResponseSchema } from "@switchyard/packet";
import type { GatewayDeps } from "../../shared/deps.js";
import { messageJson, packetJson } from "../../shared/json.js";
import { listPacketsQuery, listPacketsRequest, requestSchemas } from "../../shared/requests.js";
import type { GatewayLimits } from "../../shared/requests.js";
import { errorResponse, protoResponse } from "../../shared/response-schemas.js";

/** How often an idle event stream gets a comment, so proxies and browsers keep it open. */
export const KEEPALIVE_MS = 15_000;
/** Bytes an event stream may have unsent before the gateway closes it: a client that reads nothing is let go (it reconnects and lists again). */
const MAX_UNSENT_BYTES = 8 * 1024 * 1024;

/** The tenant's packets for a console: a filtered list, newest first, and each change as it is stored (server-sent events). */
export function packetListRoutes(deps: Pick<GatewayDeps, "listPackets" | "followPackets">, limits: GatewayLimits): FastifyPluginAsyncTypebox {
  const schemas = requestSchemas(limits);
  return async (app) => {
    // Open streams end when the gateway closes; it would otherwise wait for their clients to go.
    const open = new Set<ServerResponse>();
    app.addHook("preClose", async () => {
      for (const stream of open) stream.end();
    });

    app.get(
      "/v1/packets",
      {
        schema: {
          operationId: "listPackets",
          summary: "The caller's packets, newest first, filtered",
          description:
            "Packets by header.createdAt, newest first; the next page: `before` = the createdAt of this page's last packet. " +
            "The gateway keeps each tenant's latest 1000 packets in memory; older pages are read from the packets bucket.",
          tags: ["packets"],
          querystring: schemas.listPackets,
          response: {
            200: protoResponse(ListPacketsResponseSchema, "The page"),
            400: errorResponse("A query parameter is invalid; `field` names it"),
            503: errorResponse("The fleet cannot take requests now"),
          },
        },
        // A repeated or comma-separated `state` and a numeric `limit`, in the shape the schema checks.
        preValidation: async (request) => {
          request.query = listPacketsQuery(request.query as Record<string, unknown>) as typeof request.query;
        },
      },
      async (request) => {
        const packets = await deps.listPackets(request.tenant, listPacketsRequest(request.query));
        return messageJson(ListPacketsResponseSchema, create(ListPacketsResponseSchema, { packets }));
      },
    );

    app.get(
      "/v1/packets/events",
      {
        schema: {
          operationId: "packetEvents",
          summary: "Server-sent events: each of the caller's packets as it is stored from now on",
          description:
            "`text/event-stream`: `event: packet` with the packet's JSON as `data` for every change of one of the caller's packets " +
            "after the stream opens, and a `: keepalive` comment every 15 s. List first (GET /v1/packets), then replace by header.packetId.",
          tags: ["packets"],
          produces: ["text/event-stream"],
          response: { 200: { description: "The event stream", content: { "text/event-stream": { schema: { type: "string" } } } } },
        },
      },
      async (request, reply) => {
        reply.hijack();
        const stream = reply.raw;
        stream.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no" });
        stream.flushHeaders();
        open.add(stream);
        const send = (text: string) => {
          if (stream.writableLength > MAX_UNSENT_BYTES) stream.destroy();
          else stream.write(text);
        };
        const stop = deps.followPackets(request.tenant, (packet) => send(`event: packet\ndata: ${JSON.stringify(packetJson(packet))}\n\n`));
        const keepalive = setInterval(() => send(": keepalive\n\n"), KEEPALIVE_MS);
        // The client went (or the gateway closes): stop following the bucket for it.
        stream.on("close", () => {
          open.delete(stream);
          clearInterval(keepalive);
          stop();
        });
      },
    );
  };
}
