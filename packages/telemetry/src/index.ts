export { createLogger, INSTANCE } from "./logger.js";
export type { Logger } from "./logger.js";
export { initTracing } from "./tracing.js";
export type { Tracing } from "./tracing.js";
