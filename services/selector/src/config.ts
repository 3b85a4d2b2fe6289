import type { ConfigSchema } from "@switchyard/config";
import { llmConfigProperties, llmDefaults } from "@switchyard/llm";
import type { LlmConfig } from "@switchyard/llm";

/**
 * The selector's settings, read from the environment by `readConfig(configSchema, process.env)`.
 * The weights shape the built-in heuristic's candidate score (see heuristic-selector.ts); they are
 * normalised by their sum, so only their proportions matter. With SELECTOR_MODEL set, a model
 * chooses instead (model-selector.ts) and the heuristic is its fallback.
 */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    SELECTOR_MODEL: {
      type: "string",
      default: "",
      description: "Model that selects the tool and its arguments (e.g. gpt-4o-mini, qwen2.5:7b), served at LLM_BASE_URL. Empty: the built-in heuristic selects.",
    },
    SELECTOR_TEMPERATURE: {
      type: "number",
      minimum: 0,
      maximum: 2,
      default: 0.15,
      description: "Sampling temperature of the selector model: low, so that the same request gets the same call (seed 000 §4.1).",
    },
    ...llmConfigProperties,
    SELECTOR_ALTERNATIVES: {
      type: "integer",
      minimum: 0,
      maximum: 10,
      default: 2,
      description: "How many runner-up tools to keep as alternatives on the packet.",
    },
    SELECTOR_WEIGHT_RETRIEVAL: {
      type: "number",
      minimum: 0,
      default: 0.5,
      description: "Weight of the embedding-router's score in the heuristic candidate score.",
    },
    SELECTOR_WEIGHT_ARGUMENTS: {
      type: "number",
      minimum: 0,
      default: 0.3,
      description: "Weight of argument fit: required arguments found in the request, the request's paths used.",
    },
    SELECTOR_WEIGHT_NAME: {
      type: "number",
      minimum: 0,
      default: 0.2,
      description: "Weight of name fit: the request's verb (read, write, delete…) and nouns (file, directory…) against the words of the tool's name.",
    },
    SELECTOR_CONFIDENCE_TEMPERATURE: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.06,
      description: "Temperature of the built-in selector's confidence: a candidate's share of e^(score/T) over the candidates. Lower: surer for the same lead.",
    },
  },
} as const satisfies ConfigSchema;

export interface Config extends LlmConfig {
  /** @default "" */
  SELECTOR_MODEL: string;
  /** @default 0.15 */
  SELECTOR_TEMPERATURE: number;
  /** @default 2 */
  SELECTOR_ALTERNATIVES: number;
  /** @default 0.5 */
  SELECTOR_WEIGHT_RETRIEVAL: number;
  /** @default 0.3 */
  SELECTOR_WEIGHT_ARGUMENTS: number;
  /** @default 0.2 */
  SELECTOR_WEIGHT_NAME: number;
  /** @default 0.06 */
  SELECTOR_CONFIDENCE_TEMPERATURE: number;
}

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = {
  SELECTOR_MODEL: "",
  SELECTOR_TEMPERATURE: 0.15,
  ...llmDefaults,
  SELECTOR_ALTERNATIVES: 2,
  SELECTOR_WEIGHT_RETRIEVAL: 0.5,
  SELECTOR_WEIGHT_ARGUMENTS: 0.3,
  SELECTOR_WEIGHT_NAME: 0.2,
  SELECTOR_CONFIDENCE_TEMPERATURE: 0.06,
};
