import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export interface EmbeddingCacheOptions {
  /**
   * The most vectors kept; past it the least recently used go. Bounds memory
   * (and the file, which is compacted when opened) when queries are cached too.
   * @default 100000
   */
  maxEntries?: number;
  /** Told when the file cannot be written; the cache keeps working in memory. @default ignore */
  onError?: (error: unknown) => void;
}

/**
 * Vectors by content: the key is sha256 of the model id and the text, so a
 * text that has not changed is never embedded twice by the same model, and a
 * vector is never served for another model. In memory, and optionally in an
 * append-only file (one JSON line per vector) so that a restart does not
 * re-embed; `open` reads it back and compacts it. Replicas may share the file:
 * each line is written whole, and a torn line is skipped when read.
 */
export class EmbeddingCache {
  private readonly entries = new Map<string, Float32Array>();
  private readonly maxEntries: number;
  private readonly onError: (error: unknown) => void;
  private pending: string[] = [];
  private writing: Promise<void> = Promise.resolve();

  constructor(
    options: EmbeddingCacheOptions = {},
    /** The file vectors are appended to; none keeps the cache in memory only. */
    readonly file?: string,
  ) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.onError = options.onError ?? (() => undefined);
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError("maxEntries must be an integer >= 1");
  }

  /**
   * A cache persisted in `file` (created with its folder when missing). The
   * newest `maxEntries` vectors are loaded and the file is rewritten with just
   * those, so it does not grow without end.
   */
  static async open(file: string, options: EmbeddingCacheOptions = {}): Promise<EmbeddingCache> {
    const cache = new EmbeddingCache(options, file);
    let text = "";
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const lines = text.split("\n").filter((line) => line.length > 0);
    for (const line of lines) {
      const entry = parseLine(line);
      if (entry) cache.remember(entry.key, entry.vector);
    }
    // rewrite when lines are stale, torn or over the limit, and create the file (and folder) when missing
    if (lines.length > cache.size || text.length === 0) {
      await mkdir(dirname(file), { recursive: true });
      // write aside and rename, so a crash mid-write leaves the old file whole
      const fresh = `${file}.${process.pid}.tmp`;
      await writeFile(fresh, [...cache.entries].map(([key, vector]) => formatLine(key, vector)).join(""));
      await rename(fresh, file);
    }
    return cache;
  }

  /** The cache key: sha256 over the model id and the text. */
  static key(modelId: string, text: string): string {
    return createHash("sha256").update(modelId).update("\0").update(text).digest("hex");
  }

  get size(): number {
    return this.entries.size;
  }

  /** The vector stored for this model and text, if any (and of `dimensions` length, when given). */
  get(modelId: string, text: string, dimensions?: number): Float32Array | undefined {
    const key = EmbeddingCache.key(modelId, text);
    const vector = this.entries.get(key);
    if (!vector || (dimensions !== undefined && vector.length !== dimensions)) return undefined;
    // re-insert: a Map iterates in insertion order, so this keeps the least recently used first
    this.entries.delete(key);
    this.entries.set(key, vector);
    return vector;
  }

  /** Stores a vector; with a file, it is appended on the next `flush`. */
  set(modelId: string, text: string, vector: Float32Array): void {
    const key = EmbeddingCache.key(modelId, text);
    this.remember(key, vector);
    if (this.file) this.pending.push(formatLine(key, vector));
  }

  /**
   * The vectors of `texts`, from the cache where there, the rest computed by
   * `compute` (each distinct missing text once, in order) and stored.
   * `missed` are the texts that were computed.
   */
  async through(
    modelId: string,
    texts: readonly string[],
    compute: (missing: string[]) => Promise<Float32Array[]>,
    dimensions?: number,
  ): Promise<{ vectors: Float32Array[]; missed: string[] }> {
    const found = new Map<string, Float32Array>();
    const missed: string[] = [];
    for (const text of new Set(texts)) {
      const vector = this.get(modelId, text, dimensions);
      if (vector) found.set(text, vector);
      else missed.push(text);
    }
    if (missed.length > 0) {
      const computed = await compute(missed);
      if (computed.length !== missed.length) throw new Error(`computed ${computed.length} vectors for ${missed.length} texts`);
      missed.forEach((text, i) => {
        found.set(text, computed[i]!);
        this.set(modelId, text, computed[i]!);
      });
      await this.flush();
    }
    return { vectors: texts.map((t) => found.get(t)!), missed };
  }

  /** Writes what `set` stored since the last flush to the file; failures go to `onError`. */
  flush(): Promise<void> {
    if (!this.file || this.pending.length === 0) return this.writing;
    const lines = this.pending.join("");
    this.pending = [];
    const file = this.file;
    this.writing = this.writing.then(() => appendFile(file, lines)).catch(this.onError);
    return this.writing;
  }

  private remember(key: string, vector: Float32Array): void {
    this.entries.delete(key);
    this.entries.set(key, vector);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** One line of the file: the key and the vector's float32 bytes (little-endian, as on every platform Node runs on) in base64. */
function formatLine(key: string, vector: Float32Array): string {
  return `${JSON.stringify({ k: key, v: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64") })}\n`;
}

function parseLine(line: string): { key: string; vector: Float32Array } | undefined {
  try {
    const { k, v } = JSON.parse(line) as { k?: unknown; v?: unknown };
    if (typeof k !== "string" || typeof v !== "string") return undefined;
    const bytes = Buffer.from(v, "base64");
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    // copy into a fresh, aligned buffer: the pooled Buffer's offset may not be a multiple of 4
    const vector = new Float32Array(bytes.length / 4);
    new Uint8Array(vector.buffer).set(bytes);
    return { key: k, vector };
  } catch {
    return undefined;
  }
}
