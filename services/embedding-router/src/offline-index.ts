import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { ToolIndex } from "@switchyard/retrieval";
import type { ToolDefinition } from "@switchyard/packet";

/**
 * The catalog as a router without EMBEDDINGS_BASE_URL indexes it: the built-in embedder's
 * index, which needs no endpoint. Routing falls back on it while the configured embeddings
 * endpoint cannot embed the catalog (it was down when the tools came): the router then ranks
 * as the offline router does, rather than offering the whole catalog unscored. It is made at
 * the first such fallback, and brought in step with the catalog at each one after, so a
 * router whose endpoint never fails never holds it.
 */
export class OfflineIndex {
  private index: EmbeddedIndex | undefined;
  /** The definitions indexed, by name: the catalog hands out the same object until a tool changes. */
  private readonly indexed = new Map<string, ToolDefinition>();

  constructor(private readonly denseWeight?: number) {}

  /** The index, holding exactly `tools`. */
  async of(tools: readonly ToolDefinition[]): Promise<ToolIndex> {
    this.index ??= new EmbeddedIndex(new LocalEmbedder(), { helperThread: false, ...(this.denseWeight === undefined ? {} : { denseWeight: this.denseWeight }) });
    const current = new Set(tools.map((tool) => tool.name));
    for (const name of this.indexed.keys()) {
      if (current.has(name)) continue;
      await this.index.remove(name);
      this.indexed.delete(name);
    }
    const changed = tools.filter((tool) => this.indexed.get(tool.name) !== tool);
    if (changed.length > 0) {
      await this.index.upsert(changed);
      for (const tool of changed) this.indexed.set(tool.name, tool);
    }
    return this.index;
  }
}
