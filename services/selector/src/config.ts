import { defaultsOf } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";
import { llmConfigProperties } from "@switchyard/llm";

/**
 * The selector's settings, read from the environment by `readConfig(configSchema, process.env)`.
 * The weights shape the built-in heuristic's candidate score (see heuristic-selector.ts); they are
 * normalised by their sum, so only their proportions matter. With SELECTOR_MODEL set, a model
 * chooses instead (model-selector.ts) and the heuristic is its fallback.
 */
export const configSchema = Type.Object(
  {
    SELECTOR_MODEL: Type.String({
      default: "",
      description: "Model that selects the tool and its arguments (e.g. gpt-4o-mini, qwen2.5:7b), served at LLM_BASE_URL. Empty: the built-in heuristic selects.",
    }),
    SELECTOR_TEMPERATURE: Type.Number({
      minimum: 0,
      maximum: 2,
      default: 0.15,
      description: "Sampling temperature of the selector model: low, so that the same request gets the same call.",
    }),
    ...llmConfigProperties,
    SELECTOR_ALTERNATIVES: Type.Integer({
      minimum: 0,
      maximum: 10,
      default: 2,
      description: "How many runner-up tools to keep as alternatives on the packet.",
    }),
    SELECTOR_WEIGHT_RETRIEVAL: Type.Number({
      minimum: 0,
      default: 0.5,
      description: "Weight of the embedding-router's score in the heuristic candidate score.",
    }),
    SELECTOR_WEIGHT_ARGUMENTS: Type.Number({
      minimum: 0,
      default: 0.3,
      description: "Weight of argument fit: required arguments found in the request, the request's paths used.",
    }),
    SELECTOR_WEIGHT_NAME: Type.Number({
      minimum: 0,
      default: 0.2,
      description: "Weight of name fit: the request's verb (read, write, delete…) and nouns (file, directory…) against the words of the tool's name.",
    }),
    SELECTOR_CONFIDENCE_TEMPERATURE: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.06,
      description: "Temperature of the built-in selector's confidence: a candidate's share of e^(score/T) over the candidates. Lower: surer for the same lead.",
    }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof configSchema>;

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = defaultsOf(configSchema);
