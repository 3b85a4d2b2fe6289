import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { filesystemTools, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { dot, LocalEmbedder } from "../src/embedder.js";
import { EmbeddingCache } from "../src/embedding-cache.js";
import { EmbeddingDimensionError, OpenAIEmbedder } from "../src/openai-embedder.js";
import type { OpenAIEmbedderOptions } from "../src/openai-embedder.js";
import { EmbeddedIndex } from "../src/tool-index.js";

// The scripted server's vectors: the local embedder's, scaled by 3 so that a client that forgets to normalise is caught.
const scaledLocalVector = (text: string, length: number) => Array.from(new LocalEmbedder({ dimensions: length }).embedOne(text), (x) => x * 3);

const MODEL = "scripted-embed";

describe("openai embedder (against the scripted OpenAI-compatible server)", () => {
  let server: ScriptedOpenAIServer;
  let dir: string;
  const embedder = (options: Partial<OpenAIEmbedderOptions> = {}) =>
    new OpenAIEmbedder({ baseURL: server.url, model: MODEL, maxRetries: 0, cooldownMs: 0, ...options });
  const reset = () => {
    server.requests.length = 0;
    server.script = {};
  };

  before(async () => {
    server = await startScriptedOpenAIServer({ dimensions: 64, embed: scaledLocalVector });
    dir = mkdtempSync(join(tmpdir(), "switchyard-embeddings-"));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(reset);

  it("openai embedder - embeds through the scripted OpenAI-compatible server in batches, as unit Float32Arrays in input order", async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i} about files`);
    const vectors = await embedder({ batchSize: 4, apiKey: "sk-test" }).embed(texts);
    assert.deepEqual(
      server.requests.map((r) => r.input.length),
      [4, 4, 2],
    );
    assert.deepEqual(server.inputs(), texts);
    for (const r of server.requests) {
      assert.equal(r.model, MODEL);
      assert.equal(r.encodingFormat, "float");
      assert.equal(r.dimensions, undefined, "no dimensions asked unless configured");
      assert.equal(r.authorization, "Bearer sk-test");
    }
    // the server answers in reverse order and scaled by 3: vectors must come back by index and normalised
    const local = new LocalEmbedder({ dimensions: 64 });
    vectors.forEach((v, i) => {
      assert.ok(v instanceof Float32Array);
      assert.equal(v.length, 64);
      assert.ok(Math.abs(dot(v, v) - 1) < 1e-5);
      assert.ok(dot(v, local.embedOne(texts[i]!)) > 0.9999, `vector ${i} belongs to its text`);
    });
  });

  it("openai embedder - learns the model's dimension from the first answer", async () => {
    const e = embedder();
    assert.equal(e.dimensions, 0);
    await e.embed(["hello"]);
    assert.equal(e.dimensions, 64);
  });

  it("openai embedder - configured dimensions are asked for and checked", async () => {
    const [v] = await embedder({ dimensions: 32 }).embed(["shorter vectors"]);
    assert.equal(v?.length, 32);
    assert.equal(server.requests[0]?.dimensions, 32);
  });

  it("openai embedder - a vector of the wrong length is an error naming the expected and actual dimension", async () => {
    const configured = embedder({ dimensions: 64 });
    server.script = { wrongDimension: 12 };
    await assert.rejects(configured.embed(["anything"]), (error: Error) => {
      assert.ok(error instanceof EmbeddingDimensionError);
      assert.match(error.message, /12 dimensions, expected 64/);
      return true;
    });
    // a learned dimension is held just the same
    const learned = embedder();
    server.script = {};
    await learned.embed(["first"]);
    server.script = { wrongDimension: 100 };
    await assert.rejects(learned.embed(["second"]), /returned a vector of 100 dimensions, expected 64/);
    // and nothing of the wrong length was cached
    server.script = {};
    assert.equal((await learned.embed(["second"]))[0]?.length, 64);
  });

  it("openai embedder - the same text twice in one call is embedded once; blank texts are not sent", async () => {
    const vectors = await embedder().embed(["same", "same", "  ", "other"]);
    assert.deepEqual(server.inputs(), ["same", "other"]);
    assert.deepEqual(vectors[0], vectors[1]);
    assert.ok(vectors[2]!.every((x) => x === 0));
    assert.equal(vectors[2]!.length, 64);
  });

  it("openai embedder - a request that takes longer than timeoutMs fails", async () => {
    server.script = { delayMs: 1000 };
    const started = performance.now();
    await assert.rejects(embedder({ timeoutMs: 100 }).embed(["slow"]), /timed out/i);
    assert.ok(performance.now() - started < 900, "it did not wait for the answer");
  });

  it("openai embedder - after a failure the endpoint is left alone for cooldownMs", async () => {
    const e = embedder({ cooldownMs: 200 });
    server.script = { failWith: 503 };
    await assert.rejects(e.embed(["one"]), /embeddings request failed: scripted-embed at .*: 503/);
    server.script = {};
    await assert.rejects(e.embed(["two"]), /unavailable for \d+ ms more, after: .*503/);
    assert.equal(server.requests.length, 1, "no request during the cooldown");
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal((await e.embed(["three"])).length, 1);
    assert.equal(server.requests.length, 2);
  });

  it("openai embedder - an endpoint that is down is an error", async () => {
    const down = await startScriptedOpenAIServer({ embed: scaledLocalVector });
    await down.close();
    await assert.rejects(new OpenAIEmbedder({ baseURL: down.url, model: MODEL, maxRetries: 0 }).embed(["x"]), /embeddings request failed/);
  });

  describe("with the embedded index", () => {
    const tools = filesystemTools();
    // one vector for each tool's whole text and one per example request
    const texts = tools.reduce((n, t) => n + 1 + t.examples.length, 0);

    it("openai embedder - tools are embedded through the server, in batches of batchSize", async () => {
      const index = new EmbeddedIndex(embedder({ batchSize: 5 }));
      assert.equal(await index.upsert(tools), tools.length);
      assert.equal(server.inputs().length, texts);
      assert.ok(server.requests.every((r) => r.input.length <= 5));
      assert.equal(server.requests.length, Math.ceil(texts / 5));
      const [best] = await index.search("read the file notes/todo.md", { limit: 3 });
      assert.equal(best?.tool.name, "filesystem.read_text_file");
    });

    it("openai embedder - tools are cached by hash: a second upsert of the same tools makes no request", async () => {
      const e = embedder();
      await new EmbeddedIndex(e).upsert(tools);
      const sent = server.requests.length;
      assert.ok(sent > 0);
      // a fresh index (say, rebuilt after a catalog reload) with the same embedder and cache
      assert.equal(await new EmbeddedIndex(e).upsert(tools), tools.length);
      assert.equal(server.requests.length, sent);
    });

    it("openai embedder - a changed description re-embeds only that tool", async () => {
      const e = embedder();
      const index = new EmbeddedIndex(e);
      await index.upsert(tools);
      reset();
      const changed = tools.map((t) =>
        t.name === "filesystem.move_file" ? create(ToolDefinitionSchema, { ...t, description: "Rename or move a file or folder." }) : t,
      );
      assert.equal(await index.upsert(changed), 1);
      const inputs = server.inputs();
      assert.equal(inputs.length, 1, inputs.join(" | "));
      assert.match(inputs[0]!, /Rename or move a file or folder\./);
    });

    it("openai embedder - a restart with the persisted cache makes no request", async () => {
      const file = join(dir, "restart", "embeddings.jsonl");
      const first = new EmbeddedIndex(embedder({ cache: await EmbeddingCache.open(file) }));
      await first.upsert(tools);
      const query = "list the files in notes";
      const before = await first.search(query, { limit: 5 });
      assert.ok(server.requests.length > 0);

      reset();
      // "restart": a new cache read from the file, a new client, a new index
      const second = new EmbeddedIndex(embedder({ cache: await EmbeddingCache.open(file) }));
      assert.equal(await second.upsert(tools), tools.length);
      const after = await second.search(query, { limit: 5 });
      assert.equal(server.requests.length, 0, "neither the tools nor the query were embedded again");
      assert.deepEqual(
        after.map((r) => [r.tool.name, r.score]),
        before.map((r) => [r.tool.name, r.score]),
      );
    });
  });
});
