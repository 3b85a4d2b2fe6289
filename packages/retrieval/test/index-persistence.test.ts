import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { catalogTool as tool, filesystemTools } from "@switchyard/test-fixtures";
import { LocalEmbedder } from "../src/embedder.js";
import type { Embedder } from "../src/embedder.js";
import { EmbeddingCache } from "../src/embedding-cache.js";
import { EmbeddedIndex } from "../src/tool-index.js";
import { countTexts } from "./counting-embedder.js";

/** One router process: an embedded index whose vectors are kept in `file`. */
async function start(file: string, inner: Embedder = new LocalEmbedder()) {
  const { embedder, texts } = countTexts(inner);
  const index = new EmbeddedIndex(embedder, { vectorCache: await EmbeddingCache.open(file) });
  return { index, texts };
}

describe("embedded index persistence", async () => {
  const dir = await mkdtemp(join(tmpdir(), "switchyard-index-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const tools = filesystemTools();
  const textsOfCatalog = tools.reduce((n, t) => n + 1 + t.examples.length, 0);
  let files = 0;
  const fresh = () => join(dir, `router-${files++}`, "index-vectors.jsonl");

  it("index persistence - a restarted index reads its vectors back and embeds nothing", async () => {
    const file = fresh();
    const first = await start(file);
    assert.equal(await first.index.upsert(tools), tools.length);
    assert.equal(first.texts(), textsOfCatalog);

    const restarted = await start(file);
    assert.equal(await restarted.index.upsert(tools), tools.length, "every tool is indexed again");
    assert.equal(restarted.texts(), 0, "but none is embedded again");
    const query = "read the file notes/todo.md";
    assert.deepEqual(
      await restarted.index.search(query, { limit: 5 }),
      await first.index.search(query, { limit: 5 }),
      "the stored vectors score as the fresh ones did",
    );
  });

  it("index persistence - a changed tool is embedded again, the others are not", async () => {
    const file = fresh();
    await (await start(file)).index.upsert(tools);
    const changed = tools.map((t) =>
      t.serverToolName === "list_directory" ? tool({ ...t, description: `${t.description} Lists folders too.` }) : t,
    );
    const restarted = await start(file);
    assert.equal(await restarted.index.upsert(changed), tools.length);
    assert.equal(restarted.texts(), 1, "only the changed tool's text");

    const again = await start(file);
    await again.index.upsert(changed);
    assert.equal(again.texts(), 0, "the new vector was kept too");
  });

  it("index persistence - another embedder embeds everything again", async () => {
    const file = fresh();
    await (await start(file)).index.upsert(tools);
    const other = await start(file, new LocalEmbedder({ dimensions: 512 }));
    await other.index.upsert(tools);
    assert.equal(other.texts(), textsOfCatalog);
  });

  it("index persistence - without a file the index embeds every time", async () => {
    const once = countTexts();
    await new EmbeddedIndex(once.embedder).upsert(tools);
    const twice = countTexts();
    await new EmbeddedIndex(twice.embedder).upsert(tools);
    assert.equal(twice.texts(), textsOfCatalog);
  });
});
