import type { ConfigSchema } from "@switchyard/config";
import { llmConfigProperties, llmDefaults } from "@switchyard/llm";
import type { LlmConfig } from "@switchyard/llm";

/**
 * The reviewer's settings, read from the environment by `readConfig(configSchema, process.env)`.
 * Policy is code (policy.ts): these switches only ever narrow what runs, and a model reviewer
 * (REVIEWER_MODEL) only scores the call; it never widens what policy allows.
 */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    REVIEWER_MODEL: {
      type: "string",
      default: "",
      description: "Model that reviews the selected call (right tool? safe arguments? side effects?), served at LLM_BASE_URL. Empty: the built-in heuristic reviews.",
    },
    REVIEWER_TEMPERATURE: {
      type: "number",
      minimum: 0,
      maximum: 2,
      default: 0.3,
      description: "Sampling temperature of the reviewer model (seed 000 §4.1 review_selection).",
    },
    ...llmConfigProperties,
    REVIEW_CONFIDENCE_THRESHOLD: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: 0.7,
      description: "Reviews below this confidence never execute (seed 000 §4.3).",
    },
    LOW_CONFIDENCE_ACTION: {
      type: "string",
      enum: ["skip", "ask"],
      default: "skip",
      description: "Below the threshold: skip the tool (packet COMPLETED) or ask the user (packet AWAITING_USER with the question).",
    },
    ALLOW_WRITE_TOOLS: {
      type: "boolean",
      default: false,
      description: "Off: write tools are dry-run only. On: they run after the user's approval, or at once when trusted.",
    },
    ALLOW_EXECUTE_TOOLS: {
      type: "boolean",
      default: false,
      description: "Off: execute tools are dry-run only. On: they run after the user's approval, or at once when trusted.",
    },
    APPROVAL_TTL_MS: {
      type: "integer",
      minimum: 1000,
      default: 900000,
      description: "How long a call waiting for the user's approval can be approved (15 minutes); later, approving ends the packet instead.",
    },
    TRUSTED_TOOLS: {
      type: "string",
      default: "",
      description: "Comma-separated catalog names (\"filesystem.write_file, shell.run\") that run without asking once their kind is allowed.",
    },
  },
} as const satisfies ConfigSchema;

export type LowConfidenceAction = "skip" | "ask";

export interface Config extends LlmConfig {
  /** @default "" */
  REVIEWER_MODEL: string;
  /** @default 0.3 */
  REVIEWER_TEMPERATURE: number;
  /** @default 0.7 */
  REVIEW_CONFIDENCE_THRESHOLD: number;
  /** @default "skip" */
  LOW_CONFIDENCE_ACTION: LowConfidenceAction;
  /** @default false */
  ALLOW_WRITE_TOOLS: boolean;
  /** @default false */
  ALLOW_EXECUTE_TOOLS: boolean;
  /** @default 900000 */
  APPROVAL_TTL_MS: number;
  /** Comma-separated catalog names; read it with `trustedTools(config)`. @default "" */
  TRUSTED_TOOLS: string;
}

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = {
  REVIEWER_MODEL: "",
  REVIEWER_TEMPERATURE: 0.3,
  ...llmDefaults,
  REVIEW_CONFIDENCE_THRESHOLD: 0.7,
  LOW_CONFIDENCE_ACTION: "skip",
  ALLOW_WRITE_TOOLS: false,
  ALLOW_EXECUTE_TOOLS: false,
  APPROVAL_TTL_MS: 900000,
  TRUSTED_TOOLS: "",
};
