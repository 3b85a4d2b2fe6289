import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConfigError, readConfig } from "@switchyard/config";
import { LocalEmbedder, OpenAIEmbedder } from "@switchyard/retrieval";
// the scripted OpenAI-compatible server is the test double of a remote embeddings API
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { filesystemTools } from "@switchyard/test-fixtures";
import { chooseEmbedder } from "../src/choose-embedder.js";
import { chooseIndex } from "../src/choose-index.js";
import { configSchema } from "../src/config.js";

// The scripted server's vectors: the local embedder's, scaled by 3 so that a client that forgets to normalise is caught.
const scaledLocalVector = (text: string, length: number) => Array.from(new LocalEmbedder({ dimensions: length }).embedOne(text), (x) => x * 3);

describe("choose embedder", () => {
  let server: ScriptedOpenAIServer;
  let dir: string;
  before(async () => {
    server = await startScriptedOpenAIServer({ dimensions: 48, embed: scaledLocalVector });
    dir = mkdtempSync(join(tmpdir(), "switchyard-router-data-"));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("choose embedder - without EMBEDDINGS_BASE_URL, the local embedder", async () => {
    assert.ok(chooseEmbedder(readConfig(configSchema, {})) instanceof LocalEmbedder);
  });

  const rejected: { name: string; env: Record<string, string>; variable: string }[] = [
    { name: "a base URL without a model", env: { EMBEDDINGS_BASE_URL: "http://localhost:11434/v1" }, variable: "EMBEDDINGS_MODEL" },
    { name: "a base URL without a scheme", env: { EMBEDDINGS_BASE_URL: "localhost:11434/v1", EMBEDDINGS_MODEL: "m" }, variable: "EMBEDDINGS_BASE_URL" },
    { name: "a batch size of 0", env: { EMBEDDINGS_BATCH_SIZE: "0" }, variable: "EMBEDDINGS_BATCH_SIZE" },
    { name: "a fractional dimension", env: { EMBEDDINGS_DIMENSIONS: "7.5" }, variable: "EMBEDDINGS_DIMENSIONS" },
  ];
  for (const { name, env, variable } of rejected) {
    it(`choose embedder - ${name} is a config error naming ${variable}`, () => {
      assert.throws(() => readConfig(configSchema, env), (error) => error instanceof ConfigError && error.variable === variable);
    });
  }

  it("choose embedder - with EMBEDDINGS_BASE_URL, the endpoint with the settings", async () => {
    server.requests.length = 0;
    const config = readConfig(configSchema, {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_API_KEY: "sk-router",
      EMBEDDINGS_MODEL: "scripted-embed",
      EMBEDDINGS_DIMENSIONS: "48",
      EMBEDDINGS_BATCH_SIZE: "2",
    });
    const embedder = chooseEmbedder(config);
    assert.ok(embedder instanceof OpenAIEmbedder);
    assert.equal(embedder.dimensions, 48);
    await embedder.embed(["read a file", "write a file", "list a folder"]);
    assert.deepEqual(
      server.requests.map((r) => [r.input.length, r.model, r.dimensions, r.authorization]),
      [
        [2, "scripted-embed", 48, "Bearer sk-router"],
        [1, "scripted-embed", 48, "Bearer sk-router"],
      ],
    );
  });

  it("choose embedder - a restarted router embeds none of the unchanged tools again (vectors kept in ROUTER_DATA_DIR)", async () => {
    server.requests.length = 0;
    const config = readConfig(configSchema, {
      EMBEDDINGS_BASE_URL: server.url,
      EMBEDDINGS_MODEL: "scripted-embed",
      ROUTER_DATA_DIR: dir,
    });
    const start = async () => chooseIndex(config, chooseEmbedder(config), (error) => assert.fail(String(error)));
    const tools = filesystemTools();
    await (await start()).upsert(tools);
    const sent = server.inputs().length;
    assert.ok(sent >= tools.length);

    const restarted = await start();
    assert.equal(await restarted.upsert(tools), tools.length);
    assert.equal(server.inputs().length, sent, "no text was embedded again");
  });
});
