import { conceptsOf } from "./concepts.js";
import { tokenize } from "./text.js";

/**
 * Turns texts into dense vectors, one per text, all `dimensions` long and
 * L2-normalised (so a dot product is a cosine). The local embedder below
 * needs no model; an OpenAI-compatible `/v1/embeddings` client implements the
 * same interface. `id` names the model and its settings: vectors from
 * different ids must never be compared, so an index keys its stored vectors
 * (or a Qdrant collection) by it.
 */
export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * `embed` of texts given by their stems (`tokenize`'s), for an embedder
   * that reads stems (the local one): an index that has split a tool's text
   * for BM25 hands the stems over instead of having the text split again.
   */
  embedStems?(stems: readonly (readonly string[])[]): Promise<Float32Array[]>;
}

export interface LocalEmbedderOptions {
  /** @default 1024 */
  dimensions?: number;
  /**
   * Weight of each character trigram of a stem relative to the stem itself
   * (before normalisation); trigrams make "todo" close to "todos" and
   * "weather" close to "weatherapp".
   * @default 0.25
   */
  trigramWeight?: number;
  /** Weight of each pair of neighbouring stems ("read file"), which rewards word order. @default 0.5 */
  bigramWeight?: number;
  /** Weight of the shared feature of a word's concept group ("folder" ~ "directory", see concepts.ts). @default 1 */
  conceptWeight?: number;
}

/**
 * A lexical-semantic embedder that needs no weights: signed feature hashing of
 * stems, stem bigrams and stem character trigrams into a fixed-size vector,
 * sublinear term frequency, L2-normalised. Deterministic: the same text gives
 * the same vector in every process, so stored vectors stay valid across
 * restarts. It knows no synonyms ("show" is not "list"); that is what a real
 * embedding model adds, behind the same interface.
 */
export class LocalEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  private readonly trigramWeight: number;
  private readonly bigramWeight: number;
  private readonly conceptWeight: number;

  constructor(options: LocalEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 1024;
    this.trigramWeight = options.trigramWeight ?? 0.25;
    this.bigramWeight = options.bigramWeight ?? 0.5;
    this.conceptWeight = options.conceptWeight ?? 1;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 16) throw new RangeError("dimensions must be an integer >= 16");
    this.id = `local-hash-v1:d${this.dimensions}:g${this.trigramWeight}:b${this.bigramWeight}:c${this.conceptWeight}`;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    return this.embedStems(texts.map((t) => tokenize(t)));
  }

  embedStems(stems: readonly (readonly string[])[]): Promise<Float32Array[]> {
    const features = new FeatureTable(this.dimensions);
    // the batch's vectors share one buffer: a buffer of its own each was the costliest step of embedding a catalog
    const bytes = this.dimensions * Float32Array.BYTES_PER_ELEMENT;
    const buffer = new ArrayBuffer(stems.length * bytes);
    return Promise.resolve(stems.map((s, i) => this.vectorOf(s, features, new Float32Array(buffer, i * bytes, this.dimensions))));
  }

  /** Synchronous form of `embed` for one text. */
  embedOne(text: string): Float32Array {
    return this.vectorOf(tokenize(text), new FeatureTable(this.dimensions), new Float32Array(this.dimensions));
  }

  /** The vector of a text by its stems, written into `v` (zeros). */
  private vectorOf(stems: readonly string[], table: FeatureTable, v: Float32Array): Float32Array {
    // each feature's count, in the order the text first says it
    const order: number[] = [];
    // a count back at 0 lists its feature again, where it adds nothing: the vector is the same
    const add = (feature: number, weight: number): void => {
      if (table.counts[feature] === 0) order.push(feature);
      table.counts[feature]! += weight;
    };
    let before: StemFeatures | undefined;
    for (const s of stems) {
      let own = table.stems.get(s);
      if (!own) table.stems.set(s, (own = this.featuresOf(s, table)));
      add(own.word, 1);
      if (before) {
        let bigram = own.after.get(before);
        // the hash of "b:<before> <s>", without making the string
        if (bigram === undefined) own.after.set(before, (bigram = table.add(mix(fnv1a(before.bigramHead, s)))));
        add(bigram, this.bigramWeight);
      }
      for (let f = 0; f < own.parts.length; f++) add(own.parts[f]!, own.weights[f]!);
      before = own;
    }

    const { counts } = table;
    for (const feature of order) {
      const count = counts[feature]!;
      counts[feature] = 0;
      // sublinear frequency: a word said five times is not five times as relevant
      const weight = count >= 1 ? 1 + Math.log(count) : count;
      v[table.places[feature]!]! += table.negative[feature] ? -weight : weight;
    }
    return normalize(v);
  }

  /** A stem's own features: the word, then its trigrams and concept groups (after the bigram that joins it to the word before). */
  private featuresOf(stem: string, table: FeatureTable): StemFeatures {
    const parts: number[] = [];
    const weights: number[] = [];
    const add = (part: string, weight: number): void => {
      parts.push(table.id(part));
      weights.push(weight);
    };
    if (this.trigramWeight > 0) for (const g of trigrams(stem)) add(`g:${g}`, this.trigramWeight);
    if (this.conceptWeight > 0) for (const c of conceptsOf(stem)) add(`c:${c}`, this.conceptWeight);
    return { word: table.id(`w:${stem}`), parts, weights, bigramHead: fnv1a(FNV_OFFSET, `b:${stem} `), after: new Map() };
  }
}

/**
 * The features of one `embed` call's texts, numbered with their hashes, and
 * each stem's own: a batch's texts share most of their words, so each word's
 * features are made and hashed once, and a text counts its features in an
 * array by number instead of a map by name.
 */
class FeatureTable {
  private readonly numbers = new Map<string, number>();
  /** Each feature's dimension and sign, from its hash: the hash's top bit picks the sign, so collisions cancel out on average instead of piling up. */
  readonly places: number[] = [];
  readonly negative: boolean[] = [];
  readonly stems = new Map<string, StemFeatures>();
  /** The text being embedded's count of each feature it says (0 for the rest); typed, so that a count is not a heap number. */
  counts = new Float64Array(1024);

  constructor(private readonly dimensions: number) {}

  /** The feature's number. */
  id(feature: string): number {
    let n = this.numbers.get(feature);
    if (n === undefined) this.numbers.set(feature, (n = this.add(hash32(feature))));
    return n;
  }

  /** A new feature's number, known by its hash alone (its caller keeps track of which it is). */
  add(hash: number): number {
    this.places.push(hash % this.dimensions);
    this.negative.push((hash & 0x80000000) !== 0);
    if (this.places.length > this.counts.length) {
      const grown = new Float64Array(this.counts.length * 2);
      grown.set(this.counts);
      this.counts = grown;
    }
    return this.places.length - 1;
  }
}

/** The features one stem adds to a text's vector, in the order they are added, by number (FeatureTable). */
interface StemFeatures {
  word: number;
  /** The stem's trigrams and concept groups, with their weights. */
  parts: number[];
  weights: number[];
  /** FNV-1a's state after "b:<stem> ", where the hash of a bigram that starts with this stem goes on. */
  bigramHead: number;
  /** The bigram of each stem said before this one. */
  after: Map<StemFeatures, number>;
}

/** Character trigrams of a stem with word boundaries marked: "todo" → "^to", "tod", "odo", "do$". */
export function trigrams(stem: string): string[] {
  const padded = `^${stem}$`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) out.push(padded.slice(i, i + 3));
  return out;
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser to spread the bits; stable across processes. */
export function hash32(s: string): number {
  return mix(fnv1a(FNV_OFFSET, s));
}

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a's state `h` carried on over `s`. */
function fnv1a(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** murmur3's finaliser. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Scales to unit length in place; the zero vector stays zero (an empty text matches nothing). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

/** Dot product; the cosine for unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
