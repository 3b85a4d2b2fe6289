export { llmConfigProperties, llmDefaults } from "./config.js";
export type { LlmConfig, OutputMode } from "./config.js";
export { parseJsonReply } from "./json-reply.js";
export type { ParsedReply } from "./json-reply.js";
export { ModelClient, modelClientFor } from "./model-client.js";
export type { FailureKind, JsonAnswer, JsonRequest, ModelClientOptions, ModelFailure } from "./model-client.js";
export { endpointOf, outageOf, probeEndpoint } from "./outage.js";
