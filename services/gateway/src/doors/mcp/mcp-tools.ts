/**
 * What the MCP door (mcp-door.ts) exposes of a tenant's catalog: the tools themselves when the
 * catalog is small; otherwise the core tools beside three meta-tools that reach the rest —
 * `search_tools` (the router's ranking), `call_tool` (by name) and seed 004's
 * `call {pool, action, params}`, whose description lists each pool's actions — because
 * clients choose worse, or refuse, past about a hundred tools.
 *
 * MCP clients accept tool names of `^[a-zA-Z0-9_-]{1,64}$` only, and catalog names have dots
 * ("filesystem.read_text_file"): `ExposedNames` maps them both ways, the same way for the same
 * catalog, so any gateway replica reads back a name another one listed.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { givenAnnotations, ownToolName, ToolDefinition_SideEffect } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { clientSafe, withHash } from "../../shared/tool-names.js";

export const SEARCH_TOOLS = "search_tools";
export const CALL_TOOL = "call_tool";
export const CALL_POOL = "call";
const META_NAMES = new Set([SEARCH_TOOLS, CALL_TOOL, CALL_POOL]);

/** Longest one-line summary of an action in `call`'s description. */
const ACTION_SUMMARY_CHARS = 80;

/** Catalog names and the names MCP clients see, both ways. */
export class ExposedNames {
  private readonly toExposed = new Map<string, string>();
  private readonly toCatalog = new Map<string, string>();

  constructor(tools: readonly ToolDefinition[]) {
    // Sorted, so that collisions resolve the same way whatever order the catalog came in.
    for (const name of tools.map((t) => t.name).sort()) {
      let exposed = clientSafe(name);
      if (this.toCatalog.has(exposed) || META_NAMES.has(exposed)) exposed = withHash(exposed, name);
      this.toExposed.set(name, exposed);
      this.toCatalog.set(exposed, name);
    }
  }

  exposed(name: string): string {
    return this.toExposed.get(name) ?? clientSafe(name);
  }

  /** The catalog name an exposed name stands for; a name not exposed is returned as it is (a catalog or bare server name). */
  catalog(name: string): string {
    return this.toCatalog.get(name) ?? name;
  }
}

/**
 * A catalog tool as MCP lists it: its server's annotations as they were given; a tool whose
 * server gave none gets its side effect's (a tool with no hint is a write).
 */
export function mcpTool(tool: ToolDefinition, names: ExposedNames): Tool {
  const schema = tool.inputSchema && Object.keys(tool.inputSchema).length > 0 ? tool.inputSchema : {};
  const given = tool.annotations;
  return {
    name: names.exposed(tool.name),
    title: tool.name,
    description: tool.description,
    inputSchema: { ...schema, type: "object" } as Tool["inputSchema"],
    annotations: given
      ? givenAnnotations(given)
      : {
          readOnlyHint: tool.sideEffect === ToolDefinition_SideEffect.READ,
          destructiveHint: tool.sideEffect !== ToolDefinition_SideEffect.READ,
          openWorldHint: tool.sideEffect === ToolDefinition_SideEffect.EXECUTE,
        },
  };
}

/**
 * What the door tells a client at `initialize`, true to what its tools/list shows: a catalog
 * listed whole is just its tools; a larger one is the core tools and the meta-tools that reach the rest.
 */
export function doorInstructions(catalogSize: number, listAllMaxTools: number): string {
  const review =
    "Switchyard reviews every call first: one that does not fit the request is refused, and a write may wait for " +
    "a person's approval (the result says where to give it).";
  if (catalogSize <= listAllMaxTools) return review;
  return (
    `These are the core tools of ${catalogSize}. Find any other with ${SEARCH_TOOLS} {query}, then run it with ` +
    `${CALL_TOOL} {name, arguments}; or use ${CALL_POOL} {pool, action, params} with an action its description lists. ${review}`
  );
}

/** The meta-tools, `call`'s description generated from the catalog's pools. */
export function metaTools(tools: readonly ToolDefinition[]): Tool[] {
  return [
    {
      name: SEARCH_TOOLS,
      description:
        "Find the tools for a task among all the tools this server can call. Returns the best matches, each with its name, " +
        "description and input schema; call one with call_tool.",
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, description: "What you want to do, in words" },
          k: { type: "integer", minimum: 1, maximum: 50, description: "How many tools to return (default 5)" },
        },
        required: ["query"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: CALL_TOOL,
      description:
        "Call a tool found with search_tools, by its name, with arguments matching its input schema. Writes and commands may " +
        "wait for the user's approval.",
      inputSchema: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, description: "The tool's name as search_tools returned it" },
          arguments: { type: "object", description: "The tool's arguments" },
        },
        required: ["name"],
      },
      annotations: { destructiveHint: true },
    },
    {
      name: CALL_POOL,
      description: poolDescription(tools),
      inputSchema: {
        type: "object",
        properties: {
          pool: { type: "string", minLength: 1, description: "One of the pools listed in this tool's description" },
          action: { type: "string", minLength: 1, description: "One of that pool's actions" },
          params: { type: "object", description: "The action's arguments" },
        },
        required: ["pool", "action"],
      },
      annotations: { destructiveHint: true },
    },
  ];
}

/** The tool of `pool` whose action (its name on its server, or its catalog name) is `action`. */
export function poolTool(tools: readonly ToolDefinition[], pool: string, action: string): ToolDefinition | undefined {
  return tools.find((t) => poolOf(t) === pool && (ownToolName(t) === action || t.name === action));
}

/** The pool a tool is reached through: its own, else its server's name. */
function poolOf(tool: ToolDefinition): string {
  return tool.pool || tool.server || "default";
}

function poolDescription(tools: readonly ToolDefinition[]): string {
  const pools = new Map<string, ToolDefinition[]>();
  for (const tool of tools) pools.set(poolOf(tool), [...(pools.get(poolOf(tool)) ?? []), tool]);
  const lines = [...pools.keys()].sort().flatMap((pool) => [
    `${pool}:`,
    ...pools.get(pool)!.map((t) => `  - ${ownToolName(t)}: ${summary(t.description)}`),
  ]);
  return `Run one action of a pool of tools: {pool, action, params}. Pools and their actions:\n${lines.join("\n")}`;
}

/** The first sentence of a description, at most ACTION_SUMMARY_CHARS characters. */
function summary(description: string): string {
  const first = description.split(/(?<=\.)\s|\n/)[0]?.trim() ?? "";
  return first.length > ACTION_SUMMARY_CHARS ? `${first.slice(0, ACTION_SUMMARY_CHARS - 1)}…` : first;
}
