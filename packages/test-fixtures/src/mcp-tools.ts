/**
 * Real tool definitions for tests: what @modelcontextprotocol/server-filesystem, server-memory
 * and server-everything return from tools/list (captured in fixtures/mcp-tools.json), as the
 * catalog would hold them: "<server>.<tool>", side effect READ when the server marks the tool
 * read-only, WRITE otherwise.
 */
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { RoutingCandidate_Source, RoutingCandidateSchema, ToolDefinition_SideEffect, ToolDefinitionSchema } from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";

export type Server = "filesystem" | "memory" | "everything";

/** One tool as its MCP server lists it. */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: JsonObject;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

// The same path from src/ (tsx) and dist/ (compiled): the fixture sits beside both.
const fixture = JSON.parse(readFileSync(new URL("../fixtures/mcp-tools.json", import.meta.url), "utf8")) as Record<Server, McpTool[]>;

/** Every tool of one server, in the order it lists them. */
export function mcpTools(server: Server): McpTool[] {
  return fixture[server];
}

export function mcpTool(server: Server, name: string): McpTool {
  const tool = fixture[server].find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${server}.${name} in the fixture`);
  return tool;
}

/** The tool's JSON schema exactly as its server sends it. */
export function schemaOf(server: Server, name: string): JsonObject {
  return mcpTool(server, name).inputSchema;
}

/** One tool as a catalog entry. */
export function toolDefinition(server: Server, name: string): ToolDefinition {
  return toCatalog(server, mcpTool(server, name));
}

/** Every tool of one server as catalog entries, in the order it lists them. */
export function toolDefinitions(server: Server): ToolDefinition[] {
  return mcpTools(server).map((tool) => toCatalog(server, tool));
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

function toCatalog(server: Server, tool: McpTool): ToolDefinition {
  return create(ToolDefinitionSchema, {
    name: `${server}.${tool.name}`,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    sideEffect: tool.annotations?.readOnlyHint ? ToolDefinition_SideEffect.READ : ToolDefinition_SideEffect.WRITE,
    server,
    serverToolName: tool.name,
  });
}

/** A catalog entry with defaults for whatever is not given. */
export function catalogTool(input: Partial<Omit<ToolDefinition, "$typeName">> & { name: string }): ToolDefinition {
  return create(ToolDefinitionSchema, input);
}

/**
 * The filesystem server's tools as the default switchyard.yaml catalogs them:
 * the deprecated `read_file` excluded.
 */
export function filesystemTools(): ToolDefinition[] {
  return toolDefinitions("filesystem").filter((t) => t.serverToolName !== "read_file");
}
