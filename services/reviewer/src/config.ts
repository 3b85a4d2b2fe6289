import { defaultsOf } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";
import { llmConfigProperties } from "@switchyard/llm";

/**
 * The reviewer's settings, read from the environment by `readConfig(configSchema, process.env)`.
 * Policy is code (policy.ts): these switches only ever narrow what runs, and a model reviewer
 * (REVIEWER_MODEL) only scores the call; it never widens what policy allows.
 */
export const configSchema = Type.Object(
  {
    REVIEWER_MODEL: Type.String({
      default: "",
      description: "Model that reviews the selected call (right tool? safe arguments? side effects?), served at LLM_BASE_URL. Empty: the built-in heuristic reviews.",
    }),
    REVIEWER_TEMPERATURE: Type.Number({
      minimum: 0,
      maximum: 2,
      default: 0.3,
      description: "Sampling temperature of the reviewer model: low, so that the same call gets the same review.",
    }),
    ...llmConfigProperties,
    REVIEW_CONFIDENCE_THRESHOLD: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.7,
      description: "Reviews below this confidence never execute.",
    }),
    LOW_CONFIDENCE_ACTION: Type.Enum(["skip", "ask"], {
      default: "skip",
      description: "Below the threshold: skip the tool (packet COMPLETED) or ask the user (packet AWAITING_USER with the question).",
    }),
    ALLOW_WRITE_TOOLS: Type.Boolean({
      default: false,
      description: "Off: write tools are dry-run only. On: they run after the user's approval, or at once when trusted.",
    }),
    ALLOW_EXECUTE_TOOLS: Type.Boolean({
      default: false,
      description: "Off: execute tools are dry-run only. On: they run after the user's approval, or at once when trusted.",
    }),
    APPROVAL_TTL_MS: Type.Integer({
      minimum: 1000,
      default: 900000,
      description: "How long a call waiting for the user's approval can be approved (15 minutes); later, approving ends the packet instead.",
    }),
    TRUSTED_TOOLS: Type.String({
      default: "",
      description: "Comma-separated catalog names (\"filesystem.write_file, shell.run\") that run without asking once their kind is allowed.",
    }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof configSchema>;

export type LowConfidenceAction = Config["LOW_CONFIDENCE_ACTION"];

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = defaultsOf(configSchema);
