/**
 * One JSON answer from any OpenAI-compatible chat API (OpenAI, Ollama, vLLM, llama.cpp
 * server, LM Studio) through the `openai` client.
 *
 * - Output: JSON-schema structured output where the server supports it, its JSON mode or
 *   the schema in the prompt otherwise (`OutputMode`). In "auto" a server that rejects
 *   `response_format` (400/422) is asked again one step down, and the client remembers the
 *   step for its later requests.
 * - One repair: a reply that is not a JSON object, or whose object the caller's `check`
 *   finds fault with, is sent back once with the problems; what comes back is final.
 * - Failures are answers, not exceptions: a timeout, an unreachable server, a 5xx or a
 *   4xx come back as a `ModelFailure` the stage can fall back on and record in the packet,
 *   naming the dependency, its endpoint and the outage (outage.ts); with `health`, every
 *   request also tells the service's DependencyHealth whether the model answered.
 * - Every request is a CLIENT span `chat <model>` with the GenAI conventions' attributes
 *   (model, temperature, token usage; never the prompt or the answer) and is measured:
 *   `switchyard_model_call_duration_seconds`, `switchyard_model_call_errors_total`.
 */
import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { ClientAttr, markFailed, processMetrics, withClientSpan } from "@switchyard/telemetry";
import type { Dependency, DependencyHealth, DependencyReporter, Outage } from "@switchyard/telemetry";
import type { LlmConfig, OutputMode } from "./config.js";
import { parseJsonReply } from "./json-reply.js";
import { endpointOf, outageOf, probeEndpoint } from "./outage.js";

export interface ModelClientOptions {
  /** Up to /v1; undefined: the openai client's default. */
  baseURL?: string;
  apiKey?: string;
  /** The HTTP client's fetch; `pnpm eval` passes one that caches and meters requests. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  timeoutMs: number;
  /** @default 0 */
  maxRetries?: number;
  /** @default "auto" */
  outputMode?: OutputMode;
  /** What the model is to the stage, as failures and `/readyz` name it: "selection model". @default "model" */
  role?: string;
  /** Told of every request's outcome: the service's DependencyHealth (`DependencyHealth.watch`). */
  health?: DependencyReporter;
}

export interface JsonRequest {
  model: string;
  temperature: number;
  system: string;
  user: string;
  /** The answer's JSON schema, and its name for `response_format`. */
  schemaName: string;
  schema: Record<string, unknown>;
  /** Problems with a parsed answer, each a sentence the model can act on; none: the answer stands. */
  check?: (value: Record<string, unknown>) => string[];
}

export type FailureKind = "timeout" | "unavailable" | "refused" | "invalid-json";

export interface ModelFailure {
  kind: FailureKind;
  /** A sentence for the packet's reflection log. */
  message: string;
  /** Why, as a metric label and in words (outage.ts). */
  outage: Outage;
  /** Which model, where: with `outage`, what `outageSentence` says. */
  dependency: Dependency;
}

export type JsonAnswer =
  | {
      ok: true;
      value: Record<string, unknown>;
      /** What `check` still finds after the repair; empty when the answer is sound. */
      problems: string[];
      repaired: boolean;
    }
  | { ok: false; failure: ModelFailure };

type Format = Exclude<OutputMode, "auto">;
const STEP_DOWN: Record<Format, Format | undefined> = { json_schema: "json_object", json_object: "prompt", prompt: undefined };

export class ModelClient {
  private readonly client: OpenAI;
  private readonly auto: boolean;
  private format: Format;

  /** Host and port of the API, as an outage names it. */
  readonly endpoint: string;

  constructor(readonly options: ModelClientOptions) {
    this.endpoint = endpointOf(options.baseURL);
    this.client = new OpenAI({
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      // The client insists on a key; local servers ignore it.
      apiKey: options.apiKey || "none",
      timeout: options.timeoutMs,
      maxRetries: options.maxRetries ?? 0,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const mode = options.outputMode ?? "auto";
    this.auto = mode === "auto";
    this.format = mode === "auto" ? "json_schema" : mode;
  }

  /** The answer to `request` as a JSON object, repaired at most once; see the module comment. */
  async completeJson(request: JsonRequest): Promise<JsonAnswer> {
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: `${request.system}\n\n${schemaInstruction(request.schema)}` },
      { role: "user", content: request.user },
    ];
    const first = await this.ask(request, messages);
    if (!first.ok) return first;
    const parsed = parseJsonReply(first.text);
    const problems = parsed.ok ? (request.check?.(parsed.value) ?? []) : [parsed.error];
    if (parsed.ok && problems.length === 0) return { ok: true, value: parsed.value, problems: [], repaired: false };

    messages.push({ role: "assistant", content: first.text }, { role: "user", content: repairInstruction(problems) });
    const second = await this.ask(request, messages);
    if (!second.ok) return second;
    const repaired = parseJsonReply(second.text);
    if (repaired.ok) return { ok: true, value: repaired.value, problems: request.check?.(repaired.value) ?? [], repaired: true };
    // The repair broke the JSON: the first answer, faults and all, is still the better one.
    if (parsed.ok) return { ok: true, value: parsed.value, problems, repaired: false };
    return { ok: false, failure: this.unusableAnswer(request.model, `${repaired.error}, after one repair attempt`) };
  }

  /** The failure of a model that answered, but nothing its stage can use: `message` says what is wrong with it. */
  unusableAnswer(model: string, message: string): ModelFailure {
    const outage: Outage = { cause: "invalid_answer", text: `gave no usable answer (${message})` };
    return { kind: "invalid-json", message, outage, dependency: this.dependency(model) };
  }

  /** The model as a dependency of its stage: its role, name and endpoint. */
  dependency(model: string): Dependency {
    return { name: this.options.role ?? "model", model, endpoint: this.endpoint };
  }

  private async ask(request: JsonRequest, messages: ChatCompletionMessageParam[]): Promise<{ ok: true; text: string } | { ok: false; failure: ModelFailure }> {
    for (;;) {
      const body: ChatCompletionCreateParamsNonStreaming = {
        model: request.model,
        temperature: request.temperature,
        messages,
        ...responseFormat(this.format, request),
      };
      const reply = await this.chat(body);
      if (reply.ok) return { ok: true, text: reply.completion.choices[0]?.message?.content ?? "" };
      const next = STEP_DOWN[this.format];
      if (this.auto && next && isFormatRejection(reply.error)) {
        this.format = next;
        continue;
      }
      return { ok: false, failure: reply.failure };
    }
  }

  /** One chat completion request, in its span and measured; a failure is returned with its error. */
  private chat(
    body: ChatCompletionCreateParamsNonStreaming,
  ): Promise<{ ok: true; completion: ChatCompletion } | { ok: false; error: unknown; failure: ModelFailure }> {
    return withClientSpan(`chat ${body.model}`, this.requestAttributes(body), async (span) => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const completion = await this.client.chat.completions.create(body);
        processMetrics().modelCall(body.model, seconds());
        this.options.health?.answered();
        span.setAttributes(responseAttributes(completion));
        return { ok: true, completion };
      } catch (error) {
        const failure = failureOf(error, this.options.timeoutMs, this.dependency(body.model));
        processMetrics().modelCall(body.model, seconds(), failure.kind);
        this.options.health?.failed(failure.outage);
        if (error instanceof OpenAI.APIError && error.status !== undefined) span.setAttribute(ClientAttr.HttpResponseStatusCode, error.status);
        markFailed(span, failure.kind, failure.message);
        return { ok: false, error, failure };
      }
    });
  }

  private requestAttributes(body: ChatCompletionCreateParamsNonStreaming) {
    const server = new URL(this.client.baseURL);
    return {
      [ClientAttr.GenAiOperationName]: "chat",
      // The wire protocol: OpenAI's, whichever server speaks it.
      [ClientAttr.GenAiProviderName]: "openai",
      [ClientAttr.GenAiRequestModel]: body.model,
      ...(body.temperature == null ? {} : { [ClientAttr.GenAiRequestTemperature]: body.temperature }),
      [ClientAttr.ServerAddress]: server.hostname,
      [ClientAttr.ServerPort]: Number(server.port || (server.protocol === "https:" ? 443 : 80)),
    };
  }
}

/** What the answer says about itself: model, id, finish reasons, token usage; not its content. */
function responseAttributes(completion: ChatCompletion) {
  return {
    [ClientAttr.GenAiResponseModel]: completion.model,
    [ClientAttr.GenAiResponseId]: completion.id,
    [ClientAttr.GenAiResponseFinishReasons]: completion.choices.map((choice) => choice.finish_reason),
    ...(completion.usage
      ? {
          [ClientAttr.GenAiUsageInputTokens]: completion.usage.prompt_tokens,
          [ClientAttr.GenAiUsageOutputTokens]: completion.usage.completion_tokens,
        }
      : {}),
  };
}

/**
 * A client for `model`, or undefined when no model is set (the stage then uses its heuristic).
 * With `watch`, the model is one of the service's dependencies under `watch.role`: its outages
 * show on `/readyz` and in the log.
 */
export function modelClientFor(config: LlmConfig, model: string, watch?: { role: string; health: DependencyHealth }): ModelClient | undefined {
  if (model.trim() === "") return undefined;
  const options: ModelClientOptions = {
    baseURL: config.LLM_BASE_URL || undefined,
    apiKey: config.LLM_API_KEY,
    timeoutMs: config.LLM_TIMEOUT_MS,
    maxRetries: config.LLM_MAX_RETRIES,
    outputMode: config.LLM_OUTPUT_MODE,
  };
  if (!watch) return new ModelClient(options);
  const dependency = { name: watch.role, model, endpoint: endpointOf(options.baseURL) };
  return new ModelClient({ ...options, role: watch.role, health: watch.health.watch(dependency, () => probeEndpoint(options)) });
}

function responseFormat(format: Format, request: JsonRequest): Pick<ChatCompletionCreateParamsNonStreaming, "response_format"> {
  switch (format) {
    case "json_schema":
      // strict: false, because strict mode forbids open objects such as a tool's arguments.
      return { response_format: { type: "json_schema", json_schema: { name: request.schemaName, schema: request.schema, strict: false } } };
    case "json_object":
      return { response_format: { type: "json_object" } };
    case "prompt":
      return {};
  }
}

function schemaInstruction(schema: Record<string, unknown>): string {
  return `Answer with one JSON object and nothing else. It must match this JSON schema:\n${JSON.stringify(schema)}`;
}

function repairInstruction(problems: string[]): string {
  const sentences = problems.map((p) => (/[.!?]$/.test(p) ? p : `${p}.`));
  return `Your answer cannot be used: ${sentences.join(" ")} Answer again with the corrected JSON object only.`;
}

/** A server that does not understand `response_format` answers 400 or 422. */
function isFormatRejection(err: unknown): boolean {
  return err instanceof OpenAI.APIError && (err.status === 400 || err.status === 422);
}

function failureOf(err: unknown, timeoutMs: number, dependency: Dependency): ModelFailure {
  const outage = outageOf(err, timeoutMs);
  const kind: FailureKind = outage.cause === "http_4xx" || outage.cause === "bad_request" ? "refused" : outage.cause === "timeout" ? "timeout" : "unavailable";
  return { kind, message: `the model ${outage.text}`, outage, dependency };
}
