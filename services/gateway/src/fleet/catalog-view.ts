import type { KV } from "@nats-io/kv";
import { mirrorCatalog } from "@switchyard/bus";
import { examplesFor, followExamples, listedExamples } from "@switchyard/learning";
import { toolVisibleTo } from "@switchyard/packet";
import type { ToolDefinition, ToolExample } from "@switchyard/packet";
import { GatewayError } from "../shared/deps.js";

/** The gateway's copy of the catalog and each tool's stored examples, kept in step with their buckets. */
export interface CatalogView {
  /** The catalog entry of a tool name, whatever its tenant. */
  get(name: string): ToolDefinition | undefined;
  all(): Iterable<ToolDefinition>;
  /** The tools a tenant sees, with the stored shared examples and its own (never another tenant's), by name. */
  visibleTo(tenant: string): ToolDefinition[];
  /**
   * Throws not_found, in the same words, for a tool the catalog does not have or the tenant
   * cannot see: another tenant's tool is as unknown to this one as a tool that does not exist.
   */
  requireVisible(tenant: string, name: string): void;
  /** A tool's stored examples as the tenant sees them (the shared ones, then its own), with their ids. */
  storedExamples(tool: string, tenant: string): ToolExample[];
  stop(): void;
}

/** Follows the catalog and examples buckets (the router indexes the examples the same way). */
export async function followCatalogView(catalog: KV, examplesBucket: KV): Promise<CatalogView> {
  const tools = await mirrorCatalog(catalog);
  const examples = await followExamples(examplesBucket);
  return {
    get: (name) => tools.get(name),
    all: () => tools.all(),
    visibleTo: (tenant) =>
      [...tools.all()]
        .filter((tool) => toolVisibleTo(tool, tenant))
        .map((tool) => examplesFor(tool, examples.of(tool.name), tenant))
        .sort((a, b) => a.name.localeCompare(b.name)),
    requireVisible(tenant, name) {
      const tool = tools.get(name);
      if (!tool || !toolVisibleTo(tool, tenant)) throw new GatewayError("not_found", `no tool named ${name}`);
    },
    storedExamples: (tool, tenant) => listedExamples(examples.of(tool), tenant),
    stop() {
      tools.stop();
      examples.stop();
    },
  };
}
