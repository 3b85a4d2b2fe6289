import { readFileSync } from "node:fs";
import { ToolDefinition_SideEffect } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { toolDefinitions } from "@switchyard/test-fixtures";

type JsonObject = NonNullable<ToolDefinition["inputSchema"]>;

/**
 * A ToolDefinition message with defaults for what is not given. Written as a
 * protobuf-es v2 message literal (`$typeName` plus every field) because
 * `@bufbuild/protobuf`'s `create` is not a dependency of this service.
 */
export function tool(input: Partial<Omit<ToolDefinition, "$typeName">> & { name: string }): ToolDefinition {
  return {
    $typeName: "switchyard.v1.ToolDefinition",
    description: "",
    inputSchema: {},
    sideEffect: ToolDefinition_SideEffect.READ,
    server: "",
    serverToolName: "",
    core: false,
    examples: [],
    pool: "",
    ...input,
  };
}

/**
 * The filesystem server's `tools/list` (recorded from @modelcontextprotocol/server-filesystem,
 * shared by @switchyard/test-fixtures) as catalog entries named "filesystem.<tool>". The
 * deprecated `read_file` is left out, as the catalog config does for deprecated tools.
 */
export function filesystemTools(): ToolDefinition[] {
  return toolDefinitions("filesystem").filter((t) => t.serverToolName !== "read_file");
}

export interface BenchTool {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

export interface BenchQuery {
  id: string;
  query: string;
  expected: string[];
  kind?: string;
}

/** One dataset of /work/shared/bench (see its README): tools and queries. */
export function readBench(dataset: string, dir = "/work/shared/bench"): { tools: ToolDefinition[]; queries: BenchQuery[] } {
  const lines = (file: string): unknown[] =>
    readFileSync(`${dir}/${file}`, "utf8")
      .split("\n")
      .filter((l) => l.trim().length > 0)
      .map((l) => JSON.parse(l) as unknown);
  const tools = (lines(`${dataset}.tools.jsonl`) as BenchTool[]).map((t) =>
    tool({ name: t.name, description: t.description, inputSchema: t.inputSchema }),
  );
  return { tools, queries: lines(`${dataset}.queries.jsonl`) as BenchQuery[] };
}
