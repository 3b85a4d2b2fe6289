// The review stage as a library, for callers that run the pipeline in process (bench/); main.ts wires it to NATS.
export { applyReview, prepareReview, reviewStage } from "./review.js";
export type { ReviewStageDeps } from "./review.js";
export { heuristicReviewer } from "./heuristic-reviewer.js";
export { chooseReviewer } from "./choose-reviewer.js";
export { modelReviewer } from "./model-reviewer.js";
export type { Finding, Review, ReviewRequest, Reviewer } from "./reviewer.js";
export { configSchema, defaultConfig } from "./config.js";
export type { Config, LowConfidenceAction } from "./config.js";
