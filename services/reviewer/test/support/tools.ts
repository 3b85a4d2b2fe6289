// Real tool definitions for tests: what @modelcontextprotocol/server-filesystem, server-memory and
// server-everything return from tools/list (captured in fixtures/mcp-tools.json), as the catalog
// would hold them: "<server>.<tool>", side effect READ when the server marks the tool read-only.
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { RoutingCandidate_Source, RoutingCandidateSchema, ToolDefinition_SideEffect, ToolDefinitionSchema } from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";

export type Server = "filesystem" | "memory" | "everything";

interface McpTool {
  name: string;
  description?: string;
  inputSchema: JsonObject;
  annotations?: { readOnlyHint?: boolean };
}

const fixture = JSON.parse(readFileSync(new URL("../fixtures/mcp-tools.json", import.meta.url), "utf8")) as Record<Server, McpTool[]>;

export function mcpTool(server: Server, name: string): McpTool {
  const tool = fixture[server].find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${server}.${name} in the fixture`);
  return tool;
}

/** The tool's JSON schema exactly as its server sends it. */
export function schemaOf(server: Server, name: string): JsonObject {
  return mcpTool(server, name).inputSchema;
}

export function toolDefinition(server: Server, name: string): ToolDefinition {
  const tool = mcpTool(server, name);
  return create(ToolDefinitionSchema, {
    name: `${server}.${name}`,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    sideEffect: tool.annotations?.readOnlyHint ? ToolDefinition_SideEffect.READ : ToolDefinition_SideEffect.WRITE,
    server,
    serverToolName: name,
  });
}

/** A routing candidate as the embedding-router hands it on. */
export function candidate(server: Server, name: string, score: number): RoutingCandidate {
  return create(RoutingCandidateSchema, { tool: toolDefinition(server, name), score, source: RoutingCandidate_Source.SEMANTIC });
}

/** Candidates from "server.tool" → score pairs. */
export function candidates(scores: Record<string, number>): RoutingCandidate[] {
  return Object.entries(scores).map(([qualified, score]) => {
    const [server, name] = qualified.split(".") as [Server, string];
    return candidate(server, name, score);
  });
}
