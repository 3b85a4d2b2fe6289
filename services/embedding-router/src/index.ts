// The route stage as a library, for callers that run the pipeline in process (bench/); main.ts wires it to NATS.
export { candidate, routeCandidates, routeStage } from "./route.js";
export type { RouteQuery, RouteResult, RouteStageDeps, RoutingSettings } from "./route.js";
export { routeWithFallback, sparseOnly, wholeCatalog } from "./fallback.js";
export type { RouterCatalog } from "./fallback.js";
export { configSchema, defaultConfig } from "./config.js";
export { chooseEmbedder } from "./choose-embedder.js";
export type { Config, RouterMode } from "./config.js";
