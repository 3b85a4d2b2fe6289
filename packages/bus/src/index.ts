export { Attr } from "./attributes.js";
export { catalogKey, followCatalog, listTools, putTool, removeTool } from "./catalog.js";
export type { CatalogListener } from "./catalog.js";
export { Headers, hopMessageId } from "./headers.js";
export { loadPacket, publishPacket, recordHop, startHopClock, storeFinishedPacket } from "./packet-bus.js";
export type { HopClock } from "./packet-bus.js";
export { startStageWorker } from "./stage-worker.js";
export type { StageWorker, StageWorkerOptions } from "./stage-worker.js";
export { doneSubject, PACKETS_WILDCARD, packetSubject, ROUTE_SUBJECT } from "./subjects.js";
export { extractTraceContext, injectTraceContext } from "./trace-context.js";
export {
  CATALOG_BUCKET,
  ensurePacketStream,
  ensureStageConsumer,
  openBucket,
  PACKETS_BUCKET,
  PACKETS_STREAM,
} from "./topology.js";
export type { TopologyOptions } from "./topology.js";
