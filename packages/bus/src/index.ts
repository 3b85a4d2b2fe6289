export { Attr, stageOutcomeAttributes } from "./attributes.js";
export { ATTEMPTS_BUCKET, ATTEMPTS_TTL_MS, readAttempt } from "./attempts.js";
export type { Attempt } from "./attempts.js";
export { cappedTimeoutMs, remainingMs, setDeadline } from "./deadline.js";
export { DEAD_LETTERS_STREAM, deadLetterReason, ensureDeadLetters, startDeadLetterWorker } from "./dead-letters.js";
export type { DeadLetterAdvisory, DeadLetterWorker } from "./dead-letters.js";
export type { ContentRecording } from "./attributes.js";
export { catalogKey, followBucket, followCatalog, listTools, mirrorCatalog, NOT_SERVED, putTool, removeTool } from "./catalog.js";
export type { BucketListener, CatalogListener, CatalogMirror } from "./catalog.js";
export { Headers, hopMessageId } from "./headers.js";
export { loadPacket, publishPacket, readStoredPacket, recordHop, startHopClock, storeFinishedPacket } from "./packet-bus.js";
export type { HopClock } from "./packet-bus.js";
export { addMicroService, protoEndpoint, requestReply, ServiceError } from "./micro-service.js";
export type { AnswerStats, Endpoint, Service, ServiceIdentity } from "./micro-service.js";
export { startReconciler } from "./reconciler.js";
export type { ReconcileAction, Reconciler, ReconcilerOptions } from "./reconciler.js";
export { RetryLater } from "./stage-errors.js";
export { stageConsumerInfo } from "./stream-census.js";
export { followStoredPackets } from "./stored-packets.js";
export type { StoredPacket, StoredPacketObserver } from "./stored-packets.js";
export { WaitingPackets } from "./waiting-packets.js";
export type { WaitingRead } from "./waiting-packets.js";
export { isNatsFailure, isTransientNatsFailure, isWriteConflict, retryWhileTransient } from "./nats-failure.js";
export { startStageWorker } from "./stage-worker.js";
export type { StageWorker, StageWorkerOptions } from "./stage-worker.js";
export {
  DONE_WILDCARD,
  doneListenerWildcard,
  doneSubject,
  EXAMPLES_SUBJECT,
  FEEDBACK_SUBJECT,
  PACKETS_WILDCARD,
  packetSubject,
  RANK_TOOLS_SUBJECT,
  ROUTE_SUBJECT,
  toolApprovalSubject,
} from "./subjects.js";
export { currentTraceparent, extractTraceContext, injectTraceContext, packetTraceContext } from "./trace-context.js";
export {
  CATALOG_BUCKET,
  consumerBackoffMs,
  EXAMPLES_BUCKET,
  ensurePacketStream,
  heartbeatIntervalMs,
  ensureStageConsumer,
  openBucket,
  PACKETS_BUCKET,
  PACKETS_STREAM,
  PENDING_LESSONS_BUCKET,
  PENDING_LESSONS_TTL_MS,
  MCP_SESSIONS_BUCKET,
  MCP_SESSIONS_TTL_MS,
  SERVERS_BUCKET,
} from "./topology.js";
export type { TopologyOptions } from "./topology.js";
