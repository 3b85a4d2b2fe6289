import type { BenchCase } from "@switchyard/bench-data";
import { exampleKey } from "@switchyard/learning";
import { mulberry32, shuffleInPlace } from "@switchyard/retrieval";

export interface LearnSplit {
  /** Cases whose query becomes an example of each of their expected tools. */
  learned: BenchCase[];
  /** Cases that are scored: all others, except any whose query text is one of the learned ones. */
  scored: BenchCase[];
}

/**
 * Takes round(fraction × n) of the n cases with a non-empty `expected`, chosen
 * by a seeded shuffle (the same seed gives the same split), as learned
 * examples. A case whose query is the same example as a learned one (the
 * router's `exampleKey`: whitespace collapsed, lower-cased) is not scored, so
 * no query is ever scored on itself, not even through a duplicate.
 */
export function learnSplit(cases: readonly BenchCase[], fraction: number, seed: number): LearnSplit {
  if (!(fraction >= 0 && fraction < 1)) throw new RangeError(`the learn fraction must be in [0, 1), got ${fraction}`);
  const eligible = cases.filter((c) => c.expected.length > 0);
  const order = shuffleInPlace(
    Array.from({ length: eligible.length }, (_, i) => i),
    mulberry32(seed),
  );
  const take = Math.round(fraction * eligible.length);
  const learnedSet = new Set(order.slice(0, take).map((i) => eligible[i]!));
  const learned = cases.filter((c) => learnedSet.has(c));
  const texts = new Set(learned.map((c) => exampleKey(c.query)));
  const scored = cases.filter((c) => !learnedSet.has(c) && !texts.has(exampleKey(c.query)));
  return { learned, scored };
}

/**
 * The learned cases with a seeded share `noise` of them taught to a wrong tool instead: each
 * such case's expected tools replaced by one tool of `toolNames` it does not expect, as a
 * user who accepted a wrong call would teach it. The same seed gives the same mistakes.
 */
export function withLabelNoise(learned: readonly BenchCase[], toolNames: readonly string[], noise: number, seed: number): BenchCase[] {
  if (!(noise >= 0 && noise <= 1)) throw new RangeError(`the label noise must be in [0, 1], got ${noise}`);
  const random = mulberry32(seed ^ 0x5eed);
  const wrong = new Set(shuffleInPlace(learned.map((_, i) => i), random).slice(0, Math.round(noise * learned.length)));
  return learned.map((c, i) => {
    if (!wrong.has(i)) return c;
    const others = toolNames.filter((name) => !c.expected.includes(name));
    return others.length === 0 ? c : { ...c, expected: [others[Math.floor(random() * others.length)]!] };
  });
}
