import type { KV } from "@nats-io/kv";
import { listTools, putTool, removeTool } from "@switchyard/bus";
import type { ToolDefinition } from "@switchyard/packet";

/**
 * Makes the catalog hold exactly `tools` for the given servers: every tool is
 * written (the router re-embeds only those whose content changed) and entries
 * of these servers that are gone are removed. Entries of other servers, from
 * other executors or static tool files, are left alone.
 */
export async function syncCatalog(catalog: KV, servers: string[], tools: ToolDefinition[]): Promise<{ removed: number }> {
  const current = new Set(tools.map((tool) => tool.name));
  for (const tool of tools) await putTool(catalog, tool);
  let removed = 0;
  for (const entry of await listTools(catalog)) {
    if (servers.includes(entry.server) && !current.has(entry.name)) {
      await removeTool(catalog, entry.name);
      removed++;
    }
  }
  return { removed };
}
