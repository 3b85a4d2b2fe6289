// The select stage as a library, for callers that run the pipeline in process (bench/); main.ts wires it to NATS.
export { applySelection, selectionRequestOf, selectStage } from "./select.js";
export type { SelectStageDeps } from "./select.js";
export { heuristicSelect, heuristicSelector } from "./heuristic-selector.js";
export { chooseSelector } from "./choose-selector.js";
export { answerSchema, modelSelector } from "./model-selector.js";
export type { Choice, Selection, SelectionRequest, Selector } from "./selector.js";
export { configSchema, defaultConfig } from "./config.js";
export type { Config } from "./config.js";
