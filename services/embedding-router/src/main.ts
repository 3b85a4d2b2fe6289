// Wiring only: settings → tool index fed by the catalog → the route stage and
// the route-only endpoint → drain on SIGTERM.
import { create } from "@bufbuild/protobuf";
import {
  CATALOG_BUCKET,
  EXAMPLES_BUCKET,
  Headers,
  openBucket,
  PENDING_LESSONS_BUCKET,
  PENDING_LESSONS_TTL_MS,
  protoEndpoint,
  RANK_TOOLS_SUBJECT,
  ROUTE_SUBJECT,
} from "@switchyard/bus";
import { readConfig } from "@switchyard/config";
import { encodeRouteResponse, RankToolsRequestSchema, RankToolsResponseSchema, RouteRequestSchema, RouteResponseSchema } from "@switchyard/packet";
import { buildQuery } from "@switchyard/request-text";
import { EmbeddingRequestError, LocalEmbedder, QdrantIndex, ToolNeedModel } from "@switchyard/retrieval";
import { drainOnSignals, exitOnSettingsError, runStage, startService } from "@switchyard/runtime";
import { BroughtTools } from "./brought-tools.js";
import { indexCatalog } from "./catalog-index.js";
import { learnFromFinishedPackets, learningEndpoints } from "./learning-endpoints.js";
import { configSchema } from "./config.js";
import { chooseEmbedder, watchEmbeddings } from "./choose-embedder.js";
import { chooseIndex } from "./choose-index.js";
import { routeWithFallback } from "./fallback.js";
import { OfflineIndex } from "./offline-index.js";
import { routeOnly } from "./route-only.js";
import { routeStage } from "./route.js";
import type { RouteQuery } from "./route.js";

exitOnSettingsError("embedding-router");
const config = readConfig(configSchema, process.env);
const service = await startService({ name: "embedding-router", description: "narrows the catalog to a few candidate tools (stage route); serves route-only requests, ranking and learning", env: process.env, defaultHealthPort: 8082 });
const embeddings = watchEmbeddings(config, service.dependencies);
const embedder = chooseEmbedder(config, embeddings);
service.logger.info({ embedder: embedder.id }, "embedder chosen");
const index = await chooseIndex(config, embedder, (error) => service.logger.warn({ err: error }, "tool vectors not stored"));
service.logger.info({ index: config.QDRANT_URL ? `qdrant ${config.QDRANT_COLLECTION}` : "embedded" }, "tool index ready");
const examples = await openBucket(service.nc, EXAMPLES_BUCKET, service.topology);
const pendingLessons = await openBucket(service.nc, PENDING_LESSONS_BUCKET, service.topology, PENDING_LESSONS_TTL_MS);
const catalog = await indexCatalog(await openBucket(service.nc, CATALOG_BUCKET, service.topology), index, service.logger, examples, {
  reportedElsewhere: (error) => error instanceof EmbeddingRequestError,
});
// Qdrant outlives the router: tools dropped from the catalog while no router ran leave now.
if (index instanceof QdrantIndex) await index.prune(catalog.all().map((tool) => tool.name));
service.onStop(() => catalog.stop());
// Only a router with an embeddings endpoint can lose it: the offline router's index is the fallback's.
const offline = embeddings ? new OfflineIndex(config.ROUTER_DENSE_WEIGHT) : undefined;
const route = async (query: RouteQuery) => {
  const result = await routeWithFallback(index, catalog, query, config, { ...(offline ? { offline } : {}), ...(embeddings ? { embeddings } : {}) });
  // The outage itself is logged once, when the endpoint goes down (DependencyHealth); each request's fallback only at debug.
  if (result.warnings.length > 0) service.logger[result.fallback ? "debug" : "warn"]({ warnings: result.warnings }, "routing fell back");
  return result;
};

// The tool-need gate: the shipped model unless ROUTER_TOOL_NEED_MODEL names another (read once, at start).
const toolNeed = {
  threshold: config.ROUTER_TOOL_NEED_THRESHOLD,
  model: config.ROUTER_TOOL_NEED_MODEL ? ToolNeedModel.read(config.ROUTER_TOOL_NEED_MODEL) : undefined,
};
// What the route stage and the route-only endpoint share: the same routing and the same gate.
const routing = { route, catalogStats: () => catalog.stats(), englishOnly: embedder instanceof LocalEmbedder, toolNeed, correctSpelling: index.correctSpelling?.bind(index) };

// Ranking the tools a proxied chat request brings (brought-tools.ts), with the same embedder and query.
const brought = new BroughtTools(embedder);
const learning = {
  nc: service.nc,
  examples,
  pending: pendingLessons,
  packets: service.packets,
  isTool: (name: string) => catalog.has(name),
  settings: config,
  logger: service.logger,
};
// Request/reply endpoints of the router's micro service; its replicas share each request.
await service.serveEndpoints([
  // The gateway names the caller's tenant; a request without one gets the shared tools alone.
  protoEndpoint("route", ROUTE_SUBJECT, RouteRequestSchema, RouteResponseSchema, (request, requestHeaders) =>
    routeOnly(request, requestHeaders?.get(Headers.Tenant) ?? "", { ...routing, maxQueryTurns: config.ROUTER_MAX_QUERY_TURNS }),
  encodeRouteResponse),
  protoEndpoint("rank-tools", RANK_TOOLS_SUBJECT, RankToolsRequestSchema, RankToolsResponseSchema, async (request) => {
    const query = buildQuery(request.message, request.history, { maxTurns: config.ROUTER_MAX_QUERY_TURNS });
    return create(RankToolsResponseSchema, { candidates: await brought.rank(query, request.tools, request.topK || config.ROUTER_TOP_K) });
  }),
  // Feedback and hand-added examples (learning.ts).
  ...learningEndpoints(learning),
]);
// Learning from finished packets, in a queue group of its own.
const learningFromUse = learnFromFinishedPackets(learning);
service.onStop(async () => void (await learningFromUse?.drain()));
drainOnSignals(service);

await runStage(service, "route", (packet) => routeStage(packet, routing));
await service.dependencies.checkAll();
service.setReady(true, { tools: index.size });
