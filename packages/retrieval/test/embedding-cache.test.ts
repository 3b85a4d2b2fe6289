import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { EmbeddingCache } from "../src/embedding-cache.js";

const vec = (...xs: number[]) => Float32Array.from(xs);
const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

describe("embedding cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cache-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("embedding cache - the key is sha256 of model and text: another model or text is another key", () => {
    assert.match(EmbeddingCache.key("m", "t"), /^[0-9a-f]{64}$/);
    assert.notEqual(EmbeddingCache.key("m", "t"), EmbeddingCache.key("n", "t"));
    assert.notEqual(EmbeddingCache.key("m", "t"), EmbeddingCache.key("m", "u"));
    // the separator keeps "ab"+"c" apart from "a"+"bc"
    assert.notEqual(EmbeddingCache.key("ab", "c"), EmbeddingCache.key("a", "bc"));
    const cache = new EmbeddingCache();
    cache.set("m", "t", vec(1, 0));
    assert.deepEqual(cache.get("m", "t"), vec(1, 0));
    assert.equal(cache.get("n", "t"), undefined);
    assert.equal(cache.get("m", "t", 3), undefined, "a vector of another length is a miss");
  });

  it("embedding cache - through computes each missing text once and serves the rest", async () => {
    const cache = new EmbeddingCache();
    cache.set("m", "known", vec(1, 1));
    const asked: string[][] = [];
    const { vectors, missed } = await cache.through("m", ["a", "known", "a", "b"], async (missing) => {
      asked.push(missing);
      return missing.map((t) => vec(t.charCodeAt(0), 0));
    });
    assert.deepEqual(asked, [["a", "b"]]);
    assert.deepEqual(missed, ["a", "b"]);
    assert.deepEqual(vectors, [vec(97, 0), vec(1, 1), vec(97, 0), vec(98, 0)]);
    const again = await cache.through("m", ["b", "a"], () => assert.fail("nothing is missing"));
    assert.deepEqual(again.missed, []);
  });

  it("embedding cache - keeps at most maxEntries, dropping the least recently used", () => {
    const cache = new EmbeddingCache({ maxEntries: 2 });
    cache.set("m", "a", vec(1));
    cache.set("m", "b", vec(2));
    cache.get("m", "a"); // a is now more recent than b
    cache.set("m", "c", vec(3));
    assert.equal(cache.size, 2);
    assert.equal(cache.get("m", "b"), undefined);
    assert.deepEqual(cache.get("m", "a"), vec(1));
  });

  it("embedding cache - a persisted cache is read back; open creates the file and compacts stale and torn lines", async () => {
    const file = join(dir, "nested", "embeddings.jsonl");
    const first = await EmbeddingCache.open(file);
    assert.equal(lines(file).length, 0);
    first.set("m", "a", vec(0.5, -0.25));
    first.set("m", "b", vec(1, 2));
    first.set("m", "a", vec(3, 4)); // a newer vector for "a": two lines for one key
    await first.flush();
    assert.equal(lines(file).length, 3);
    appendFileSync(file, '{"k":"torn'); // a writer that died mid-line

    const second = await EmbeddingCache.open(file);
    assert.equal(second.size, 2);
    assert.deepEqual(second.get("m", "a"), vec(3, 4));
    assert.deepEqual(second.get("m", "b"), vec(1, 2));
    assert.equal(lines(file).length, 2, "rewritten with one line per vector");
  });

  it("embedding cache - a file that cannot be written is reported, and the cache goes on in memory", async () => {
    const folder = join(dir, "not-a-file");
    mkdirSync(folder);
    const errors: unknown[] = [];
    // the "file" is a folder: appending to it fails
    const cache = new EmbeddingCache({ onError: (error) => errors.push(error) }, folder);
    cache.set("m", "a", vec(1));
    await cache.flush();
    assert.equal(errors.length, 1);
    assert.deepEqual(cache.get("m", "a"), vec(1));
  });
});
