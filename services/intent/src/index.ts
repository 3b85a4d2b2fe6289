// The intent stage as a library, for callers that run the pipeline in process (bench/); main.ts wires it to NATS.
export { decideToolNeed, decideIntent, REFLECTION_STEP, verdictOf } from "./intent.js";
export { intentStage } from "./stage.js";
export type { IntentStageDeps } from "./stage.js";
export type { IntentCatalog } from "./intent.js";
export { configSchema, defaultConfig } from "./config.js";
export type { Config } from "./config.js";
export { detectToolNeed } from "./detect.js";
export type { ToolNeed } from "./detect.js";
export { judgeContinuation } from "./continuation.js";
export { askToolNeed } from "./model-tool-need.js";
export type { ModelToolNeed } from "./model-tool-need.js";
