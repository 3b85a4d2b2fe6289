/**
 * The tool-need model: how likely a message wants one of the routed tools,
 * for the messages no rule settles. A logistic regression (logistic.ts) over
 * evidence that does not depend on which tools a catalog holds, so that what it
 * learns on the shared benchmarks carries to catalogs it has never seen:
 *
 * - the message's form: question mark, a wh-word, auxiliary, request verb or
 *   pronoun first, first and second person, time-sensitive words ("today",
 *   "latest"), digits, quotes, links, paths, capitalised words inside the
 *   sentence, length, the intent rule that left it undecided ("question:explain"),
 *   and a closed list of words that ask the model itself to write or explain
 *   ("poem", "essay", "explain", "opinion");
 * - its relevance to the routed tools, normalised against the catalog itself:
 *   the router's best score and the gap to the next, how much of the message's
 *   content words the best tools' text covers, each word weighted by its
 *   rarity across *this* catalog's tools (`catalogStats`), how much of the best
 *   tool's name the message names, and how much idf weight no tool explains;
 * - whether the request named the tools it allows (an allow-list) or left the
 *   whole catalog open: every feature also comes in a copy for its scope.
 *
 * No word of a message is a feature unless it is on one of those closed lists:
 * a gate that learned the benchmarks' topic words turned away half of the
 * requests on a catalog it had not seen.
 *
 * Messages a rule recognised as requests are not the model's to judge
 * (relevance.ts, `judgeToolNeed`). Continuous features come with coarse
 * buckets as well, so the linear model can bend. The weights are learned by
 * `trainToolNeedModel` from labelled messages (bench/src/train-tool-need.ts
 * trains the shipped model, models/tool-need.json, on the shared benchmarks).
 */
import { readFileSync } from "node:fs";
import type { ToolDefinition } from "@switchyard/packet";
import { relatedStems } from "./concepts.js";
import { sigmoid, trainLogistic } from "./logistic.js";
import type { LogisticExample, LogisticOptions, SparseVector } from "./logistic.js";
import { splitWords, verbActions } from "@switchyard/request-text";
import { tokenize, toolText } from "./text.js";
import type { ScoredTool } from "./tool-index.js";

/** What the model looks at for one message. */
export interface ToolNeedInput {
  /** The text the router searched with. */
  query: string;
  /** The catalog the message was routed against (`catalogStats`): what its relevance is normalised by. */
  catalog: CatalogStats;
  /** The intent rule that left the message undecided ("default:no-indicator", "question:explain", …), when known. */
  rule?: string;
  /** The router's results for it within the request's allow-list, best first. */
  results: readonly ScoredTool[];
  /**
   * A rule already found that the message asks for a tool (the packet's needsTool when it
   * reaches the router): the gate lets it through without asking the model.
   */
  requested: boolean;
  /** The request named the tools it allows (an allow-list), rather than leaving the whole catalog open. */
  allowList?: boolean;
}

/** One labelled message. */
export interface ToolNeedExample {
  input: ToolNeedInput;
  needsTool: boolean;
}

/** The model as stored: weights by hashed feature index. */
export interface ToolNeedModelJson {
  format: typeof FORMAT;
  /** Size of the hashed feature space. */
  buckets: number;
  bias: number;
  /** Feature index (as a string) → weight; features not listed weigh 0. */
  weights: Record<string, number>;
  /** What the model was trained on, for the record. */
  trainedOn?: string;
}

export interface ToolNeedTrainOptions extends LogisticOptions {
  /** Size of the hashed feature space. @default DEFAULT_BUCKETS */
  buckets?: number;
  /** Weights smaller than this (in absolute value) are dropped from the model. @default 0.01 */
  minWeight?: number;
  /** Features found in fewer training examples than this are not learned. @default 1 */
  minCount?: number;
  /** Recorded in the model. */
  trainedOn?: string;
}

const FORMAT = "switchyard.tool-need/2";
/** 2^12 buckets: the features are a few hundred names, so collisions are rare. */
export const DEFAULT_BUCKETS = 1 << 12;
/** The probability at and above which the gate lets a message through to selection (ROUTER_TOOL_NEED_THRESHOLD). */
export const DEFAULT_TOOL_NEED_THRESHOLD = 0.15;
/** How many of the best results the relevance features look at. */
const TOP_RESULTS = 3;

/** What the router's gate asks of a tool-need model. */
export interface ToolNeedScorer {
  /** P(the message wants one of the routed tools), in [0, 1]. */
  probability(input: ToolNeedInput): number;
  /** How the routed tools relate to the message, for the reflection log. */
  relevance(input: ToolNeedInput): Relevance;
}

export class ToolNeedModel implements ToolNeedScorer {
  private readonly weights: ReadonlyMap<number, number>;

  constructor(private readonly json: ToolNeedModelJson) {
    if (json.format !== FORMAT) throw new Error(`not a tool-need model: format ${String(json.format)}, expected ${FORMAT} (train one with \`pnpm train\`)`);
    this.weights = new Map(Object.entries(json.weights).map(([k, w]) => [Number(k), w]));
  }

  /** The model shipped with Switchyard (models/tool-need.json), read once. */
  static builtIn(): ToolNeedModel {
    builtIn ??= ToolNeedModel.read(BUILT_IN);
    return builtIn;
  }

  static read(file: URL | string): ToolNeedModel {
    return new ToolNeedModel(JSON.parse(readFileSync(file, "utf8")) as ToolNeedModelJson);
  }

  probability(input: ToolNeedInput): number {
    let z = this.json.bias;
    for (const [feature, value] of toolNeedFeatures(input, this.json.buckets)) z += (this.weights.get(feature) ?? 0) * value;
    return sigmoid(z);
  }

  relevance(input: ToolNeedInput): Relevance {
    return relevanceOf(input);
  }

  toJSON(): ToolNeedModelJson {
    return this.json;
  }
}

let builtIn: ToolNeedModel | undefined;
/** models/ sits beside src/ and dist/, so the same path works from the sources (tsx) and the build. */
const BUILT_IN = new URL("../models/tool-need.json", import.meta.url);

/** Learns a model from labelled messages (each carries its own catalog's statistics). Deterministic. */
export function trainToolNeedModel(examples: readonly ToolNeedExample[], options: ToolNeedTrainOptions = {}): ToolNeedModel {
  return new ToolNeedTrainingSet(examples, options.buckets).train(options);
}

/**
 * Labelled messages with their features computed once, so that several
 * models can be trained on subsets of them (cross-validation) cheaply.
 */
export class ToolNeedTrainingSet {
  private readonly rows: LogisticExample[];

  constructor(
    examples: readonly ToolNeedExample[],
    private readonly buckets: number = DEFAULT_BUCKETS,
  ) {
    this.rows = examples.map((e) => ({ x: sparse(toolNeedFeatures(e.input, buckets)), y: e.needsTool ? 1 : 0 }));
  }

  get size(): number {
    return this.rows.length;
  }

  /** A model trained on the examples `include` keeps (all by default). */
  train(options: ToolNeedTrainOptions = {}, include: (index: number) => boolean = () => true): ToolNeedModel {
    const rows = this.rows.filter((_, i) => include(i));
    const minCount = options.minCount ?? 1;
    const learned = trainLogistic(minCount > 1 ? withoutRareFeatures(rows, minCount) : rows, this.buckets, options);
    const minWeight = options.minWeight ?? 0.01;
    const weights: Record<string, number> = {};
    learned.weights.forEach((w, feature) => {
      if (Math.abs(w) >= minWeight) weights[String(feature)] = round(w);
    });
    return new ToolNeedModel({
      format: FORMAT,
      buckets: this.buckets,
      bias: round(learned.bias),
      weights,
      ...(options.trainedOn ? { trainedOn: options.trainedOn } : {}),
    });
  }
}

/** The rows without the features fewer than `minCount` of them have: one-off n-grams teach nothing and fill the model. */
function withoutRareFeatures(rows: readonly LogisticExample[], minCount: number): LogisticExample[] {
  const counts = new Map<number, number>();
  for (const row of rows) for (let j = 0; j < row.x.indices.length; j++) counts.set(row.x.indices[j]!, (counts.get(row.x.indices[j]!) ?? 0) + 1);
  return rows.map((row) => {
    const keep: number[] = [];
    for (let j = 0; j < row.x.indices.length; j++) if ((counts.get(row.x.indices[j]!) ?? 0) >= minCount) keep.push(j);
    return { y: row.y, x: { indices: keep.map((j) => row.x.indices[j]!), values: keep.map((j) => row.x.values[j]!) } };
  });
}

function sparse(features: Map<number, number>): SparseVector {
  return { indices: Int32Array.from(features.keys()), values: Float64Array.from(features.values()) };
}

// ---------------------------------------------------------------------------
// Features.

/** What the gate knows of a catalog: how rare each stem is across its tools. */
export interface CatalogStats {
  /** Stem → Robertson–Spärck Jones idf across the catalog's tools, for stems found in two or more. */
  idf: ReadonlyMap<string, number>;
  /** The idf of a stem in one tool or none. */
  unknown: number;
  /** Tools in the catalog. */
  tools: number;
}

const statsCache = new WeakMap<readonly ToolDefinition[], CatalogStats>();

/** The statistics of a catalog, computed once per array of tools. */
export function catalogStats(tools: readonly ToolDefinition[]): CatalogStats {
  let stats = statsCache.get(tools);
  if (stats) return stats;
  const df = new Map<string, number>();
  const unique = new Map(tools.map((t) => [t.name, t]));
  for (const tool of unique.values()) {
    for (const s of toolStems(tool)) df.set(s, (df.get(s) ?? 0) + 1);
  }
  const n = Math.max(1, unique.size);
  const idfOf = (d: number) => Math.log(1 + (n - d + 0.5) / (d + 0.5));
  const idf = new Map<string, number>();
  for (const [s, d] of df) if (d >= 2) idf.set(s, idfOf(d));
  stats = { idf, unknown: idfOf(1), tools: unique.size };
  statsCache.set(tools, stats);
  return stats;
}

/** How the routed tools relate to the message. */
export interface Relevance {
  /** The router's best score, 0 when nothing was found. */
  top: number;
  /** Share of the message's content-word idf that the best tool's text covers (a related word counts half). */
  coverage: number;
  /** The same, the best of the top three tools. */
  bestCoverage: number;
  /** Share of the best tool's name words that the message contains. */
  name: number;
  /** Idf weight of the message's content words that none of the top three tools covers. */
  unexplained: number;
  /** Content words (stems) in the message. */
  words: number;
  /** The best score's lead over the second best (the whole best score when it is alone). */
  gap: number;
}

function relevanceOf(input: ToolNeedInput): Relevance {
  const stats = input.catalog;
  const stems = [...new Set(tokenize(input.query))];
  const idfOf = (s: string) => stats.idf.get(s) ?? stats.unknown;
  const total = stems.reduce((sum, s) => sum + idfOf(s), 0);
  const top = input.results.slice(0, TOP_RESULTS);
  const matchesOf = top.map((r) => {
    const own = toolStems(r.tool);
    return stems.map((s) => stemMatch(s, own));
  });
  const coverageOf = (m: number[]) => (total > 0 ? stems.reduce((sum, s, i) => sum + idfOf(s) * m[i]!, 0) / total : 0);
  const unexplained = stems.reduce((sum, s, i) => sum + idfOf(s) * (1 - Math.max(0, ...matchesOf.map((m) => m[i]!))), 0);
  const best = input.results[0];
  const nameStems = best ? [...new Set(tokenize(splitWords(best.tool.name).join(" ")))] : [];
  const stemSet = new Set(stems);
  return {
    top: best?.score ?? 0,
    coverage: matchesOf[0] ? coverageOf(matchesOf[0]) : 0,
    bestCoverage: Math.max(0, ...matchesOf.map(coverageOf)),
    name: nameStems.length > 0 ? nameStems.filter((s) => stemSet.has(s)).length / nameStems.length : 0,
    unexplained: top.length > 0 ? unexplained : total,
    words: stems.length,
    gap: (best?.score ?? 0) - (input.results[1]?.score ?? 0),
  };
}

/**
 * How much a text with these stems says a message's stem: 1 for the stem itself, half for a
 * related word (concepts.ts; `related`, when the caller looked them up once for many texts), else 0.
 */
export function stemMatch(stemmed: string, stems: ReadonlySet<string>, related: readonly string[] = relatedStems(stemmed)): number {
  return stems.has(stemmed) ? 1 : related.some((x) => stems.has(x)) ? 0.5 : 0;
}

const stemCache = new WeakMap<ToolDefinition, ReadonlySet<string>>();
/** Stems of everything indexed for a tool (`toolText`), computed once per definition. */
export function toolStems(tool: ToolDefinition): ReadonlySet<string> {
  let stems = stemCache.get(tool);
  if (!stems) stemCache.set(tool, (stems = new Set(tokenize(toolText(tool)))));
  return stems;
}

// Words of a message: letters and digits, apostrophes inside ("don't").
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
// A number, folded into one token.
const NUMBER = /^\p{N}+$/u;
const WH_WORDS = new Set(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"]);
const AUXILIARIES = new Set(["is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "shall", "may", "might", "have", "has"]);
const FIRST_PERSON = new Set(["i", "me", "my", "mine", "we", "us", "our", "i'm", "i'd", "i've", "i'll"]);
const SECOND_PERSON = new Set(["you", "your", "yours", "you're", "u"]);
// Words that ask for the state of the world now: a model's own knowledge cannot answer them.
const TIME_WORDS = new Set([
  "today", "tonight", "tomorrow", "yesterday", "now", "current", "currently", "latest", "recent", "recently", "live",
  "upcoming", "this", "next", "price", "prices", "weather", "forecast", "news", "score", "scores", "stock", "stocks",
]);
// A link: "http://…", "https://…" or "www.…".
const LINK = /\bhttps?:\/\/|\bwww\./i;
// A quoted stretch: straight or curly double quotes, or single quotes around two or more characters.
const QUOTED = /["“”][^"“”]+["“”]|'[^']{2,}'/;
// A letter outside the Latin script (CJK, Cyrillic, Hangul, Arabic …).
const NON_LATIN = /[^\p{Script=Latin}\P{L}]/gu;
const LETTER = /\p{L}/gu;
// A capitalised word after the first one: names of places, people, products.
const INNER_CAPITAL = /(?<=\S\s+)\p{Lu}\p{Ll}+/u;

// Words that ask the model itself to write, explain or judge: a closed list of the message's form, not of any catalog's topics.
const OWN_WORK_WORDS = new Set([
  "write", "compose", "poem", "poems", "story", "stories", "essay", "joke", "jokes", "lyrics", "haiku", "limerick",
  "explain", "describe", "meaning", "mean", "means", "define", "definition", "why", "opinion", "think", "believe",
  "advice", "tips", "ideas", "suggest", "suggestions", "brainstorm", "imagine", "pretend", "rewrite", "paraphrase",
  "difference", "differences", "pros", "cons", "example", "examples", "funny", "favorite", "favourite",
]);
// Words that point at the user's own things or at an action on them.
const OWN_DATA_WORDS = new Set(["my", "mine", "our", "me", "file", "files", "folder", "directory", "account", "calendar", "inbox"]);
// A path or file name: "notes/todo.md", "./a", "report.pdf".
const PATH = /(?:^|\s)(?:\.{0,2}\/)?[\w.-]+\/[\w./-]+|\b[\w-]+\.[a-z0-9]{1,5}\b/i;

/** The class of a message's first word: what kind of sentence it starts. */
function firstClass(first: string): string {
  if (WH_WORDS.has(first)) return "wh";
  if (AUXILIARIES.has(first)) return "aux";
  if (FIRST_PERSON.has(first)) return "first-person";
  if (SECOND_PERSON.has(first)) return "second-person";
  if (first === "please" || first === "pls" || first === "kindly") return "please";
  if (verbActions(first).length > 0) return "request-verb";
  if (OWN_WORK_WORDS.has(first)) return "own-work";
  return "other";
}

/** The hashed features of one message; see the module comment. */
function toolNeedFeatures(input: ToolNeedInput, buckets: number): Map<number, number> {
  const features = new Map<number, number>();
  const scope = input.allowList ? "allow-list|" : "catalog|";
  const put = (name: string, value: number) => {
    const index = hash(name) % buckets;
    features.set(index, (features.get(index) ?? 0) + value);
  };
  // Every feature twice: once shared, once for the request's scope (an allow-list or the whole catalog).
  const add = (name: string, value = 1) => {
    put(name, value);
    put(scope + name, value);
  };
  const text = input.query.trim();
  const words = (text.toLowerCase().match(WORD) ?? []).map((w) => (NUMBER.test(w) ? "#" : w.replace(/’/g, "'")));

  add("bias:words");
  const first = words[0] ?? "";
  add(`first:${firstClass(first)}`);
  if (input.rule) add(`rule:${input.rule.slice(0, input.rule.indexOf(":") + 1 || undefined)}`);
  for (const w of new Set(words)) if (OWN_WORK_WORDS.has(w)) add(`own-work:${w}`);
  const ownWork = words.filter((w) => OWN_WORK_WORDS.has(w)).length;
  if (ownWork > 0) add("form:own-work");
  if (words.some((w) => OWN_DATA_WORDS.has(w))) add("form:own-data");
  if (words.some((w) => verbActions(w).length > 0)) add("form:request-verb");

  if (text.endsWith("?")) add("form:question-mark");
  if (words.some((w) => FIRST_PERSON.has(w))) add("form:first-person");
  if (words.some((w) => SECOND_PERSON.has(w))) add("form:second-person");
  if (words.some((w) => TIME_WORDS.has(w))) add("form:time");
  if (words.includes("#")) add("form:digits");
  if (QUOTED.test(text)) add("form:quote");
  if (LINK.test(text)) add("form:link");
  if (PATH.test(text)) add("form:path");
  if (INNER_CAPITAL.test(text)) add("form:inner-capital");
  const letters = (text.match(LETTER) ?? []).length;
  if (letters > 0 && (text.match(NON_LATIN) ?? []).length / letters > 0.5) add("form:non-latin");
  add(`len:${bucketOf(words.length, [1, 3, 6, 12, 25, 50])}`);

  const r = relevanceOf(input);
  if (input.results.length === 0) add("rel:none");
  add("rel:top", r.top);
  add(`rel:top=${bucketOf(r.top, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])}`);
  add("rel:gap", r.gap);
  add(`rel:gap=${bucketOf(r.gap, [0.02, 0.05, 0.1, 0.2, 0.3])}`);
  add("rel:coverage", r.coverage);
  add(`rel:coverage=${bucketOf(r.coverage, [0.1, 0.25, 0.4, 0.55, 0.7, 0.85])}`);
  add("rel:best-coverage", r.bestCoverage);
  add(`rel:best-coverage=${bucketOf(r.bestCoverage, [0.1, 0.25, 0.4, 0.55, 0.7, 0.85])}`);
  add("rel:name", r.name);
  add(`rel:name=${bucketOf(r.name, [0.01, 0.34, 0.5, 0.67, 0.99])}`);
  add(`rel:unexplained=${bucketOf(r.unexplained, [0.5, 2, 4, 7, 11, 16])}`);
  add(`rel:words=${bucketOf(r.words, [1, 2, 4, 7, 11])}`);
  add(`rel:catalog=${bucketOf(input.catalog.tools, [5, 20, 100, 500])}`);
  return features;
}

/** The index of the first bound the value is below, or the number of bounds. */
function bucketOf(value: number, bounds: readonly number[]): number {
  const at = bounds.findIndex((b) => value < b);
  return at < 0 ? bounds.length : at;
}

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
