import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import assert from "node:assert/strict";
import { openBucket, putTool } from "@switchyard/bus";
import { PinnedDefinitionSchema, ToolDefinitionSchema } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { createLogger } from "@switchyard/telemetry";
import { filesystemTools, suiteNats } from "@switchyard/test-fixtures";
import { indexCatalog } from "../src/catalog-index.js";

/** The local embedder behind a switch: while `down`, every call fails as an unreachable endpoint would. */
class SwitchableEmbedder implements Embedder {
  private readonly inner = new LocalEmbedder();
  readonly id = this.inner.id;
  readonly dimensions = this.inner.dimensions;
  down = true;
  embed(texts: string[]) {
    return this.down ? Promise.reject(new Error("embeddings endpoint unreachable")) : this.inner.embed(texts);
  }
}

describe("catalog index", () => {
  const nats = suiteNats();

  it("catalog index - tools that failed to index while the embedder was down are indexed once it is back", async () => {
    const catalog = await openBucket(nats.nc, "catalog-retry-test");
    const tools = filesystemTools().slice(0, 3);
    for (const tool of tools) await putTool(catalog, tool);
    const embedder = new SwitchableEmbedder();
    const index = new EmbeddedIndex(embedder);
    const indexed = await indexCatalog(catalog, index, createLogger("catalog-index-test", "silent"), undefined, { retryMs: 50 });
    try {
      assert.equal(index.size, 0, "nothing could be embedded");
      assert.equal(indexed.all().length, 3, "the catalog is still known");
      embedder.down = false;
      const deadline = Date.now() + 5000;
      while (index.size < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      assert.equal(index.size, 3);
    } finally {
      indexed.stop();
    }
  });

  it("catalog index - a quarantined tool leaves the index and comes back once approved", async () => {
    const catalog = await openBucket(nats.nc, "catalog-quarantine-test");
    const [read, list] = filesystemTools();
    assert.ok(read && list);
    await putTool(catalog, create(ToolDefinitionSchema, { ...read, pinned: create(PinnedDefinitionSchema, { description: read.description, inputSchema: read.inputSchema }) }));
    await putTool(catalog, create(ToolDefinitionSchema, { ...list, core: true, quarantined: true }));
    const index = new EmbeddedIndex(new LocalEmbedder());
    const indexed = await indexCatalog(catalog, index, createLogger("catalog-index-test", "silent"));
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    };
    try {
      assert.deepEqual(indexed.all().map((tool) => tool.name), [read.name], "the quarantined tool is not offered");
      assert.equal(indexed.all()[0]?.pinned, undefined, "a routed tool's pinned definition, its own again, is left out");
      assert.deepEqual(indexed.core(), [], "not even as a core tool");
      assert.equal(indexed.has(list.name), false);
      assert.deepEqual((await index.search(list.description, { limit: 5 })).map((r) => r.tool.name), [read.name]);

      await putTool(catalog, create(ToolDefinitionSchema, { ...read, quarantined: true }));
      await until(() => !indexed.has(read.name));
      assert.equal(indexed.has(read.name), false, "a tool quarantined later leaves the index");
      assert.equal(index.size, 0);

      await putTool(catalog, create(ToolDefinitionSchema, { ...list, core: true, quarantined: false }));
      await until(() => indexed.has(list.name));
      assert.deepEqual(indexed.core().map((tool) => tool.name), [list.name], "approved, it is back");
    } finally {
      indexed.stop();
    }
  });
});
