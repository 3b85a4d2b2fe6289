import type { BenchCase } from "@switchyard/bench-data";

export interface LearnSplit {
  /** Cases whose query becomes an example of each of their expected tools. */
  learned: BenchCase[];
  /** Cases that are scored: all others, except any whose query text is one of the learned ones. */
  scored: BenchCase[];
}

/**
 * Takes round(fraction × n) of the n cases with a non-empty `expected`, chosen
 * by a seeded shuffle (the same seed gives the same split), as learned
 * examples. A case whose query text equals a learned query (after trimming
 * and lower-casing) is not scored, so no query is ever scored on itself, not
 * even through a duplicate.
 */
export function learnSplit(cases: readonly BenchCase[], fraction: number, seed: number): LearnSplit {
  if (!(fraction >= 0 && fraction < 1)) throw new RangeError(`the learn fraction must be in [0, 1), got ${fraction}`);
  const eligible = cases.filter((c) => c.expected.length > 0);
  const order = shuffled(eligible.length, seed);
  const take = Math.round(fraction * eligible.length);
  const learnedSet = new Set(order.slice(0, take).map((i) => eligible[i]!));
  const learned = cases.filter((c) => learnedSet.has(c));
  const texts = new Set(learned.map((c) => queryKey(c.query)));
  const scored = cases.filter((c) => !learnedSet.has(c) && !texts.has(queryKey(c.query)));
  return { learned, scored };
}

function queryKey(query: string): string {
  return query.trim().toLowerCase();
}

/** A permutation of 0..n-1 by Fisher–Yates with a seeded PRNG. */
function shuffled(n: number, seed: number): number[] {
  const random = mulberry32(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** mulberry32: a small 32-bit PRNG, good enough to shuffle and the same on every platform. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
