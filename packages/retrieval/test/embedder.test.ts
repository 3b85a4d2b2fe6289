import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dot, hash32, LocalEmbedder, trigrams } from "../src/embedder.js";

describe("embedder", () => {
  const embedder = new LocalEmbedder();
  const cos = (a: string, b: string): number => dot(embedder.embedOne(a), embedder.embedOne(b));

  it("embedder - vectors have the declared dimensions and unit length", async () => {
    const [a, b] = await embedder.embed(["read a text file", "weather in Paris"]);
    for (const v of [a!, b!]) {
      assert.equal(v.length, embedder.dimensions);
      assert.ok(Math.abs(dot(v, v) - 1) < 1e-5);
    }
  });

  it("embedder - the same text gives the same vector, in another instance too", async () => {
    const other = new LocalEmbedder();
    const [a] = await embedder.embed(["Read the complete contents of a file"]);
    const [b] = await other.embed(["Read the complete contents of a file"]);
    assert.deepEqual(a, b);
    assert.equal(embedder.id, other.id);
  });

  it("embedder - the hash is pinned, because stored vectors depend on it", () => {
    // if these change, every vector stored by an earlier version is invalid: change LocalEmbedder's id too
    assert.equal(hash32("w:read"), 988869946);
    assert.equal(hash32(""), 2872998923);
  });

  it("embedder - other settings give another id", () => {
    assert.notEqual(new LocalEmbedder({ dimensions: 512 }).id, embedder.id);
    assert.notEqual(new LocalEmbedder({ trigramWeight: 0 }).id, embedder.id);
    assert.throws(() => new LocalEmbedder({ dimensions: 3 }), RangeError);
  });

  it("embedder - a text without words is the zero vector and matches nothing", () => {
    const v = embedder.embedOne("the of and ???");
    assert.ok(v.every((x) => x === 0));
    assert.equal(cos("the of and", "read a file"), 0);
  });

  it("embedder - character trigrams of a stem, with boundaries", () => {
    assert.deepEqual(trigrams("todo"), ["^to", "tod", "odo", "do$"]);
  });

  const orderings: { query: string; closer: string; farther: string }[] = [
    { query: "todo", closer: "todos", farther: "weather" },
    { query: "read the file", closer: "Read the complete contents of a file", farther: "Create a new directory" },
    { query: "show me the folder", closer: "list a directory", farther: "write a file" },
    { query: "open the picture", closer: "read an image", farther: "move a file" },
    { query: "weatherapp", closer: "weather forecast", farther: "stock prices" },
    { query: "reading files", closer: "read a file", farther: "reading glasses shop" },
  ];
  for (const { query, closer, farther } of orderings) {
    it(`embedder - "${query}" is closer to "${closer}" than to "${farther}"`, () => {
      const near = cos(query, closer);
      const far = cos(query, farther);
      assert.ok(near > far, `${near} <= ${far}`);
    });
  }
});
