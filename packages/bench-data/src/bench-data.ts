import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";

/** One case of a benchmark (bench/data/README.md describes every field). */
export interface BenchCase {
  id: string;
  query: string;
  /** Tools that should be used, in order; empty: no tool should be used. */
  expected: string[];
  args?: JsonObject;
  /** MetaTool: single, multi or no_tool. */
  kind?: string;
  /** BFCL: the category. */
  category?: string;
  /** Labels of the case's kind ("paraphrase", "multi-turn", …), for figures per tag (`pnpm eval --by-tag`). */
  tags?: string[];
  /** Earlier turns of the conversation, oldest first: passed as the request's history. */
  history?: { role: string; content: string }[];
  /** BFCL: the tools offered in this case; its labels hold only against these. */
  candidates?: string[];
  /**
   * LiveMCPBench: an `expected` name -> the same-named tools of other servers that count as it
   * (the annotation names a tool, not its server).
   */
  alternatives?: Record<string, string[]>;
  /** LiveMCPBench: tools the annotator listed that match no tool of the catalog (left out of `expected`). */
  unresolved?: string[];
}

export interface BenchDataset {
  name: string;
  tools: ToolDefinition[];
  cases: BenchCase[];
}

interface BenchTool {
  name: string;
  description: string;
  inputSchema: JsonObject;
  /** The MCP server that serves it (LiveMCPBench, MCP-Zero). */
  server?: string;
  /** Its own name on that server. */
  serverTool?: string;
}

/** Where the benchmarks are: $SWITCHYARD_BENCH_DIR, else the repository's bench/data (bench/data/README.md). */
export function benchDir(env: Record<string, string | undefined> = process.env): string {
  if (env["SWITCHYARD_BENCH_DIR"]) return resolve(env["SWITCHYARD_BENCH_DIR"]);
  return fileURLToPath(new URL("../../../bench/data/", import.meta.url));
}

function jsonLines<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}

/** Reads a tools file and a queries file in the benchmark format. */
export function readBenchFiles(name: string, toolsFile: string, queriesFile: string): BenchDataset {
  const tools = jsonLines<BenchTool>(toolsFile).map((t) =>
    create(ToolDefinitionSchema, {
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      server: t.server ?? "",
      serverToolName: t.serverTool ?? "",
    }),
  );
  return { name, tools, cases: jsonLines<BenchCase>(queriesFile) };
}

/**
 * A dataset by name: `<dir>/<name>.tools.jsonl` and `<name>.queries.jsonl`. A catalog variant
 * `<base>-<variant>` without queries of its own asks `<base>`'s queries of its larger catalog
 * (`livemcp-zero`: LiveMCPBench's tasks among its tools and MCP-Zero's).
 */
export function readBench(name: string, dir = benchDir()): BenchDataset {
  const tools = join(dir, `${name}.tools.jsonl`);
  if (!existsSync(tools)) throw new Error(`no benchmark "${name}": ${tools} does not exist`);
  return readBenchFiles(name, tools, queriesFile(name, dir));
}

function queriesFile(name: string, dir: string): string {
  const own = join(dir, `${name}.queries.jsonl`);
  const base = name.slice(0, name.lastIndexOf("-"));
  const shared = join(dir, `${base}.queries.jsonl`);
  return existsSync(own) || base === "" || !existsSync(shared) ? own : shared;
}
