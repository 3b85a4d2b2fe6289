export { createLogger, INSTANCE, SWITCHYARD_VERSION, withPacketId } from "./logger.js";
export type { Logger } from "./logger.js";
export { initTracing } from "./tracing.js";
export type { Tracing, TracingOptions } from "./tracing.js";
export { maskSecrets, recordableText } from "./secrets.js";
export { Metrics, processMetrics } from "./metrics.js";
export type { ConsumerBacklog, FinishedPacket } from "./metrics.js";
export { ClientAttr, markFailed, withClientSpan } from "./client-spans.js";
