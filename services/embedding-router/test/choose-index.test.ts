import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError, readConfig } from "@switchyard/config";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { filesystemTools } from "@switchyard/test-fixtures";
import { chooseIndex, indexVectorsFile } from "../src/choose-index.js";
import { configSchema } from "../src/config.js";

/** The local embedder, counting the texts it embeds. */
function counting(): Embedder & { texts: number } {
  const inner = new LocalEmbedder();
  const embedder = { id: inner.id, dimensions: inner.dimensions, texts: 0, embed: (batch: string[]) => {
    embedder.texts += batch.length;
    return inner.embed(batch);
  } };
  return embedder;
}

const noErrors = (error: unknown) => assert.fail(`unexpected store error: ${String(error)}`);

describe("choose index", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-router-index-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("choose index - the defaults: the embedded index, its vectors kept in .switchyard/router", () => {
    const config = readConfig(configSchema, {});
    assert.equal(config.QDRANT_URL, undefined);
    assert.equal(config.ROUTER_DATA_DIR, ".switchyard/router");
    assert.equal(config.QDRANT_COLLECTION, "switchyard-tools");
    assert.equal(config.QDRANT_TIMEOUT_MS, 5000);
  });

  const rejected: [string, Record<string, string>, string][] = [
    ["a Qdrant URL without a scheme", { QDRANT_URL: "localhost:6333" }, "QDRANT_URL"],
    ["a collection name with a slash", { QDRANT_COLLECTION: "tools/v2" }, "QDRANT_COLLECTION"],
    ["a timeout of 0", { QDRANT_TIMEOUT_MS: "0" }, "QDRANT_TIMEOUT_MS"],
  ];
  for (const [name, env, variable] of rejected) {
    it(`choose index - ${name} is a config error naming ${variable}`, () => {
      assert.throws(() => readConfig(configSchema, env), (e) => e instanceof ConfigError && e.variable === variable);
    });
  }

  it("choose index - a restarted router embeds nothing it embedded before", async () => {
    const config = readConfig(configSchema, { ROUTER_DATA_DIR: join(dir, "data") });
    const first = counting();
    const index = await chooseIndex(config, first, noErrors);
    assert.ok(index instanceof EmbeddedIndex);
    await index.upsert(filesystemTools());
    assert.ok(first.texts > 0);
    assert.ok(existsSync(indexVectorsFile(config.ROUTER_DATA_DIR)));

    const second = counting();
    await (await chooseIndex(config, second, noErrors)).upsert(filesystemTools());
    assert.equal(second.texts, 0);
  });

  it("choose index - a data dir that cannot be used costs the persistence, not the router", async () => {
    const blocker = join(dir, "not-a-dir");
    writeFileSync(blocker, "");
    const errors: unknown[] = [];
    const config = readConfig(configSchema, { ROUTER_DATA_DIR: join(blocker, "data") });
    const index = await chooseIndex(config, new LocalEmbedder(), (error) => errors.push(error));
    assert.equal(errors.length, 1, "the failure is reported");
    assert.equal(await index.upsert(filesystemTools()), filesystemTools().length);
    assert.ok((await index.search("read the file notes/todo.md", { limit: 3 })).length > 0);
  });

  it("choose index - with QDRANT_URL, a Qdrant that is not there fails the start", async () => {
    // a port nothing listens on: take a free one and let it go
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const config = readConfig(configSchema, { QDRANT_URL: `http://127.0.0.1:${port}`, QDRANT_TIMEOUT_MS: "1000" });
    await assert.rejects(chooseIndex(config, new LocalEmbedder(), noErrors));
  });
});
