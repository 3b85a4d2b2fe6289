/**
 * What the evaluation asked of the configured models, counted per stretch of the run (a
 * dataset, a case). Requests are told to the meter by the fetch the model clients use
 * (model-cache.ts); an AsyncLocalStorage scope says which case they belong to, so cases can
 * run concurrently and still each count their own.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { percentile, round } from "./metrics.js";

/** One model request as the evaluation saw it. */
export interface ModelCall {
  /** Answered from the on-disk cache: no request reached the endpoint. */
  cached: boolean;
  /** False when the endpoint answered with an error status or not at all. */
  ok: boolean;
  /** The API's `usage`; 0 where the answer reports none. */
  promptTokens: number;
  completionTokens: number;
  /** Wall time of the request when it was made; a cached answer keeps the time it took then. */
  latencyMs: number;
}

/** The model requests of a stretch of the run, summed. */
export interface ModelUsage {
  requests: number;
  /** Of them, answered from the cache. */
  cached: number;
  /** Of them, failed (the stage fell back on its heuristic). */
  failed: number;
  promptTokens: number;
  completionTokens: number;
  /** Summed wall time of the requests. */
  latencyMs: number;
}

export function emptyUsage(): ModelUsage {
  return { requests: 0, cached: 0, failed: 0, promptTokens: 0, completionTokens: 0, latencyMs: 0 };
}

/** Counts model requests into every enclosing `measure` scope. */
export class UsageMeter {
  private readonly scopes = new AsyncLocalStorage<readonly ModelUsage[]>();

  /** Runs `run`, counting the model requests made within it (they count in any enclosing scope too). */
  async measure<T>(run: () => Promise<T>): Promise<{ value: T; usage: ModelUsage }> {
    const usage = emptyUsage();
    const value = await this.scopes.run([...(this.scopes.getStore() ?? []), usage], run);
    return { value, usage };
  }

  /** Tells the scopes open where the request was made of it. */
  record(call: ModelCall): void {
    for (const usage of this.scopes.getStore() ?? []) {
      usage.requests++;
      if (call.cached) usage.cached++;
      if (!call.ok) usage.failed++;
      usage.promptTokens += call.promptTokens;
      usage.completionTokens += call.completionTokens;
      usage.latencyMs += call.latencyMs;
    }
  }
}

/** One case's model figures, as `--json` lists them. */
export interface CaseModelUsage extends Omit<ModelUsage, "latencyMs"> {
  id: string;
  /** Model latency of the case: its requests' wall time, summed. */
  latencyMs: number;
}

/** A dataset's model figures: totals, the model latency per case, and each case. */
export interface ModelFigures {
  /** Each configured model, by its role: "selection model" → "qwen2.5:7b at localhost:11434". */
  models: Record<string, string>;
  /** Every request of the dataset's run, the catalog's embedding included (set by run-eval.ts, `withTotal`). */
  total?: ModelUsage;
  /** Cases that asked a model at least once. */
  casesAsking: number;
  /** Model latency per case, over the cases that asked a model (ms). */
  latencyMs: { p50: number; p99: number };
  /** Of the cases that need a tool, those where the select stage chose one, and how many chose a right one. */
  selected: { n: number; right: number };
  cases: CaseModelUsage[];
}

/** `ModelFigures` from each case's usage, and whether the tool it selected (if any) was right. */
export function modelFigures(models: Record<string, string>, cases: readonly { id: string; usage: ModelUsage; selectedRight?: boolean }[]): ModelFigures {
  const asking = cases.filter((c) => c.usage.requests > 0);
  const latencies = asking.map((c) => c.usage.latencyMs);
  const chose = cases.filter((c) => c.selectedRight !== undefined);
  return {
    models,
    casesAsking: asking.length,
    latencyMs: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
    selected: { n: chose.length, right: chose.filter((c) => c.selectedRight).length },
    cases: cases.map((c) => ({ id: c.id, ...rounded(c.usage) })),
  };
}

/** The figures with the dataset's `total`, after the models' names. */
export function withTotal(figures: ModelFigures, total: ModelUsage): ModelFigures {
  const { models, ...rest } = figures;
  return { models, total: rounded(total), ...rest };
}

function rounded(usage: ModelUsage): ModelUsage {
  return { ...usage, latencyMs: round(usage.latencyMs) };
}
