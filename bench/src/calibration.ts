/**
 * How well the review's confidence says how likely the call is right: over the calls the
 * review scored (approved or skipped for confidence, not refused by its code checks) in cases
 * with known answers, a reliability table (ten bins of confidence: mean confidence against the
 * share of right tools), its expected calibration error, and the share right among the calls
 * at or above the threshold. bench/README.md defines each.
 */
import { round } from "./metrics.js";
import { escapeXml } from "./report.js";

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
}

const BINS = 10;

/** The figures of `samples` (calibrated confidences, as the review gave them). */
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
  };
}

const COLORS = ["#2171b5", "#e6550d", "#31a354", "#756bb1"];

/** A reliability diagram: per dataset, each bin's share right against its mean confidence, and the diagonal. Plain SVG. */
export function reliabilityChart(results: readonly { dataset: string; calibration?: CalibrationResult }[]): string {
  const size = 240;
  const left = 44;
  const top = 16;
  const legend = 18;
  const shown = results.filter((r) => r.calibration && r.calibration.n > 0);
  const width = left + size + 150;
  const height = top + size + 40;
  const x = (v: number) => Math.round((left + v * size) * 10) / 10;
  const y = (v: number) => Math.round((top + (1 - v) * size) * 10) / 10;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  for (let t = 0; t <= 5; t++) {
    const v = t / 5;
    out.push(
      `<line x1="${x(0)}" x2="${x(1)}" y1="${y(v)}" y2="${y(v)}" stroke="#e0e0e0"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${v.toFixed(1)}</text>`,
      `<text x="${x(v)}" y="${y(0) + 16}" text-anchor="middle" fill="#555">${v.toFixed(1)}</text>`,
    );
  }
  out.push(
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${x(0.5)}" y="${height - 4}" text-anchor="middle" fill="#333">review confidence</text>`,
    `<text x="12" y="${y(0.5)}" text-anchor="middle" fill="#333" transform="rotate(-90 12 ${y(0.5)})">share right</text>`,
  );
  shown.forEach((r, i) => {
    const color = COLORS[i % COLORS.length];
    const points = r.calibration!.bins.filter((b) => b.n > 0).map((b) => `${x(b.confidence!)},${y(b.accuracy!)}`);
    out.push(`<polyline points="${points.join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const b of r.calibration!.bins.filter((bin) => bin.n > 0)) {
      out.push(
        `<circle cx="${x(b.confidence!)}" cy="${y(b.accuracy!)}" r="3" fill="${color}"><title>${escapeXml(r.dataset)}: ${b.n} calls at ${b.confidence}, ${b.accuracy} right</title></circle>`,
      );
    }
    const ly = top + 10 + i * legend;
    out.push(
      `<rect x="${left + size + 14}" y="${ly - 9}" width="12" height="12" fill="${color}"/>`,
      `<text x="${left + size + 30}" y="${ly + 1}" fill="#333">${escapeXml(r.dataset)} (ECE ${r.calibration!.ece.toFixed(3)})</text>`,
    );
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}
