import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EvalResult } from "./evaluate.js";
import { fillMarked } from "./marked-blocks.js";
import type { ProgressStream } from "./progress.js";
import { calibrationTable, outcomeTable, resultsTable, serverTable, summaryTable } from "./report.js";
import { runEval } from "./run-eval.js";

/** The repository root, from bench/dist or bench/src. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The committed figures, relative to the root (bench/results is git-ignored). */
export const FIGURES_FILE = "bench/figures/routing.json";

/** The command that measures the figures and writes them and the tables (figures-cli.ts). */
export const FIGURES_COMMAND = "npx --yes pnpm@10 figures";

/** The `pnpm eval` runs the documents quote, offline (no model), latency off: it is noisy (docs/performance.md has it). */
const RUNS = {
  default: ["--latency-tools", "0"],
  livemcp: ["--dataset", "livemcp,livemcp-zero", "--latency-tools", "0"],
  learned: ["--learn-fraction", "0.5", "--latency-tools", "0"],
} as const;

type RunName = keyof typeof RUNS;

/** A result as `pnpm eval --json` prints it, less the latency. */
export type FigureResult = Omit<EvalResult, "latencyMs">;

/** bench/figures/routing.json: per run, the command a reader can type and what it printed. */
export type RoutingFigures = Record<RunName, { command: string; results: FigureResult[] }>;

/** Runs each eval of `RUNS` in process, as `pnpm eval --json` with no model settings in the environment; progress goes to `stderr`. */
export async function measureFigures(stderr: ProgressStream): Promise<RoutingFigures> {
  const out = mkdtempSync(join(tmpdir(), "switchyard-figures-"));
  try {
    const figures: Partial<RoutingFigures> = {};
    for (const [name, args] of Object.entries(RUNS) as [RunName, readonly string[]][]) {
      let printed = "";
      const stdout = { write: (chunk: string | Uint8Array) => ((printed += String(chunk)), true) };
      const code = await runEval([...args, "--json", "--out", out], { stdout, stderr, env: {} });
      if (code !== 0) throw new Error(`pnpm eval ${args.join(" ")} failed (exit code ${code})`);
      const results = printed.trim().split("\n").map((line) => withoutLatency(JSON.parse(line) as EvalResult));
      figures[name] = { command: ["npx --yes pnpm@10 eval", ...args].join(" "), results };
    }
    return figures as RoutingFigures;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function withoutLatency({ latencyMs: _latency, ...rest }: EvalResult): FigureResult {
  return rest;
}

export function readFigures(root = ROOT): RoutingFigures {
  return JSON.parse(readFileSync(join(root, FIGURES_FILE), "utf8")) as RoutingFigures;
}

export function writeFigures(figures: RoutingFigures, root = ROOT): void {
  writeFileSync(join(root, FIGURES_FILE), `${JSON.stringify(figures, null, 2)}\n`);
}

/** Who writes a block, as a comment inside it. */
const WRITTEN_BY = `<!-- Written by \`${FIGURES_COMMAND}\` (bench/src/routing-figures.ts) from ${FIGURES_FILE}; \`npx --yes pnpm@10 run docs\` rewrites it from that file. Do not edit by hand. -->`;

/** Each document's generated blocks, by marker name (marked-blocks.ts), paths relative to the root. */
export function figureDocs(f: RoutingFigures): Record<string, Record<string, string>> {
  const recall =
    `Recall and the no-tool answer offline (no model, no download), made with \`${f.default.command}\` (route latency: [docs/performance.md](../docs/performance.md)):\n\n${resultsTable(f.default.results, { latency: false })}`;
  const livemcp = `LiveMCPBench's tasks by tool and by MCP server (a task's gold servers against the servers of the top 10 tools, each at its first rank), among its own servers' tools (\`livemcp\`) and among those and the MCP-Zero corpus (\`livemcp-zero\`), made with \`${f.livemcp.command}\`:\n\n${serverTable(f.livemcp.results)}`;
  return {
    "README.md": {
      "routing-figures": [
        WRITTEN_BY,
        `Routing quality on public benchmarks, offline (no model), each catalog's tool-need model fit without it ([bench/README.md](bench/README.md) defines each figure), made with \`${f.default.command}\`: recall of the router; the calls made at or above the review's 0.7 and how many were right, and the review confidence's calibration error (ECE); requests that needed a tool answered "no tool" (falseNoTool), and messages that needed none that ended in a call (noToolCalled):\n\n${summaryTable(f.default.results)}`,
        `LiveMCPBench's 95 tasks among its 527 MCP tools, and among 3,265 with the MCP-Zero corpus, by tool and by server ([how each is counted](bench/README.md#real-mcp-tools-livemcpbench-alone-and-among-mcp-zero)), made with \`${f.livemcp.command}\`:\n\n${serverTable(f.livemcp.results)}`,
      ].join("\n\n"),
    },
    "bench/README.md": {
      "routing-figures:recall": `${WRITTEN_BY}\n\n${recall}`,
      "routing-figures:livemcp": `${WRITTEN_BY}\n\n${livemcp}`,
      "routing-figures:outcomes": `${WRITTEN_BY}\n\nWhere the cases that need a tool ended, made with \`${f.default.command}\` (leave one catalog out; \`--by-tag\` adds a row per tag):\n\n${outcomeTable(f.default.results)}`,
      "routing-figures:calibration": `${WRITTEN_BY}\n\nMade with \`${f.default.command}\`:\n\n${calibrationTable(f.default.results)}`,
      "routing-figures:learned": `${WRITTEN_BY}\n\nWith half of each dataset's cases with a tool first taught as examples and the other half scored, made with \`${f.learned.command}\`:\n\n${resultsTable(f.learned.results, { latency: false })}`,
    },
  };
}

/** Each document with its blocks filled from the figures; throws, writing nothing, if a document lacks a marker. */
export function renderFigureDocs(f: RoutingFigures, root = ROOT): Record<string, string> {
  return Object.fromEntries(Object.entries(figureDocs(f)).map(([file, blocks]) => [file, fillMarked(readFileSync(join(root, file), "utf8"), blocks, file)]));
}

export function writeFigureDocs(f: RoutingFigures, root = ROOT): void {
  for (const [file, text] of Object.entries(renderFigureDocs(f, root))) writeFileSync(join(root, file), text);
}
