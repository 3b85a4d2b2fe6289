// Wiring only: settings → tool index fed by the catalog → the route stage and
// the route-only endpoint → drain on SIGTERM.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { headers } from "@nats-io/nats-core";
import type { Msg } from "@nats-io/nats-core";
import { CATALOG_BUCKET, openBucket, ROUTE_SUBJECT } from "@switchyard/bus";
import { readConfig } from "@switchyard/config";
import { RouteRequestSchema, RouteResponseSchema } from "@switchyard/packet";
import { drainOnSignals, runStage, startService } from "@switchyard/runtime";
import { indexCatalog } from "./catalog-index.js";
import { configSchema } from "./config.js";
import type { Config } from "./config.js";
import { routeCandidates, routeStage } from "./route.js";
import type { RouteQuery } from "./route.js";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";

const config = readConfig<Config>(configSchema, process.env);
const service = await startService({ name: "embedding-router", env: process.env, defaultHealthPort: 8082 });
const index = new EmbeddedIndex(new LocalEmbedder(), { denseWeight: config.ROUTER_DENSE_WEIGHT });
const catalog = await indexCatalog(await openBucket(service.nc, CATALOG_BUCKET, service.topology), index, service.logger);
service.onStop(() => catalog.stop());
const route = (query: RouteQuery) => routeCandidates(index, catalog.core(), query, config);

// Route-only requests: request/reply in a queue group, so replicas share them.
// Failures answer with the NATS micro-service error headers the gateway reads.
const respondError = (reply: Msg, code: number, description: string) => {
  const h = headers();
  h.set("Nats-Service-Error", description);
  h.set("Nats-Service-Error-Code", String(code));
  reply.respond(new Uint8Array(), { headers: h });
};
const routeEndpoint = service.nc.subscribe(ROUTE_SUBJECT, {
  queue: "embedding-router",
  callback: (error, msg) => {
    if (error) return service.logger.error({ err: error }, "route endpoint failed");
    let request;
    try {
      request = fromBinary(RouteRequestSchema, msg.data);
    } catch {
      return respondError(msg, 400, "undecodable RouteRequest");
    }
    const filter = { names: request.tools, pools: request.pools, domains: request.domains };
    route({ query: request.message, topK: request.topK || undefined, filter }).then(
      (candidates) => msg.respond(toBinary(RouteResponseSchema, create(RouteResponseSchema, { candidates }))),
      (failure: unknown) => respondError(msg, 500, String(failure)),
    );
  },
});
service.onStop(() => routeEndpoint.drain());
drainOnSignals(service);

await runStage(service, "route", (packet) => routeStage(packet, { route }));
service.setReady(true, { tools: index.size });
