import type { ConfigSchema } from "@switchyard/config";
import { llmConfigProperties, llmDefaults } from "@switchyard/llm";
import type { LlmConfig } from "@switchyard/llm";

/** The intent stage's settings, read from the environment by `readConfig(configSchema, env)`. */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    /**
     * How many user turns a router query may span, the current step included:
     * 2 puts the latest earlier user turn before a step like "turn it off".
     */
    INTENT_MAX_QUERY_TURNS: { type: "integer", minimum: 1, maximum: 10, default: 2 },
    /**
     * The domains detected in the conversation are recorded on the packet's
     * intent; on, they also restrict routing (as if the request had asked for
     * them) when the request asked for no domains itself.
     */
    INTENT_DOMAIN_FILTER: { type: "boolean", default: false },
    /**
     * Model asked whether a message the rules leave undecided needs a tool (model-tool-need.ts), and,
     * after the plan's last step, whether the results answer the request (continuation.ts); empty: the
     * router's tool-need gate and the plan decide.
     */
    INTENT_MODEL: { type: "string", default: "" },
    INTENT_TEMPERATURE: { type: "number", minimum: 0, maximum: 2, default: 0 },
    ...llmConfigProperties,
  },
} satisfies ConfigSchema;

export interface Config extends LlmConfig {
  /** @default "" */
  INTENT_MODEL: string;
  /** @default 0 */
  INTENT_TEMPERATURE: number;
  /** @default 2 */
  INTENT_MAX_QUERY_TURNS: number;
  /** @default false */
  INTENT_DOMAIN_FILTER: boolean;
}

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = {
  INTENT_MAX_QUERY_TURNS: configSchema.properties.INTENT_MAX_QUERY_TURNS.default,
  INTENT_DOMAIN_FILTER: configSchema.properties.INTENT_DOMAIN_FILTER.default,
  INTENT_MODEL: "",
  INTENT_TEMPERATURE: 0,
  ...llmDefaults,
};
