// `node bench/dist/scale-chart-cli.js <route-scale results.json> <out.svg>`: the chart of
// docs/performance.md, drawn from a route-scale results file (bench/results/route-scale-*.json).
import { readFileSync, writeFileSync } from "node:fs";
import type { ResultsFile } from "./perf/bench-result.js";
import { scaleChart } from "./perf/scale-chart.js";

const [from, to] = process.argv.slice(2);
if (!from || !to) {
  process.stderr.write("Usage: node bench/dist/scale-chart-cli.js <route-scale results.json> <out.svg>\n");
  process.exit(2);
}
const file = JSON.parse(readFileSync(from, "utf8")) as ResultsFile;
writeFileSync(to, scaleChart(file.results));
process.stderr.write(`${to}: ${file.results.length} results of ${file.startedAt}\n`);
