/**
 * The fleet's model settings, for `pnpm eval` (bench/README.md, "With your own model"): read
 * from the environment with each service's own config schema (a bad value is refused naming
 * its variable, as the service would), keeping only the settings that choose and reach a model:
 * `LLM_*`, `INTENT_MODEL`, `SELECTOR_MODEL`, `REVIEWER_MODEL` and their temperatures, and
 * `EMBEDDINGS_*`. Every other setting keeps its default, as in the offline evaluation.
 */
import { readConfig } from "@switchyard/config";
import { chooseEmbedder, configSchema as routerSchema, defaultConfig as routerDefaults } from "@switchyard/embedding-router";
import { configSchema as intentSchema, defaultConfig as intentDefaults } from "@switchyard/intent";
import { ModelClient, modelClientFor } from "@switchyard/llm";
import type { LlmConfig } from "@switchyard/llm";
import type { Embedder } from "@switchyard/retrieval";
import { configSchema as reviewerSchema, defaultConfig as reviewerDefaults, heuristicReviewer, modelReviewer } from "@switchyard/reviewer";
import { configSchema as selectorSchema, defaultConfig as selectorDefaults, heuristicSelector, modelSelector } from "@switchyard/selector";
import { meteredFetch } from "./model-cache.js";
import type { ModelAnswerCache } from "./model-cache.js";
import { UsageMeter } from "./model-usage.js";
import type { PipelineModels } from "./pipeline.js";

/** The settings `pnpm eval` reads from the environment; the rest keep their defaults. */
const MODEL_SETTING = /^(LLM_|EMBEDDINGS_|(INTENT|SELECTOR|REVIEWER)_(MODEL|TEMPERATURE)$)/;

/** The models of a run with the fleet's settings. */
export interface EvalModels extends PipelineModels {
  /** EMBEDDINGS_MODEL at EMBEDDINGS_BASE_URL; absent: the offline LocalEmbedder. */
  embedder?: Embedder;
  /** Each configured model by its role, as the report names it: "selection model" → "qwen2.5:7b at localhost:11434". */
  named: Record<string, string>;
}

/**
 * The models `env` configures, every request through `cache` (when given) and counted by the
 * models' meter; undefined when none is set: the offline evaluation. Throws a `ConfigError`
 * naming the variable for a bad value.
 */
export function modelsFromEnv(env: Record<string, string | undefined>, cache?: ModelAnswerCache): EvalModels | undefined {
  const intent = modelSettings(readConfig(intentSchema, env), intentDefaults);
  const selector = modelSettings(readConfig(selectorSchema, env), selectorDefaults);
  const reviewer = modelSettings(readConfig(reviewerSchema, env), reviewerDefaults);
  const router = modelSettings(readConfig(routerSchema, env), routerDefaults());
  if (!intent.INTENT_MODEL.trim() && !selector.SELECTOR_MODEL.trim() && !reviewer.REVIEWER_MODEL.trim() && !router.EMBEDDINGS_BASE_URL) return undefined;

  const meter = new UsageMeter();
  const fetch = meteredFetch(meter, cache);
  const named: Record<string, string> = {};
  // the service's own client settings (modelClientFor), asking through the metered fetch
  const client = (config: LlmConfig, model: string, role: string): ModelClient | undefined => {
    const own = modelClientFor(config, model);
    if (!own) return undefined;
    named[role] = `${model} at ${hostOf(config.LLM_BASE_URL)}`;
    return new ModelClient({ ...own.options, fetch });
  };
  const intentClient = client(intent, intent.INTENT_MODEL, "intent model");
  const selectorClient = client(selector, selector.SELECTOR_MODEL, "selection model");
  const reviewerClient = client(reviewer, reviewer.REVIEWER_MODEL, "review model");
  if (router.EMBEDDINGS_BASE_URL) named["embeddings"] = `${router.EMBEDDINGS_MODEL} at ${hostOf(router.EMBEDDINGS_BASE_URL)}`;
  return {
    meter,
    named,
    ...(intentClient ? { intent: { client: intentClient, config: intent } } : {}),
    ...(selectorClient ? { selector: modelSelector(selectorClient, selector, heuristicSelector(selector)) } : {}),
    ...(reviewerClient ? { reviewer: modelReviewer(reviewerClient, reviewer, heuristicReviewer) } : {}),
    ...(router.EMBEDDINGS_BASE_URL ? { embedder: chooseEmbedder({ ...router, fetch }) } : {}),
  };
}

/** `defaults` with the model settings of `read` (a service's config as read from the environment). */
function modelSettings<C extends object>(read: C, defaults: C): C {
  return { ...defaults, ...Object.fromEntries(Object.entries(read).filter(([name]) => MODEL_SETTING.test(name))) };
}

/** Host and port of a base URL; empty: the openai client's default, OpenAI's API. */
function hostOf(baseURL: string): string {
  return baseURL ? new URL(baseURL).host : "api.openai.com";
}
