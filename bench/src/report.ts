import type { EvalResult } from "./evaluate.js";
import { RECALL_KS } from "./evaluate.js";
import { SERVER_KS } from "./by-server.js";
import { PIPELINE_ENDS } from "./pipeline.js";
import type { PipelineEnd } from "./pipeline.js";
import type { SelectionResult } from "./selection.js";
import type { TemperatureFit } from "./fit-temperature.js";
import { emptyUsage } from "./model-usage.js";

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

/** Recall on the misspelt queries (`--typos`) beside the same queries spelt right, one row per dataset that has them. */
export function typoTable(results: readonly EvalResult[]): string {
  const head = ["dataset", "n", "R@5 spelt right", "R@5 misspelt", "share", "R@5 as written", "corrections", "right"];
  const rows = results.flatMap((r) => {
    const t = r.typos;
    if (!t) return [];
    const clean = t.clean["5"] ?? 0;
    const misspelt = t.misspelt["5"] ?? 0;
    return [[r.dataset, String(t.n), fmt(clean), fmt(misspelt), fmt(clean > 0 ? misspelt / clean : null), fmt(t.uncorrected["5"] ?? 0), String(t.corrections.made), String(t.corrections.right)]];
  });
  return markdownTable(head, rows, 1);
}

/** A result as the tables read it: the committed figures (routing-figures.ts) leave the noisy latency out. */
export type TableResult = Omit<EvalResult, "latencyMs"> & Partial<Pick<EvalResult, "latencyMs">>;

/** The Markdown table of the results, one row per dataset; `latency: false` leaves the latency columns out (the READMEs' tables). */
export function resultsTable(results: readonly TableResult[], { latency = true }: { latency?: boolean } = {}): string {
  const head = ["dataset", "n", ...RECALL_KS.map((k) => `R@${k}`), "MRR", "nDCG@10", "no-tool P", "no-tool R", ...(latency ? ["p50 ms", "p99 ms"] : [])];
  const rows = results.map((r) => [
    r.dataset,
    String(r.n),
    ...RECALL_KS.map((k) => fmt(r.recall[String(k)] ?? 0)),
    fmt(r.mrr),
    fmt(r.ndcg10),
    fmt(r.noTool.precision),
    fmt(r.noTool.recall),
    ...(latency ? [fmt(r.latencyMs?.p50 ?? null, 2), fmt(r.latencyMs?.p99 ?? null, 2)] : []),
  ]);
  return markdownTable(head, rows, 1);
}

/** The README's one table: recall, then how the calls the pipeline made came out and what it got wrong about needing a tool. */
export function summaryTable(results: readonly TableResult[]): string {
  const head = ["dataset", "cases", "R@1", "R@5", "nDCG@10", "calls ≥ 0.7", "right among them", "ECE", "falseNoTool", "noToolCalled"];
  const rows = results.map((r) => [
    r.dataset,
    String(r.n),
    fmt(r.recall["1"] ?? 0),
    fmt(r.recall["5"] ?? 0),
    fmt(r.ndcg10),
    String(r.calibration.atThreshold.n),
    fmt(r.calibration.atThreshold.right),
    fmt(r.calibration.ece),
    fmt(r.falseNoTool),
    fmt(r.noToolCalled),
  ]);
  return markdownTable(head, rows, 1);
}

/** Recall and nDCG by tool beside the same by MCP server, one row per dataset whose tools name their server (by-server.ts). */
export function serverTable(results: readonly TableResult[]): string {
  const head = ["dataset", "n", ...SERVER_KS.map((k) => `R@${k} tool`), "nDCG@10 tool", ...SERVER_KS.map((k) => `R@${k} server`), "nDCG@10 server"];
  const rows = results.flatMap((r) =>
    r.byServer
      ? [[r.dataset, String(r.byServer.n), ...SERVER_KS.map((k) => fmt(r.recall[String(k)] ?? 0)), fmt(r.ndcg10), ...SERVER_KS.map((k) => fmt(r.byServer!.recall[String(k)] ?? 0)), fmt(r.byServer.ndcg10)]]
      : [],
  );
  return markdownTable(head, rows, 1);
}

/** The outcome table's column for each way a case ends. */
const END_LABELS: Record<PipelineEnd, string> = {
  call: "a call made",
  skipped: "skipped: confidence",
  refused: "refused: arguments",
  noToolIntent: "no tool: intent",
  noToolRoute: "no tool: route",
  noToolSelect: "no tool: select",
  language: "language not read offline",
};

/**
 * Where the cases that need a tool ended, one row per dataset (and per tag where the run
 * has them), with the false "no tool" rate (ended at intent or route) and the no-tool answer's
 * precision and recall. `calibration: true` adds, beside the calls made, the share right among
 * them and the ECE (calibrationTable's figures; a tag's row leaves them empty).
 */
export function outcomeTable(results: readonly TableResult[], { calibration = false }: { calibration?: boolean } = {}): string {
  const beside = (end: PipelineEnd) => calibration && end === "call";
  const head = ["dataset", "tool-need model", "falseNoTool", "noToolCalled", "no-tool P", "no-tool R", ...PIPELINE_ENDS.flatMap((end) => [END_LABELS[end], ...(beside(end) ? ["right among them", "ECE"] : [])])];
  const row = (name: string, model: string, r: Pick<EvalResult, "falseNoTool" | "noToolCalled" | "outcomes" | "noTool">, review?: EvalResult["calibration"]) => [
    name,
    model,
    fmt(r.falseNoTool),
    fmt(r.noToolCalled),
    fmt(r.noTool.precision),
    fmt(r.noTool.recall),
    ...PIPELINE_ENDS.flatMap((end) => [String(r.outcomes[end]), ...(beside(end) ? [review ? fmt(review.atThreshold.right) : "", review ? fmt(review.ece) : ""] : [])]),
  ];
  const rows = results.flatMap((r) => [
    row(r.dataset, r.toolNeedModel, r, r.calibration),
    ...Object.entries(r.byTag ?? {}).map(([tag, t]) => row(`${r.dataset} · ${tag}`, "", t)),
  ]);
  return markdownTable(head, rows, 2);
}

/**
 * The review's calibration per dataset: ECE, the calls at or above the threshold and the share right,
 * the skipped ones, and the same calls had the confidence been recalibrated in-sample.
 */
export function calibrationTable(results: readonly TableResult[]): string {
  const head = ["dataset", "calls scored", "ECE", "calls ≥ threshold", "right among them", "skipped", "right among the skipped", "recalibrated: calls ≥ threshold", "right among them"];
  const rows = results.map((r) => {
    const c = r.calibration;
    return [
      r.dataset,
      String(c.n),
      fmt(c.ece),
      String(c.atThreshold.n),
      fmt(c.atThreshold.right),
      String(c.skipped.n),
      String(c.skipped.right),
      String(c.recalibrated.n),
      fmt(c.recalibrated.right),
    ];
  });
  return markdownTable(head, rows, 1);
}

/**
 * What the models of a run with the fleet's settings were asked, one row per dataset: requests
 * (from the cache, failed), tokens, the model latency per case that asked one (p50, p99) and in
 * all, and of the cases that need a tool where a tool was selected, the share selected right.
 */
export function modelTable(results: readonly EvalResult[]): string {
  const head = ["dataset", "models", "requests", "from the cache", "failed", "prompt tokens", "completion tokens", "model ms p50", "model ms p99", "model s total", "selected", "selected right"];
  const rows = results.flatMap((r) => {
    const m = r.model;
    if (!m) return [];
    const total = m.total ?? emptyUsage();
    return [
      [
        r.dataset,
        Object.entries(m.models).map(([role, model]) => `${role}: ${model}`).join("; "),
        String(total.requests),
        String(total.cached),
        String(total.failed),
        String(total.promptTokens),
        String(total.completionTokens),
        fmt(m.latencyMs.p50, 1),
        fmt(m.latencyMs.p99, 1),
        fmt(total.latencyMs / 1000, 1),
        String(m.selected.n),
        fmt(m.selected.n > 0 ? m.selected.right / m.selected.n : null),
      ],
    ];
  });
  return markdownTable(head, rows, 2);
}

/** The Markdown table of `pnpm eval --fit-temperature`: each dataset at the temperature fitted on the others, and at the shipped one. */
export function temperatureTable(fit: TemperatureFit): string {
  const head = ["dataset", "temperature fitted on the others", "ECE at it", `ECE at the shipped ${fit.shipped}`];
  const rows = fit.heldOut.map((h) => [h.dataset, String(h.temperature), fmt(h.ece), fmt(h.shippedEce)]);
  if (fit.heldOutPooledEce !== null) rows.push(["held-out calls pooled", "", fmt(fit.heldOutPooledEce), ""]);
  rows.push(["fitted on all (mean ECE)", String(fit.all.temperature), fmt(fit.all.ece), ""]);
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
  const models = results.some((r) => r.model)
    ? `\n## What the models were asked\n\n${modelTable(results)}\n\nEvery case's requests, tokens and model latency are in \`<dataset>.json\` (\`model.cases\`); a cached answer keeps the usage and latency it had when it was asked.\n`
    : "";
  const scale = ctx.scale
    ? `\nRoute latency with the ${ctx.scale.dataset} catalog padded to ${ctx.scale.tools} tools: ` +
      `p50 ${fmt(ctx.scale.p50, 2)} ms, p99 ${fmt(ctx.scale.p99, 2)} ms.\n`
    : "";
  return `# Routing quality

\`${ctx.command}\`

Embedder: \`${ctx.embedder}\`

${resultsTable(results)}
${scale}${results.some((r) => r.typos) ? `\n## Misspelt requests\n\n${typoTable(results)}\n` : ""}${results.some((r) => r.byServer) ? `\n## By tool and by MCP server\n\n${serverTable(results)}\n` : ""}
![recall@k per dataset](${ctx.chart})

## Where the requests that need a tool ended

${outcomeTable(results)}

## The review's confidence: does 0.7 mean 70 % right?

${calibrationTable(results)}

![reliability diagram](${ctx.reliability})
${models}
## Metrics

- **R@k** (recall@k): over the cases with a non-empty \`expected\`, the mean of |expected ∩ top-k| / |expected|.
- **MRR**: mean reciprocal rank of the first expected tool in the top 10 (0 when none is there), same cases.
- **nDCG@10**: binary relevance (an expected tool is 1, any other 0), DCG over the ideal DCG, same cases.
- **no-tool P / R**: over all scored cases, precision and recall of the product's "no tool" answer
  (bench/src/evaluate.ts says how it is taken) against \`expected: []\`. Where a case lists \`candidates\`
  (BFCL), the answer is taken within them, where the labels hold. n/a: no case answered or expected "no tool".
- **falseNoTool**: of the cases that need a tool, the share the pipeline answered "no tool" at intent
  or route. The outcome columns count those cases by how they ended (bench/README.md).
- **noToolCalled**: of the cases that need no tool (\`expected: []\`), the share that ended in a call.
- **rightAtThreshold** (\`--json\`; "right among them" below): of the calls at or above the review's
  threshold, the share whose tool is one the case expects.
- **tool-need model**: which model answered the no-tool decision; leave-one-catalog-out (the default)
  was never trained on the evaluated dataset.
- **calibration**: over the calls the review scored (approved, or skipped for confidence) in cases that
  expect a tool: ECE is the expected calibration error over ten bins of confidence (calls in the bin
  over all calls × |share right − mean confidence|); a call is right when its tool is one the case expects.
  **recalibrated**: the calls at or above the threshold had the confidence been recalibrated on these very
  calls, keeping its order (isotonic regression), and the share right among them: an optimistic bound on
  what any temperature or recalibration of this confidence could give at the threshold.
- **by server** (datasets whose tools name their MCP server): a case's gold servers (those of its expected
  tools) against the servers of the ranked top 10 tools, each server at its first rank; R@k and nDCG@10 as above.
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
  out.push(...horizontalGrid(left, width - 8, y));
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

const SERIES_COLORS = ["#2171b5", "#e6550d", "#31a354", "#756bb1"];

/** A reliability diagram: per dataset, each bin's share right against its mean confidence, and the diagonal. Plain SVG. */
export function reliabilityChart(results: readonly Pick<EvalResult, "dataset" | "calibration">[]): string {
  const size = 240;
  const left = 44;
  const top = 16;
  const legend = 18;
  const shown = results.filter((r) => r.calibration.n > 0);
  const width = left + size + 150;
  const height = top + size + 40;
  const x = (v: number) => Math.round((left + v * size) * 10) / 10;
  const y = (v: number) => Math.round((top + (1 - v) * size) * 10) / 10;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  out.push(...horizontalGrid(x(0), x(1), y));
  for (const v of TICKS) out.push(`<text x="${x(v)}" y="${y(0) + 16}" text-anchor="middle" fill="#555">${v.toFixed(1)}</text>`);
  out.push(
    `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<text x="${x(0.5)}" y="${height - 4}" text-anchor="middle" fill="#333">review confidence</text>`,
    `<text x="12" y="${y(0.5)}" text-anchor="middle" fill="#333" transform="rotate(-90 12 ${y(0.5)})">share right</text>`,
  );
  shown.forEach((r, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length];
    const points = r.calibration.bins.filter((b) => b.n > 0).map((b) => `${x(b.confidence!)},${y(b.accuracy!)}`);
    out.push(`<polyline points="${points.join(" ")}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const b of r.calibration.bins.filter((bin) => bin.n > 0)) {
      out.push(
        `<circle cx="${x(b.confidence!)}" cy="${y(b.accuracy!)}" r="3" fill="${color}"><title>${escapeXml(r.dataset)}: ${b.n} calls at ${b.confidence}, ${b.accuracy} right</title></circle>`,
      );
    }
    const ly = top + 10 + i * legend;
    out.push(
      `<rect x="${left + size + 14}" y="${ly - 9}" width="12" height="12" fill="${color}"/>`,
      `<text x="${left + size + 30}" y="${ly + 1}" fill="#333">${escapeXml(r.dataset)} (ECE ${r.calibration.ece.toFixed(3)})</text>`,
    );
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/** The ticks of a 0–1 axis. */
const TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];

/** Light horizontal lines at each tick of a 0–1 axis from x1 to x2, labelled on the left. */
function horizontalGrid(x1: number, x2: number, y: (v: number) => number): string[] {
  return TICKS.flatMap((v) => [
    `<line x1="${x1}" x2="${x2}" y1="${y(v)}" y2="${y(v)}" stroke="#e0e0e0"/>`,
    `<text x="${x1 - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${v.toFixed(1)}</text>`,
  ]);
}

/** ".62" for 0.62: the chart has room for three characters per bar. */
function barLabel(v: number): string {
  return v >= 0.995 ? "1" : v.toFixed(2).slice(1);
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
