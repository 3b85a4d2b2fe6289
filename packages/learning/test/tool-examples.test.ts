import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { StoredExample_Source, ToolDefinitionSchema } from "@switchyard/packet";
import {
  addExamples,
  decodeToolExamples,
  emptyExamples,
  encodeToolExamples,
  EXAMPLE_MAX_CHARS,
  exampleTexts,
  followExamples,
  learnExample,
  MAX_ADDED_EXAMPLES_PER_TOOL,
  readToolExamples,
  rejectExample,
  updateToolExamples,
  withExamples,
} from "../src/index.js";
import type { ToolExamples } from "../src/index.js";
import { EXAMPLES_BUCKET, openBucket } from "@switchyard/bus";
import { suiteNats } from "@switchyard/test-fixtures";

const TOOL = "filesystem.read_text_file";
const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, second));

/** Learns each query in turn, as finished packets would teach them. */
function learnAll(queries: string[], max: number, start = emptyExamples(TOOL)): ToolExamples {
  return queries.reduce((current, query, i) => learnExample(current, query, max, at(i)) ?? current, start);
}

describe("tool examples", () => {
  it("tool examples - a learned query is stored tidy, once, however it is spaced or cased", () => {
    const stored = learnAll(["read  the file\nnotes/todo.md ", "Read the file notes/todo.md"], 20);
    assert.deepEqual(exampleTexts(stored), ["Read the file notes/todo.md"]);
    assert.equal(stored.examples[0]?.source, StoredExample_Source.LEARNED);
    assert.equal(timestampDate(stored.examples[0]!.at!).toISOString(), at(1).toISOString(), "learning it again makes it the most recent");
  });

  it("tool examples - the newest learned example taught again, word for word, writes nothing", () => {
    const stored = learnAll(["read notes/todo.md", "list the notes folder"], 20);
    assert.equal(learnExample(stored, "list  the notes folder", 20, at(9)), undefined);
    assert.ok(learnExample(stored, "read notes/todo.md", 20, at(9)), "an older one is refreshed");
    assert.ok(learnExample(stored, "List the notes folder", 20, at(9)), "other casing is stored as taught");
  });

  it("tool examples - learned examples are capped per tool, the oldest learned one goes first", () => {
    const stored = learnAll(["q1", "q2", "q3", "q4"], 3);
    assert.deepEqual(exampleTexts(stored), ["q2", "q3", "q4"]);
    // Learning q2 again saves it from being the next to go.
    assert.deepEqual(exampleTexts(learnAll(["q2", "q5"], 3, stored)), ["q4", "q2", "q5"]);
  });

  it("tool examples - hand-added examples do not count against the learned cap and are never evicted by learning", () => {
    const { next, added } = addExamples(emptyExamples(TOOL), ["show me my notes", "SHOW ME MY NOTES", " "]);
    assert.equal(added, 1);
    const stored = learnAll(["q1", "q2", "q3"], 2, next);
    assert.deepEqual(exampleTexts(stored), ["show me my notes", "q2", "q3"]);
    assert.equal(learnExample(stored, "Show me my notes", 2), undefined, "already there by hand");
  });

  it("tool examples - nothing is learned with a cap of 0, from an empty query or from a document-sized one", () => {
    assert.equal(learnExample(emptyExamples(TOOL), "read notes/todo.md", 0), undefined);
    assert.equal(learnExample(emptyExamples(TOOL), "  \n ", 20), undefined);
    assert.equal(learnExample(emptyExamples(TOOL), "x".repeat(EXAMPLE_MAX_CHARS + 1), 20), undefined);
  });

  it("tool examples - a rejected query leaves the tool and is not learned for it again, until added by hand", () => {
    const rejected = rejectExample(learnAll(["read notes/todo.md", "q2"], 20), "READ notes/todo.md");
    assert.deepEqual(exampleTexts(rejected), ["q2"]);
    assert.equal(learnExample(rejected, "read notes/todo.md", 20), undefined);
    const { next, added } = addExamples(rejected, ["read notes/todo.md"]);
    assert.equal(added, 1);
    assert.deepEqual(next.rejected, []);
    assert.deepEqual(exampleTexts(next), ["q2", "read notes/todo.md"]);
  });

  it("tool examples - adding a learned example by hand keeps it in place and makes it permanent", () => {
    const { next, added } = addExamples(learnAll(["q1", "q2"], 2), ["q1"]);
    assert.equal(added, 0);
    assert.deepEqual(next.examples.map((e) => `${e.text}:${StoredExample_Source[e.source]}`), ["q1:ADDED", "q2:LEARNED"]);
  });

  it("tool examples - hand-added examples are capped too, the oldest going first", () => {
    const texts = Array.from({ length: MAX_ADDED_EXAMPLES_PER_TOOL + 2 }, (_, i) => `example ${i}`);
    const { next } = addExamples(emptyExamples(TOOL), texts);
    assert.equal(next.examples.length, MAX_ADDED_EXAMPLES_PER_TOOL);
    assert.equal(next.examples[0]?.text, "example 2");
  });

  it("tool examples - merged into a tool after its own examples, repeats left out; no new example, the same tool", () => {
    const tool = create(ToolDefinitionSchema, { name: TOOL, examples: ["read a file"] });
    assert.equal(withExamples(tool, ["Read a file", ""]), tool);
    const merged = withExamples(tool, ["show notes/todo.md", "read a file", "show notes/todo.md"]);
    assert.deepEqual(merged.examples, ["read a file", "show notes/todo.md"]);
    assert.deepEqual(tool.examples, ["read a file"], "the catalog's definition is not changed");
  });

  it("tool examples - encode and decode round-trip; malformed values read as no examples", () => {
    const stored = learnAll(["q1"], 20);
    assert.deepEqual(decodeToolExamples(encodeToolExamples(stored)), stored);
    assert.deepEqual(decodeToolExamples(new TextEncoder().encode("not json"), TOOL), emptyExamples(TOOL));
    const odd = decodeToolExamples(new TextEncoder().encode('{"examples":[{"text":1},{"text":"ok","source":"added","at":""}]}'), TOOL);
    assert.deepEqual(exampleTexts(odd), ["ok"]);
  });

  it("tool examples - a record 0.1.0 wrote as JSON is read as it was, so taught examples survive the upgrade", () => {
    const json = '{"tool":"a.tool","examples":[{"text":"read it","source":"learned","at":"2026-01-02T03:04:05.000Z"},{"text":"show it","source":"added","at":"2026-01-03T00:00:00.000Z"}],"rejected":["list it"]}';
    const read = decodeToolExamples(new TextEncoder().encode(json));
    assert.equal(read.tool, "a.tool");
    assert.deepEqual(read.examples.map((e) => [e.text, StoredExample_Source[e.source], timestampDate(e.at!).toISOString()]), [
      ["read it", "LEARNED", "2026-01-02T03:04:05.000Z"],
      ["show it", "ADDED", "2026-01-03T00:00:00.000Z"],
    ]);
    assert.deepEqual(read.rejected, ["list it"]);
    assert.deepEqual(decodeToolExamples(encodeToolExamples(read)), read, "written back as proto, read the same");
  });
});

describe("tool examples - the bucket", () => {
  const nats = suiteNats();


  it("tool examples - concurrent writers to one tool all land (compare-and-set with retries)", async () => {
    const bucket = await openBucket(nats.nc, EXAMPLES_BUCKET);
    const queries = Array.from({ length: 12 }, (_, i) => `query ${i}`);
    await Promise.all(queries.map((q) => updateToolExamples(bucket, TOOL, (current) => learnExample(current, q, 20))));
    const stored = await readToolExamples(bucket, TOOL);
    assert.deepEqual(new Set(exampleTexts(stored)), new Set(queries));
    assert.equal(stored.tool, TOOL);
  });

  it("tool examples - no change writes nothing; a follower sees every tool's examples, then changes", async () => {
    const bucket = await openBucket(nats.nc, "examples-follow-test");
    await updateToolExamples(bucket, "a.tool", (current) => addExamples(current, ["first"]).next);
    const before = (await bucket.status()).values;
    await updateToolExamples(bucket, "a.tool", () => undefined);
    assert.equal((await bucket.status()).values, before, "an unchanged tool is not rewritten");

    const seen = new Map<string, string[]>();
    const follower = await followExamples(bucket, {
      upsert: (examples) => seen.set(examples.tool, exampleTexts(examples)),
      remove: () => undefined,
    });
    assert.deepEqual(seen.get("a.tool"), ["first"]);
    await updateToolExamples(bucket, "a.tool", (current) => addExamples(current, ["second"]).next);
    for (let i = 0; i < 50 && seen.get("a.tool")?.length !== 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(seen.get("a.tool"), ["first", "second"]);
    follower.stop();
  });
});
