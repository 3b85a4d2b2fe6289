import type { EvalResult } from "./evaluate.js";
import { RECALL_KS } from "./evaluate.js";
import type { SelectionResult } from "./selection.js";

/** What the report says about how it was made. */
export interface ReportContext {
  /** The command line, as a user would type it. */
  command: string;
  /** The embedder's id (model and settings). */
  embedder: string;
  /** Route latency on a catalog padded to a given size, when measured. */
  scale?: { dataset: string; tools: number; p50: number; p99: number };
  /** The chart's file name, beside the report. */
  chart: string;
  /** The reliability diagram's file name, beside the report. */
  reliability: string;
}

const fmt = (x: number | null, digits = 3): string => (x === null ? "n/a" : x.toFixed(digits));

/** The Markdown table of the results, one row per dataset (also used in the root README). */
export function resultsTable(results: readonly EvalResult[]): string {
  const head = ["dataset", "n", ...RECALL_KS.map((k) => `R@${k}`), "MRR", "nDCG@10", "no-tool P", "no-tool R", "p50 ms", "p99 ms"];
  const rows = results.map((r) => [
    r.dataset,
    String(r.n),
    ...RECALL_KS.map((k) => fmt(r.recall[String(k)] ?? 0)),
    fmt(r.mrr),
    fmt(r.ndcg10),
    fmt(r.noTool.precision),
    fmt(r.noTool.recall),
    fmt(r.latencyMs.p50, 2),
    fmt(r.latencyMs.p99, 2),
  ]);
  return markdownTable(head, rows, 1);
}

const ENDS = [
  ["call", "a call made"],
  ["skipped", "skipped: confidence"],
  ["refused", "refused: arguments"],
  ["noToolIntent", "no tool: intent"],
  ["noToolRoute", "no tool: route"],
  ["noToolSelect", "no tool: select"],
  ["language", "language not read offline"],
] as const;

/**
 * Where the cases that need a tool ended, one row per dataset (and per tag where the run
 * has them), with the false "no tool" rate (ended at intent or route) and the no-tool answer's
 * precision and recall.
 */
export function outcomeTable(results: readonly EvalResult[]): string {
  const head = ["dataset", "tool-need model", "falseNoTool", "no-tool P", "no-tool R", ...ENDS.map(([, label]) => label)];
  const row = (name: string, model: string, r: Pick<EvalResult, "falseNoTool" | "outcomes" | "noTool">) => [
    name,
    model,
    fmt(r.falseNoTool),
    fmt(r.noTool.precision),
    fmt(r.noTool.recall),
    ...ENDS.map(([key]) => String(r.outcomes[key])),
  ];
  const rows = results.flatMap((r) => [
    row(r.dataset, r.toolNeedModel, r),
    ...Object.entries(r.byTag ?? {}).map(([tag, t]) => row(`${r.dataset} · ${tag}`, "", t)),
  ]);
  return markdownTable(head, rows, 2);
}

/** The review's calibration per dataset: ECE, the calls at or above the threshold and the share right, the skipped ones. */
export function calibrationTable(results: readonly EvalResult[]): string {
  const head = ["dataset", "calls scored", "ECE", "calls ≥ threshold", "right among them", "skipped", "right among the skipped"];
  const rows = results.map((r) => {
    const c = r.calibration;
    return [r.dataset, String(c.n), fmt(c.ece), String(c.atThreshold.n), fmt(c.atThreshold.right), String(c.skipped.n), String(c.skipped.right)];
  });
  return markdownTable(head, rows, 1);
}

/** The Markdown table of `pnpm eval --selection`, one row per dataset and selector. */
export function selectionTable(results: readonly SelectionResult[]): string {
  const head = ["dataset", "selector", "n", "tool top-1", "exact arguments", "arguments when the tool is right"];
  const rows = results.map((r) => [r.dataset, r.selector, String(r.n), fmt(r.toolAccuracy), fmt(r.argumentAccuracy), fmt(r.argumentAccuracyGivenTool)]);
  return markdownTable(head, rows, 2);
}

/** A Markdown table, its columns from `firstNumeric` on right-aligned. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[], firstNumeric: number): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map((_, i) => (i < firstNumeric ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

/** The whole Markdown report: settings, table, chart, and what each metric means. */
export function markdownReport(results: readonly EvalResult[], ctx: ReportContext): string {
  const scale = ctx.scale
    ? `\nRoute latency with the ${ctx.scale.dataset} catalog padded to ${ctx.scale.tools} tools: ` +
      `p50 ${fmt(ctx.scale.p50, 2)} ms, p99 ${fmt(ctx.scale.p99, 2)} ms.\n`
    : "";
  return `# Routing quality

\`${ctx.command}\`

Embedder: \`${ctx.embedder}\`

${resultsTable(results)}
${scale}
![recall@k per dataset](${ctx.chart})

## Where the requests that need a tool ended

${outcomeTable(results)}

## The review's confidence: does 0.7 mean 70 % right?

${calibrationTable(results)}

![reliability diagram](${ctx.reliability})

## Metrics

- **R@k** (recall@k): over the cases with a non-empty \`expected\`, the mean of |expected ∩ top-k| / |expected|.
- **MRR**: mean reciprocal rank of the first expected tool in the top 10 (0 when none is there), same cases.
- **nDCG@10**: binary relevance (an expected tool is 1, any other 0), DCG over the ideal DCG, same cases.
- **no-tool P / R**: over all scored cases, precision and recall of the product's "no tool" answer
  (bench/src/evaluate.ts says how it is taken) against \`expected: []\`. Where a case lists \`candidates\`
  (BFCL), the answer is taken within them, where the labels hold. n/a: no case answered or expected "no tool".
- **falseNoTool**: of the cases that need a tool, the share the pipeline answered "no tool" at intent
  or route. The outcome columns count those cases by how they ended (bench/README.md).
- **tool-need model**: which model answered the no-tool decision; leave-one-catalog-out (the default)
  was never trained on the evaluated dataset.
- **calibration**: over the calls the review scored (approved, or skipped for confidence) in cases that
  expect a tool: ECE is the expected calibration error over ten bins of confidence (calls in the bin
  over all calls × |share right − mean confidence|); a call is right when its tool is one the case expects.
  Leave one catalog out, the confidence map was fitted on the other datasets.
- **p50 / p99 ms**: wall time of the router's search per case, in process, embedding of the query included.
- **n**: scored cases; with \`--learn-fraction\` the learned ones are left out.
`;
}

const COLORS = ["#c6dbef", "#6baed6", "#2171b5", "#08306b"];

/** A grouped bar chart of recall@k, one group per dataset, one bar per k; plain SVG, no fonts or scripts loaded. */
export function recallChart(results: readonly EvalResult[]): string {
  const bar = 22;
  const gap = 4;
  const groupWidth = RECALL_KS.length * (bar + gap) + 28;
  const left = 44;
  const top = 34;
  const plotHeight = 200;
  const legendWidth = 70;
  const width = Math.max(left + Math.max(1, results.length) * groupWidth + 16, left + RECALL_KS.length * legendWidth + 12);
  const height = top + plotHeight + 40;
  // one decimal is finer than a pixel and keeps the file small
  const y = (v: number): number => Math.round((top + plotHeight * (1 - v)) * 10) / 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  for (let t = 0; t <= 5; t++) {
    const v = t / 5;
    out.push(
      `<line x1="${left}" x2="${width - 8}" y1="${y(v)}" y2="${y(v)}" stroke="#e0e0e0"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${v.toFixed(1)}</text>`,
    );
  }
  RECALL_KS.forEach((k, i) => {
    const x = left + i * legendWidth;
    out.push(
      `<rect x="${x}" y="10" width="12" height="12" fill="${COLORS[i]}"/>`,
      `<text x="${x + 16}" y="20" fill="#333">recall@${k}</text>`,
    );
  });
  results.forEach((r, g) => {
    const x0 = left + g * groupWidth + 14;
    RECALL_KS.forEach((k, i) => {
      const v = Math.max(0, Math.min(1, r.recall[String(k)] ?? 0));
      const x = x0 + i * (bar + gap);
      out.push(
        `<rect x="${x}" y="${y(v)}" width="${bar}" height="${Math.round(plotHeight * v * 10) / 10}" fill="${COLORS[i]}"><title>${escapeXml(r.dataset)} recall@${k} ${v.toFixed(3)}</title></rect>`,
        `<text x="${x + bar / 2}" y="${y(v) - 3}" text-anchor="middle" font-size="9" fill="#333">${barLabel(v)}</text>`,
      );
    });
    const center = x0 + (RECALL_KS.length * (bar + gap) - gap) / 2;
    out.push(`<text x="${center}" y="${top + plotHeight + 18}" text-anchor="middle" fill="#222">${escapeXml(r.dataset)}</text>`);
  });
  out.push(`<line x1="${left}" x2="${width - 8}" y1="${y(0)}" y2="${y(0)}" stroke="#888"/>`, "</svg>");
  return out.join("\n") + "\n";
}

/** ".62" for 0.62: the chart has room for three characters per bar. */
function barLabel(v: number): string {
  return v >= 0.995 ? "1" : v.toFixed(2).slice(1);
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
