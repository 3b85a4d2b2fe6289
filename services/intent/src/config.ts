import { defaultsOf } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";
import { llmConfigProperties } from "@switchyard/llm";

/** The intent stage's settings, read from the environment by `readConfig(configSchema, env)`. */
export const configSchema = Type.Object(
  {
    /**
     * How many user turns a router query may span, the current step included:
     * 2 puts the latest earlier user turn before a step like "turn it off".
     */
    INTENT_MAX_QUERY_TURNS: Type.Integer({ minimum: 1, maximum: 10, default: 2, description: "User turns a router query may span, the current step included (\"turn it off\" borrows the turn before)" }),
    /**
     * The domains detected in the conversation are recorded on the packet's
     * intent; on, they also restrict routing (as if the request had asked for
     * them) when the request asked for no domains itself.
     */
    INTENT_DOMAIN_FILTER: Type.Boolean({
      default: false,
      description: "Off: the domains detected in the conversation are only recorded (intent.domains); on: they restrict routing like a request's own domains, when the request named none",
    }),
    /**
     * Model asked whether a message the rules leave undecided needs a tool (model-tool-need.ts), and,
     * after the plan's last step, whether the results answer the request (continuation.ts); empty: the
     * router's tool-need gate and the plan decide.
     */
    INTENT_MODEL: Type.String({
      default: "",
      description: "Model asked whether a message the rules leave undecided needs a tool, and, after the plan's last step, whether the results answer the request; empty: the router's tool-need gate and the plan decide",
    }),
    INTENT_TEMPERATURE: Type.Number({ minimum: 0, maximum: 2, default: 0, description: "INTENT_MODEL's temperature" }),
    ...llmConfigProperties,
  },
  { additionalProperties: false },
);

export type Config = Static<typeof configSchema>;

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = defaultsOf(configSchema);
