// An embedder that counts the texts it is asked to embed, around a real one:
// how tests see whether an index re-embedded or reused stored vectors.
import { LocalEmbedder } from "../src/embedder.js";
import type { Embedder } from "../src/embedder.js";

export interface Counted {
  embedder: Embedder;
  /** Texts embedded so far. */
  texts(): number;
}

export function countTexts(inner: Embedder = new LocalEmbedder()): Counted {
  let texts = 0;
  const embedder: Embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    embed: (batch) => {
      texts += batch.length;
      return inner.embed(batch);
    },
  };
  return { embedder, texts: () => texts };
}
