/**
 * How well the review's confidence says how likely the call is right: over the calls the
 * review scored (approved or skipped for confidence, not refused by its code checks) in cases
 * with known answers, a reliability table (ten bins of confidence: mean confidence against the
 * share of right tools), its expected calibration error, and the share right among the calls
 * at or above the threshold. bench/README.md defines each.
 */
import { round } from "./metrics.js";

/** One reviewed call: its confidence, and whether its tool is one the case expects. */
export interface CalibrationSample {
  confidence: number;
  correct: boolean;
}

export interface ReliabilityBin {
  /** Bin bounds: [lo, hi), the last one closed. */
  lo: number;
  hi: number;
  n: number;
  /** Mean confidence of its calls; null without calls. */
  confidence: number | null;
  /** Share of its calls whose tool was right; null without calls. */
  accuracy: number | null;
}

export interface CalibrationResult {
  /** Calls scored. */
  n: number;
  /** Expected calibration error: Σ over bins of (calls in bin / n) · |accuracy − confidence|. */
  ece: number;
  bins: ReliabilityBin[];
  /** Calls at or above the review threshold, and the share of them with the right tool. */
  atThreshold: { threshold: number; n: number; right: number | null };
  /** Calls skipped for confidence below the threshold, and how many of them had the right tool. */
  skipped: { n: number; right: number };
  /**
   * The calls at or above the threshold, and the share right among them, had the confidence been
   * recalibrated on these very calls, keeping its order (isotonic regression): an optimistic bound
   * on what any temperature or recalibration of this confidence could give at the threshold. Below
   * a target, only a selector that orders its calls better can reach it.
   */
  recalibrated: { n: number; right: number | null };
}

const BINS = 10;

/** The figures of `samples` (the confidences the review gave). */
export function calibrationOf(samples: readonly CalibrationSample[], threshold: number): CalibrationResult {
  const bins: ReliabilityBin[] = Array.from({ length: BINS }, (_, i) => ({ lo: i / BINS, hi: (i + 1) / BINS, n: 0, confidence: 0, accuracy: 0 }));
  for (const s of samples) {
    const bin = bins[Math.min(BINS - 1, Math.max(0, Math.floor(s.confidence * BINS)))]!;
    bin.n++;
    bin.confidence! += s.confidence;
    bin.accuracy! += s.correct ? 1 : 0;
  }
  let ece = 0;
  for (const bin of bins) {
    if (bin.n === 0) {
      bin.confidence = bin.accuracy = null;
      continue;
    }
    bin.confidence = bin.confidence! / bin.n;
    bin.accuracy = bin.accuracy! / bin.n;
    ece += (bin.n / Math.max(1, samples.length)) * Math.abs(bin.accuracy - bin.confidence);
    bin.confidence = round(bin.confidence);
    bin.accuracy = round(bin.accuracy);
  }
  const above = samples.filter((s) => s.confidence >= threshold);
  const below = samples.filter((s) => s.confidence < threshold);
  return {
    n: samples.length,
    ece: round(ece),
    bins,
    atThreshold: { threshold, n: above.length, right: above.length > 0 ? round(above.filter((s) => s.correct).length / above.length) : null },
    skipped: { n: below.length, right: below.filter((s) => s.correct).length },
    recalibrated: recalibratedAt(samples, threshold),
  };
}

/** `CalibrationResult.recalibrated`: the calls whose isotonic fit of correctness on confidence reaches the threshold. */
function recalibratedAt(samples: readonly CalibrationSample[], threshold: number): CalibrationResult["recalibrated"] {
  // calls of equal confidence are one point: the fit cannot tell them apart
  const points = new Map<number, { right: number; n: number }>();
  for (const s of samples) {
    const point = points.get(s.confidence) ?? { right: 0, n: 0 };
    point.right += s.correct ? 1 : 0;
    point.n++;
    points.set(s.confidence, point);
  }
  const ordered = [...points].sort(([a], [b]) => a - b).map(([, point]) => point);
  const fit = isotonicFit(ordered.map((p) => ({ value: p.right / p.n, weight: p.n })));
  const above = ordered.filter((_, i) => fit[i]! >= threshold);
  const n = above.reduce((sum, p) => sum + p.n, 0);
  return { n, right: n > 0 ? round(above.reduce((sum, p) => sum + p.right, 0) / n) : null };
}

/** The non-decreasing sequence closest to the values in weighted squared error (pool adjacent violators). */
export function isotonicFit(points: readonly { value: number; weight: number }[]): number[] {
  const blocks: { mean: number; weight: number; size: number }[] = [];
  for (const { value, weight } of points) {
    blocks.push({ mean: value, weight, size: 1 });
    // pool with the block before while that one's mean is higher
    while (blocks.length > 1 && blocks.at(-2)!.mean > blocks.at(-1)!.mean) {
      const last = blocks.pop()!;
      const before = blocks.at(-1)!;
      before.mean = (before.mean * before.weight + last.mean * last.weight) / (before.weight + last.weight);
      before.weight += last.weight;
      before.size += last.size;
    }
  }
  return blocks.flatMap((b) => Array.from({ length: b.size }, () => b.mean));
}
