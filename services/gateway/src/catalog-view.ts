import type { KV } from "@nats-io/kv";
import { catalogKey, followCatalog } from "@switchyard/bus";
import { exampleTexts, followExamples, withExamples } from "@switchyard/learning";
import { toolVisibleTo } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { GatewayError } from "./deps.js";

/** The gateway's copy of the catalog and each tool's stored examples, kept in step with their buckets. */
export interface CatalogView {
  /** The catalog entry of a tool name, whatever its tenant. */
  get(name: string): ToolDefinition | undefined;
  all(): Iterable<ToolDefinition>;
  /** The tools a tenant sees, with their stored examples, by name. */
  visibleTo(tenant: string): ToolDefinition[];
  /** Another tenant's tool is as unknown to this one as a tool that does not exist: throws not_found with `message`. */
  hideOthersTool(tenant: string, name: string, message?: string): void;
  stop(): void;
}

/** Follows the catalog and examples buckets (the router indexes the examples the same way). */
export async function followCatalogView(catalog: KV, examplesBucket: KV): Promise<CatalogView> {
  const tools = new Map<string, ToolDefinition>();
  const follower = await followCatalog(catalog, {
    upsert: (tool) => tools.set(catalogKey(tool.name), tool),
    remove: (key) => tools.delete(key),
  });
  const examples = new Map<string, string[]>();
  const exampleFollower = await followExamples(examplesBucket, {
    upsert: (stored, key) => examples.set(key, exampleTexts(stored)),
    remove: (key) => examples.delete(key),
  });
  return {
    get: (name) => tools.get(catalogKey(name)),
    all: () => tools.values(),
    visibleTo: (tenant) =>
      [...tools.entries()]
        .filter(([, tool]) => toolVisibleTo(tool, tenant))
        .map(([key, tool]) => withExamples(tool, examples.get(key) ?? []))
        .sort((a, b) => a.name.localeCompare(b.name)),
    hideOthersTool(tenant, name, message = `no tool named ${name}`) {
      const tool = tools.get(catalogKey(name));
      if (tool && !toolVisibleTo(tool, tenant)) throw new GatewayError("not_found", message);
    },
    stop() {
      follower.stop();
      exampleFollower.stop();
    },
  };
}
