/**
 * The chart of docs/performance.md: route-scale's p50 against catalog size, both axes
 * logarithmic, one line per system, the targets marked. Plain SVG, no fonts or scripts.
 */
import { escapeXml } from "../report.js";
import type { BenchResult } from "./bench-result.js";

const COLORS: Record<string, string> = { switchyard: "#08519c", "switchyard-1-thread": "#6baed6", minisearch: "#e6550d", orama: "#31a354", "wink-bm25": "#756bb1" };
/** The issue's targets: p50 at 1,000 and at 100,000 tools. */
const TARGETS = [
  { tools: 1_000, p50Ms: 1 },
  { tools: 100_000, p50Ms: 10 },
];

export function scaleChart(results: readonly BenchResult[]): string {
  const rows = results.filter((r) => r.bench === "route-scale" && r.p50Ms > 0);
  if (rows.length === 0) throw new Error("no route-scale results to draw");
  const width = 640;
  const height = 380;
  const left = 64;
  const right = 130;
  const top = 28;
  const bottom = 48;
  const sizes = rows.map((r) => Number(r.config["tools"]));
  const values = [...rows.map((r) => r.p50Ms), ...TARGETS.map((t) => t.p50Ms)];
  const [x0, x1] = [Math.floor(Math.log10(Math.min(...sizes))), Math.ceil(Math.log10(Math.max(...sizes)))];
  const [y0, y1] = [Math.floor(Math.log10(Math.min(...values))), Math.ceil(Math.log10(Math.max(...values)))];
  const px = (tools: number) => round(left + ((Math.log10(tools) - x0) / Math.max(1, x1 - x0)) * (width - left - right));
  const py = (ms: number) => round(top + (1 - (Math.log10(ms) - y0) / Math.max(1, y1 - y0)) * (height - top - bottom));
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="16" fill="#222" font-size="12">route-only search p50 (ms) against catalog size (tools), log–log</text>`,
  ];
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    out.push(`<line x1="${left}" x2="${width - right}" y1="${y}" y2="${y}" stroke="#e0e0e0"/>`, `<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#555">${label(10 ** e)}</text>`);
  }
  for (let e = x0; e <= x1; e++) {
    const x = px(10 ** e);
    out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${height - bottom}" stroke="#e0e0e0"/>`, `<text x="${x}" y="${height - bottom + 16}" text-anchor="middle" fill="#555">${(10 ** e).toLocaleString("en-US")}</text>`);
  }
  out.push(`<text x="${(left + width - right) / 2}" y="${height - 10}" text-anchor="middle" fill="#333">tools in the catalog</text>`);
  const systems = [...new Set(rows.map((r) => String(r.config["system"])))];
  systems.forEach((system, i) => {
    const color = COLORS[system] ?? "#636363";
    const line = rows.filter((r) => r.config["system"] === system).sort((a, b) => Number(a.config["tools"]) - Number(b.config["tools"]));
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${line.map((r) => `${px(Number(r.config["tools"]))},${py(r.p50Ms)}`).join(" ")}"/>`);
    for (const r of line) {
      out.push(`<circle cx="${px(Number(r.config["tools"]))}" cy="${py(r.p50Ms)}" r="3" fill="${color}"><title>${escapeXml(system)} ${r.config["tools"]} tools: p50 ${r.p50Ms} ms</title></circle>`);
    }
    const ly = top + 10 + i * 18;
    out.push(`<line x1="${width - right + 12}" x2="${width - right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`, `<text x="${width - right + 38}" y="${ly + 4}" fill="#222">${escapeXml(system)}</text>`);
  });
  const ty = top + 10 + systems.length * 18;
  out.push(`<text x="${width - right + 22}" y="${ty + 4}" text-anchor="middle" fill="#cb181d" font-size="13">×</text>`, `<text x="${width - right + 38}" y="${ty + 4}" fill="#222">target</text>`);
  for (const t of TARGETS) out.push(`<text x="${px(t.tools)}" y="${py(t.p50Ms) + 4}" text-anchor="middle" fill="#cb181d" font-size="13">×<title>target: p50 ≤ ${t.p50Ms} ms at ${t.tools} tools</title></text>`);
  out.push(`<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#888"/>`, "</svg>");
  return out.join("\n") + "\n";
}

function label(ms: number): string {
  return ms >= 1 ? String(ms) : ms.toFixed(-Math.floor(Math.log10(ms)));
}

/** A tenth of a pixel is finer than the eye and keeps the file small. */
function round(x: number): number {
  return Math.round(x * 10) / 10;
}
