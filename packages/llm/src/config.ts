import type { ConfigSchema } from "@switchyard/config";

/** How the client asks for JSON: the server's JSON-schema output, its JSON mode, or the prompt alone. */
export type OutputMode = "auto" | "json_schema" | "json_object" | "prompt";

/**
 * The model settings every stage with a model reads (the selector, the reviewer, intent), spread
 * into the stage's own config schema beside its `<STAGE>_MODEL` and `<STAGE>_TEMPERATURE`.
 */
export const llmConfigProperties = {
  LLM_BASE_URL: {
    type: "string",
    default: "",
    description:
      "Base URL of an OpenAI-compatible chat API, up to /v1 (Ollama http://localhost:11434/v1, vLLM, llama.cpp server, LM Studio, OpenAI). Empty: the openai client's own default (OpenAI). Used only by stages whose model is set.",
  },
  LLM_API_KEY: {
    type: "string",
    default: "",
    description: "Bearer token of the chat API; local servers need none.",
  },
  LLM_TIMEOUT_MS: {
    type: "integer",
    minimum: 100,
    default: 15000,
    description: "Limit of one model request; past it the stage uses its heuristic and says why in the packet.",
  },
  LLM_MAX_RETRIES: {
    type: "integer",
    minimum: 0,
    maximum: 5,
    default: 0,
    description: "Retries by the client of a request that failed with a connection error, 429 or 5xx, with backoff (each has its own timeout).",
  },
  LLM_OUTPUT_MODE: {
    type: "string",
    enum: ["auto", "json_schema", "json_object", "prompt"],
    default: "auto",
    description:
      "How JSON is asked for: json_schema (structured output), json_object (JSON mode), prompt (the schema in the prompt only), or auto: json_schema, stepping down to json_object and then prompt when the server rejects it.",
  },
} as const satisfies ConfigSchema["properties"];

export interface LlmConfig {
  /** @default "" */
  LLM_BASE_URL: string;
  /** @default "" */
  LLM_API_KEY: string;
  /** @default 15000 */
  LLM_TIMEOUT_MS: number;
  /** @default 0 */
  LLM_MAX_RETRIES: number;
  /** @default "auto" */
  LLM_OUTPUT_MODE: OutputMode;
}

export const llmDefaults: LlmConfig = {
  LLM_BASE_URL: "",
  LLM_API_KEY: "",
  LLM_TIMEOUT_MS: 15000,
  LLM_MAX_RETRIES: 0,
  LLM_OUTPUT_MODE: "auto",
};
