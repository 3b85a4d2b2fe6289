import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { catalogTool as tool } from "@switchyard/test-fixtures";
import { Bm25Index } from "../src/bm25.js";
import { dot, LocalEmbedder, normalize } from "../src/embedder.js";
import { NameIndex } from "../src/name-match.js";
import { mulberry32 as prng } from "../src/seeded-random.js";
import { storeVector } from "../src/stored-vector.js";
import { VectorBlock } from "../src/vector-block.js";
import { EmbeddedIndex } from "../src/tool-index.js";
import { topK } from "../src/top-k.js";

/** BM25 as the textbook writes it, over plain maps: what the slot-based index must agree with. */
function naiveBm25(docs: Map<string, Map<string, number>>, query: string[], k1: number, b: number): Map<string, number> {
  const n = docs.size;
  let total = 0;
  for (const terms of docs.values()) for (const tf of terms.values()) total += tf;
  const avg = total / n;
  const out = new Map<string, number>();
  for (const [id, terms] of docs) {
    let length = 0;
    for (const tf of terms.values()) length += tf;
    let s = 0;
    for (const q of query) {
      const tf = terms.get(q) ?? 0;
      if (tf === 0) continue;
      const df = [...docs.values()].filter((d) => d.has(q)).length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / avg));
    }
    if (s > 0) out.set(id, s);
  }
  return out;
}

describe("scoring", () => {
  it("scoring - BM25 agrees with the textbook formula through sets, replacements and deletions", () => {
    const random = prng(11);
    const words = ["file", "read", "write", "weather", "city", "stock", "price", "list", "directory", "mail"];
    const index = new Bm25Index({ k1: 1.1, b: 0.6 });
    const docs = new Map<string, Map<string, number>>();
    for (let step = 0; step < 300; step++) {
      const id = `t${Math.floor(random() * 25)}`;
      if (random() < 0.25) {
        assert.equal(index.delete(id), docs.delete(id), `delete ${id}`);
      } else {
        const terms = new Map<string, number>();
        for (let i = 0; i < 1 + Math.floor(random() * 6); i++) {
          const w = words[Math.floor(random() * words.length)]!;
          terms.set(w, (terms.get(w) ?? 0) + (random() < 0.5 ? 1 : 2));
        }
        index.set(id, terms);
        docs.set(id, terms);
      }
      if (docs.size === 0) continue;
      const query = [words[step % words.length]!, words[(step * 7) % words.length]!];
      const { scores } = index.score(query.map((term) => [{ term, weight: 1 }]));
      const expected = naiveBm25(docs, query, 1.1, 0.6);
      assert.equal(index.size, docs.size);
      assert.deepEqual([...scores.keys()].sort(), [...expected.keys()].sort(), `step ${step}`);
      for (const [id, s] of expected) assert.ok(Math.abs(scores.get(id)! - s) < 1e-9, `step ${step} ${id}: ${scores.get(id)} vs ${s}`);
    }
  });

  it("scoring - a query word scores the best of its alternatives in each document", () => {
    const index = new Bm25Index();
    index.set("a", new Map([["folder", 1]]));
    index.set("b", new Map([["directori", 1]]));
    index.set("c", new Map([["file", 1]]));
    const { scores } = index.score([[{ term: "directori", weight: 1 }, { term: "folder", weight: 0.5 }]]);
    assert.ok(scores.get("b")! > scores.get("a")!);
    assert.ok(Math.abs(scores.get("a")! - scores.get("b")! / 2) < 1e-9, "same idf and length: half the weight, half the score");
    assert.equal(scores.has("c"), false);
  });

  it("scoring - top-k equals a full sort, ties broken by name", () => {
    const random = prng(3);
    for (let round = 0; round < 200; round++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 60) }, (_, i) => ({
        name: `n${Math.floor(random() * 1000)}-${i}`,
        // few distinct scores, so that ties happen
        score: Math.floor(random() * 5) / 4,
      }));
      const limit = Math.floor(random() * 12);
      const sorted = [...items].sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      assert.deepEqual(
        topK(items, limit, (x) => x.score, (x) => x.name),
        sorted.slice(0, limit),
        `round ${round}`,
      );
    }
  });

  it("scoring - the vector block's dot products equal the plain ones, for sparse and whole vectors alike", () => {
    const embedder = new LocalEmbedder();
    const query = embedder.embedOne("read the file notes/todo.md");
    const tool = embedder.embedOne("filesystem read text file: read the complete contents of a file");
    const example = embedder.embedOne("show me what notes/todo.md says");
    const stored = storeVector(tool);
    assert.ok(!(stored instanceof Float32Array), "the local embedder's vector is kept sparse");
    const block = new VectorBlock();
    // numbers in two segments (of 65,536), and one left without a vector
    block.update(new Map([[1, stored], [70_000, storeVector(example)]]));
    const dots = block.dots(query);
    assert.equal(dots[0], 0, "a number without a vector");
    assert.ok(Math.abs(dots[1]! - dot(query, tool)) < 1e-6);
    assert.ok(Math.abs(dots[70_000]! - dot(query, example)) < 1e-6);
    block.update(new Map([[1, undefined]]));
    assert.equal(block.dots(query)[1], 0, "a deleted vector");
    assert.ok(Math.abs(block.dots(query)[70_000]! - dot(query, example)) < 1e-6, "the others stay");

    const random = prng(5);
    const dense = normalize(Float32Array.from({ length: 64 }, () => random() - 0.5));
    const other = normalize(Float32Array.from({ length: 64 }, () => random() - 0.5));
    assert.ok(storeVector(other) instanceof Float32Array, "a model's dense vector is kept whole");
    const mixed = new VectorBlock();
    mixed.update(new Map([[0, storeVector(other)], [1, storeVector(Float32Array.from(other, (x, i) => (i % 2 ? x : 0)))]]));
    const mixedDots = mixed.dots(dense);
    assert.ok(Math.abs(mixedDots[0]! - dot(dense, other)) < 1e-6);
    assert.ok(Math.abs(mixedDots[1]! - dot(dense, Float32Array.from(other, (x, i) => (i % 2 ? x : 0)))) < 1e-6);
    assert.throws(() => block.update(new Map([[2, storeVector(other)]])), /lengths differ/);
    assert.throws(() => block.dots(dense), /lengths differ/);
  });

  it("scoring - name coverage follows the catalog as names come and go", () => {
    const names = new NameIndex();
    names.set(0, ["read", "file"]);
    names.set(1, ["write", "file"]);
    const before = names.coverage(0, new Map([["read", 1]]));
    names.set(2, ["read", "mail"]);
    names.set(3, ["read", "note"]);
    const after = names.coverage(0, new Map([["read", 1]]));
    assert.ok(after < before, `"read" became common: ${after} should be below ${before}`);
    names.delete(2);
    names.delete(3);
    assert.equal(names.coverage(0, new Map([["read", 1]])), before);
    // summed stem by stem, where the name's own order decides for one that matches three
    names.set(4, ["write", "note", "file", "read"]);
    const matches = new Map([["file", 1], ["read", 0.5], ["note", 0.5]]);
    const covered = new Map<number, number>();
    names.coverages(matches, (id, c) => covered.set(id, c));
    assert.deepEqual(covered, new Map([0, 1, 4].map((id) => [id, names.coverage(id, matches)])), "the names with the stems, each once");
  });

  it("scoring - each line of a multi-line query brings in the tool it asks for", async () => {
    const catalog = [
      tool({ name: "weather.forecast", description: "Weather forecast for a city: temperature and rain." }),
      tool({ name: "finance.quote", description: "Current stock price for a ticker symbol." }),
      tool({ name: "mail.send", description: "Send an email message to a recipient." }),
      tool({ name: "calendar.add", description: "Add an event to the calendar on a date." }),
      tool({ name: "files.read", description: "Read a text file from the workspace." }),
      // tools that share the first line's words, so that the whole query alone buries mail.send
      tool({ name: "weather.alerts", description: "Severe weather alerts for a city this week: storms, rain." }),
      tool({ name: "city.guide", description: "A guide to a city: what to expect, where to go this week." }),
      tool({ name: "temperature.convert", description: "Convert a temperature between Celsius and Fahrenheit." }),
    ];
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert(catalog);
    const dialogue = [
      "What is the weather forecast for Paris, what rain and temperature should I expect this week in the city?",
      "Also send an email to Bob",
    ].join("\n");
    const top2 = (await index.search(dialogue, { limit: 2 })).map((r) => r.tool.name);
    assert.deepEqual(top2.sort(), ["mail.send", "weather.forecast"]);

    // one line: ranked as a whole, as before
    const single = await index.search("send an email to Bob", { limit: 1 });
    assert.equal(single[0]?.tool.name, "mail.send");
    // lines obey the filter like the whole query
    const filtered = await index.search(dialogue, { limit: 5, filter: { tools: ["finance.quote", "weather.forecast"] } });
    assert.ok(filtered.every((r) => ["finance.quote", "weather.forecast"].includes(r.tool.name)));
  });
});
