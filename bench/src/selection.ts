/**
 * Selection quality (`pnpm eval --selection`): given that a tool is needed,
 * does the selector pick the expected tool, and with the expected arguments?
 *
 * Scored: the cases whose `args` give the expected arguments of `expected[0]`
 * (BFCL, API-Bank; shared/bench/README.md). Each runs through the product's
 * pipeline up to selection (pipeline.ts `runToSelection`), its `candidates`
 * as the allow-list where it has them, with the route stage's tool-need gate
 * letting every message through: the gate is measured by the no-tool answer,
 * not here. A case that intent or route ends, or where nothing is selected,
 * counts as wrong ("no selection").
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { BenchCase, BenchDataset } from "@switchyard/bench-data";
import { defaultConfig as routerDefaults } from "@switchyard/embedding-router";
import type { Config as RouterConfig } from "@switchyard/embedding-router";
import { routingOf } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { readConfig } from "@switchyard/config";
import { chooseSelector, configSchema as selectorConfigSchema, defaultConfig as selectorDefaults, heuristicSelector } from "@switchyard/selector";
import type { Selector } from "@switchyard/selector";
import { round } from "./metrics.js";
import { passEveryMessage, runToSelection } from "./pipeline.js";

/** A case with expected arguments, and the dataset's rule for scoring them (shared/bench/README.md). */
export interface ArgsCase extends BenchCase {
  /** The expected arguments of `expected[0]`. */
  args: JsonObject;
  /** BFCL: argument → its accepted values; "" among them: the argument may be left out. */
  args_accept?: Record<string, JsonValue[]>;
  /** API-Bank: arguments whose value came from an earlier API result (user tokens), which no user message holds. */
  context_args?: string[];
}

/** One dataset's figures for one selector: the object `--json` prints and `selection-<dataset>.json` holds. */
export interface SelectionResult {
  dataset: string;
  /** The selector's kind ("heuristic", …). */
  selector: string;
  /** Cases scored: those with `args`. */
  n: number;
  /** Share of the cases whose selected tool is `expected[0]`. */
  toolAccuracy: number;
  /** Share of the cases with the right tool and exactly the expected arguments. */
  argumentAccuracy: number;
  /** The same among the cases with the right tool; null when there are none. */
  argumentAccuracyGivenTool: number | null;
  /** Cases where no tool was selected (intent or route ended the packet, or the selector chose none). */
  noSelection: number;
}

export interface SelectionOptions {
  /** @default the built-in heuristic with the selector's default settings */
  selector?: Selector;
  /** @default new LocalEmbedder() (the offline default) */
  embedder?: Embedder;
  /** The route stage's settings (its floor, ROUTER_MIN_SCORE, ends a case too). @default the router's defaults */
  router?: RouterConfig;
  /** Called after each scored case. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * The selectors `pnpm eval --selection` compares: the heuristic, and the model the
 * selector's own settings in `env` name (SELECTOR_MODEL at LLM_BASE_URL), when one is set.
 * The model selector falls back to the heuristic per case when the model fails; the
 * packet's reflection says so, and those cases count as the model's.
 */
export function selectorsForEval(env: Record<string, string | undefined> = process.env): Selector[] {
  const config = readConfig(selectorConfigSchema, env);
  const heuristic = heuristicSelector(config);
  return config.SELECTOR_MODEL ? [heuristic, chooseSelector(config)] : [heuristic];
}

/** The cases that can be scored: a tool expected, and its arguments given. */
export function casesWithArgs(dataset: BenchDataset): ArgsCase[] {
  return dataset.cases.filter((c): c is ArgsCase => c.expected.length > 0 && isObject(c.args));
}

/** Top-1 tool and exact-argument accuracy of a selector on the dataset's cases with `args`. */
export async function evaluateSelection(dataset: BenchDataset, options: SelectionOptions = {}): Promise<SelectionResult> {
  const selector = options.selector ?? heuristicSelector(selectorDefaults);
  const cases = casesWithArgs(dataset);
  const index = new EmbeddedIndex(options.embedder ?? new LocalEmbedder());
  await index.upsert(dataset.tools);
  const deps = { index, tools: dataset.tools, router: options.router ?? routerDefaults(), toolNeed: passEveryMessage() };

  let toolRight = 0;
  let argumentsRight = 0;
  let noSelection = 0;
  for (const [i, c] of cases.entries()) {
    const { packet, endedAt } = await runToSelection(c, deps, selector);
    const selected = routingOf(packet).selectedTool;
    if (endedAt || !selected) noSelection++;
    else if (selected.toolName === c.expected[0]) {
      toolRight++;
      if (argumentsMatch(c, selected.params ?? {})) argumentsRight++;
    }
    options.onProgress?.(i + 1, cases.length);
  }

  const share = (count: number, of: number): number => (of === 0 ? 0 : round(count / of));
  return {
    dataset: dataset.name,
    selector: selector.kind,
    n: cases.length,
    toolAccuracy: share(toolRight, cases.length),
    argumentAccuracy: share(argumentsRight, cases.length),
    argumentAccuracyGivenTool: toolRight === 0 ? null : share(argumentsRight, toolRight),
    noSelection,
  };
}

/**
 * Whether `params` are the case's expected arguments. BFCL (`args_accept`):
 * every argument of the map is one of its accepted values, or absent where ""
 * is accepted, and no argument is outside the map. API-Bank: every argument of
 * `args` but the `context_args` is given with its value, and no other.
 */
export function argumentsMatch(c: Pick<ArgsCase, "args" | "args_accept" | "context_args">, params: JsonObject): boolean {
  if (c.args_accept) return acceptedBy(params, c.args_accept);
  const context = new Set(c.context_args ?? []);
  return (
    Object.keys(params).every((name) => Object.hasOwn(c.args, name)) &&
    Object.entries(c.args).every(([name, value]) => context.has(name) || (params[name] !== undefined && sameValue(params[name], value)))
  );
}

/**
 * Deep equality, lightly normalised: a number equals its numeric string
 * ("5" and 5), strings compare trimmed and case-insensitively.
 */
export function sameValue(a: JsonValue, b: JsonValue): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]!));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const names = Object.keys(a);
    return names.length === Object.keys(b).length && names.every((name) => Object.hasOwn(b, name) && sameValue(a[name]!, b[name]!));
  }
  return normalised(a) === normalised(b);
}

function acceptedBy(params: JsonObject, accept: Record<string, JsonValue[]>): boolean {
  return (
    Object.keys(params).every((name) => Object.hasOwn(accept, name)) &&
    Object.entries(accept).every(([name, values]) => {
      const value = params[name];
      return value === undefined ? values.includes("") : values.some((v) => acceptedValue(value, v));
    })
  );
}

/**
 * One of BFCL's accepted values: an object is a nested acceptance map (each
 * entry a list of accepted values, or a single one); an array matches element
 * by element, where an element may itself be a list of accepted values.
 */
function acceptedValue(value: JsonValue, accepted: JsonValue): boolean {
  if (isObject(accepted)) {
    const nested = Object.fromEntries(Object.entries(accepted).map(([name, v]) => [name, Array.isArray(v) ? v : [v]]));
    return isObject(value) && acceptedBy(value, nested);
  }
  if (Array.isArray(accepted)) {
    return (
      Array.isArray(value) &&
      value.length === accepted.length &&
      accepted.every((a, i) => {
        const v = value[i]!;
        return acceptedValue(v, a) || (Array.isArray(a) && !Array.isArray(v) && a.some((alternative) => acceptedValue(v, alternative)));
      })
    );
  }
  return sameValue(value, accepted);
}

const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

function normalised(x: string | number | boolean | null): string | number | boolean | null {
  if (typeof x !== "string") return x;
  const text = x.trim();
  return NUMERIC.test(text) ? Number(text) : text.toLowerCase();
}

function isObject(x: JsonValue | undefined): x is JsonObject {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}
