import { defaultsOf } from "@switchyard/config";
import { Type } from "typebox";
import type { Static, TObject } from "typebox";

/**
 * The model settings every stage with a model reads (the selector, the reviewer, intent), spread
 * into the stage's own config schema beside its `<STAGE>_MODEL` and `<STAGE>_TEMPERATURE`.
 */
export const llmConfigProperties = {
  LLM_BASE_URL: Type.String({
    default: "",
    description: "Base URL of an OpenAI-compatible chat API, up to /v1 (Ollama http://localhost:11434/v1, vLLM, llama.cpp server, LM Studio, OpenAI). Empty: the openai client's own default (OpenAI). Used only by stages whose model is set.",
  }),
  LLM_API_KEY: Type.String({
    default: "",
    description: "Bearer token of the chat API; local servers need none.",
  }),
  LLM_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 15000,
    description: "Limit of one model request; past it the stage uses its heuristic and says why in the packet.",
  }),
  LLM_MAX_RETRIES: Type.Integer({
    minimum: 0,
    maximum: 5,
    default: 0,
    description: "Retries by the client of a request that failed with a connection error, 429 or 5xx, with backoff (each has its own timeout).",
  }),
  LLM_OUTPUT_MODE: Type.Enum(["auto", "json_schema", "json_object", "prompt"], {
    default: "auto",
    description: "How JSON is asked for: json_schema (structured output), json_object (JSON mode), prompt (the schema in the prompt only), or auto: json_schema, stepping down to json_object and then prompt when the server rejects it.",
  }),
};

/** The model settings, as a stage's Config holds them. */
export type LlmConfig = Static<TObject<typeof llmConfigProperties>>;

/** How the client asks for JSON: the server's JSON-schema output, its JSON mode, or the prompt alone. */
export type OutputMode = LlmConfig["LLM_OUTPUT_MODE"];

/** The model settings' defaults, for tests and callers that build a stage's Config by hand. */
export const llmDefaults: LlmConfig = defaultsOf(Type.Object(llmConfigProperties));
