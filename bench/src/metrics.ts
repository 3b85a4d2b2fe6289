/**
 * Retrieval metrics over one ranked list of tool names, and the aggregates of
 * the report. bench/README.md states each definition.
 */

/** |expected ∩ top-k| / |expected|; 0 for an empty `expected` (such cases are not averaged). */
export function recallAt(expected: readonly string[], ranked: readonly string[], k: number): number {
  if (expected.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return expected.filter((name) => top.has(name)).length / expected.length;
}

/** 1 / the rank of the first expected tool in `ranked`, 0 when none is there. */
export function reciprocalRank(expected: readonly string[], ranked: readonly string[]): number {
  const wanted = new Set(expected);
  const at = ranked.findIndex((name) => wanted.has(name));
  return at < 0 ? 0 : 1 / (at + 1);
}

/** nDCG@k with binary relevance: DCG of `ranked` over the DCG of a ranking with every expected tool first. */
export function ndcgAt(expected: readonly string[], ranked: readonly string[], k: number): number {
  const wanted = new Set(expected);
  let dcg = 0;
  ranked.slice(0, k).forEach((name, i) => {
    if (wanted.has(name)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(wanted.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Nearest-rank percentile (p in (0, 100]) of unsorted values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The median (the mean of the middle two for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Counts of the "no tool" answer against `expected: []`. Precision is null
 * when the router never answered "no tool", recall is null when no case
 * expects it (API-Bank): a ratio of nothing is not a figure.
 */
export class NoToolTally {
  private truePositive = 0;
  private falsePositive = 0;
  private falseNegative = 0;

  add(predictedNoTool: boolean, expectedNoTool: boolean): void {
    if (predictedNoTool && expectedNoTool) this.truePositive++;
    else if (predictedNoTool) this.falsePositive++;
    else if (expectedNoTool) this.falseNegative++;
  }

  get precision(): number | null {
    const answered = this.truePositive + this.falsePositive;
    return answered > 0 ? this.truePositive / answered : null;
  }

  get recall(): number | null {
    const expected = this.truePositive + this.falseNegative;
    return expected > 0 ? this.truePositive / expected : null;
  }
}

/** The mean, 0 for none. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** A reported figure: 4 decimals. */
export function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** `round`, keeping null (a ratio without cases). */
export function roundOrNull(x: number | null): number | null {
  return x === null ? null : round(x);
}
