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
    return Promise.resolve(texts.map((t) => this.embedOne(t)));
  }

  /** Synchronous form of `embed` for one text. */
  embedOne(text: string): Float32Array {
    const features = new Map<string, number>();
    const add = (feature: string, weight: number): void => {
      features.set(feature, (features.get(feature) ?? 0) + weight);
    };
    const stems = tokenize(text);
    for (let i = 0; i < stems.length; i++) {
      const s = stems[i]!;
      add(`w:${s}`, 1);
      if (i > 0) add(`b:${stems[i - 1]} ${s}`, this.bigramWeight);
      if (this.trigramWeight > 0) for (const g of trigrams(s)) add(`g:${g}`, this.trigramWeight);
      if (this.conceptWeight > 0) for (const c of conceptsOf(s)) add(`c:${c}`, this.conceptWeight);
    }

    const v = new Float32Array(this.dimensions);
    for (const [feature, count] of features) {
      const h = hash32(feature);
      // sublinear frequency: a word said five times is not five times as relevant
      const weight = count >= 1 ? 1 + Math.log(count) : count;
      // the hash's top bit picks the sign, so collisions cancel out on average instead of piling up
      v[h % this.dimensions]! += h & 0x80000000 ? -weight : weight;
    }
    return normalize(v);
  }
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
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
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
  for (const x of v) sum += x * x;
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
