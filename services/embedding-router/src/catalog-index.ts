import type { KV } from "@nats-io/kv";
import { catalogKey, followCatalog } from "@switchyard/bus";
import type { ToolDefinition } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import type { ToolIndex } from "@switchyard/retrieval";

export interface CatalogIndex {
  /** The catalog's core tools, always offered whatever the query. */
  core(): ToolDefinition[];
  stop(): void;
}

/**
 * Keeps the index in step with the catalog bucket: the whole catalog at start,
 * then every change. The index re-embeds only tools whose content changed.
 * Resolves once the catalog as it was at start is indexed.
 */
export async function indexCatalog(catalog: KV, index: ToolIndex, logger: Logger): Promise<CatalogIndex> {
  const core = new Map<string, ToolDefinition>();
  const names = new Map<string, string>();
  const pending: Promise<unknown>[] = [];
  const track = (work: Promise<unknown>, what: string) => {
    pending.push(work.catch((error: unknown) => logger.error({ err: error }, `catalog ${what} failed`)));
  };
  const follower = await followCatalog(catalog, {
    upsert(tool) {
      names.set(catalogKey(tool.name), tool.name);
      if (tool.core) core.set(tool.name, tool);
      else core.delete(tool.name);
      track(index.upsert([tool]), `upsert of ${tool.name}`);
    },
    remove(key) {
      const name = names.get(key);
      if (name === undefined) return;
      names.delete(key);
      core.delete(name);
      track(index.remove(name), `removal of ${name}`);
    },
  });
  await Promise.all(pending);
  pending.length = 0;
  return { core: () => [...core.values()], stop: () => follower.stop() };
}
