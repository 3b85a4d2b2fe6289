import type { ConfigSchema } from "@switchyard/config";

/**
 * The reviewer's settings, read from the environment by `readConfig(configSchema, process.env)`.
 * Policy is code (policy.ts): these switches only ever narrow what runs.
 */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
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
    TRUSTED_TOOLS: {
      type: "string",
      default: "",
      description: "Comma-separated catalog names (\"filesystem.write_file, shell.run\") that run without asking once their kind is allowed.",
    },
  },
} as const satisfies ConfigSchema;

export type LowConfidenceAction = "skip" | "ask";

export interface Config {
  /** @default 0.7 */
  REVIEW_CONFIDENCE_THRESHOLD: number;
  /** @default "skip" */
  LOW_CONFIDENCE_ACTION: LowConfidenceAction;
  /** @default false */
  ALLOW_WRITE_TOOLS: boolean;
  /** @default false */
  ALLOW_EXECUTE_TOOLS: boolean;
  /** Comma-separated catalog names; read it with `trustedTools(config)`. @default "" */
  TRUSTED_TOOLS: string;
}

/** The settings with every default applied, for tests and for callers that build a Config by hand. */
export const defaultConfig: Config = {
  REVIEW_CONFIDENCE_THRESHOLD: 0.7,
  LOW_CONFIDENCE_ACTION: "skip",
  ALLOW_WRITE_TOOLS: false,
  ALLOW_EXECUTE_TOOLS: false,
  TRUSTED_TOOLS: "",
};
