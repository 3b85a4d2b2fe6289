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
  examplesFor,
  exampleId,
  examplesKey,
  exampleTexts,
  followExamples,
  isOwnedExamplesKey,
  learnExample,
  listedExamples,
  MAX_ADDED_EXAMPLES_PER_TOOL,
  readToolExamples,
  rejectExample,
  removeExample,
  SHARED,
  updateToolExamples,
  withExamples,
  withIndexedExamples,
} from "../src/index.js";
import type { ToolExamples } from "../src/index.js";
import { catalogKey, EXAMPLES_BUCKET, openBucket } from "@switchyard/bus";
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
    assert.deepEqual(decodeToolExamples(new TextEncoder().encode("\xff not a record"), TOOL, "tenant-a"), emptyExamples(TOOL, "tenant-a"));
  });

  it("tool examples - what looks like a secret is masked before it is stored, as the logs mask it", () => {
    const { next } = addExamples(emptyExamples(TOOL), ["log in with password=hunter2xyz and token: sk-proj-abcdefghijklmnop1234"]);
    const [text] = exampleTexts(next);
    assert.doesNotMatch(text!, /hunter2xyz|abcdefghijklmnop1234/);
    const learned = learnExample(emptyExamples(TOOL), "use api_key=ABCDEF123456 to read notes/todo.md", 20);
    assert.doesNotMatch(exampleTexts(learned!)[0]!, /ABCDEF123456/);
  });

  it("tool examples - indexed: shared ones join the tool's examples, each tenant's are its own and never handed out", () => {
    const tool = create(ToolDefinitionSchema, { name: TOOL, examples: ["read a file"] });
    const owned = (owner: string, texts: string[]) => [owner, addExamples(emptyExamples(TOOL, owner), texts).next] as const;
    const byOwner = new Map([
      owned(SHARED, ["show notes/todo.md"]),
      owned("tenant-a", ["what is on my to-do list", "Read a file"]),
      owned("tenant-b", ["show notes/todo.md", "open the merger memo"]),
    ]);
    const indexed = withIndexedExamples(tool, byOwner);
    assert.deepEqual(indexed.examples, ["read a file", "show notes/todo.md"]);
    assert.deepEqual(
      indexed.tenantExamples.map((e) => [e.tenant, e.text]),
      [["tenant-a", "what is on my to-do list"], ["tenant-b", "open the merger memo"]],
      "repeats of the tool's own or shared examples are left out",
    );
    assert.equal(withIndexedExamples(tool, new Map()), tool, "nothing added: the same definition");
    assert.deepEqual(examplesFor(tool, byOwner, "tenant-b").examples, ["read a file", "show notes/todo.md", "open the merger memo"]);
    assert.deepEqual(examplesFor(tool, byOwner, "tenant-c").examples, ["read a file", "show notes/todo.md"], "another tenant sees the shared ones alone");
  });

  it("tool examples - ids are stable per owner and words; removing one rejects it, listing shows shared then own", () => {
    assert.equal(exampleId("tenant-a", "Show  my notes"), exampleId("tenant-a", "show my notes"), "as compared: case and spaces do not count");
    assert.notEqual(exampleId("tenant-a", "show my notes"), exampleId("tenant-b", "show my notes"));
    assert.match(exampleId(SHARED, "x"), /^[0-9a-f]{16}$/);
    const mine = addExamples(emptyExamples(TOOL, "tenant-a"), ["show my notes", "open todo.md"]).next;
    const fed = addExamples(mine, ["list it"], at(9), StoredExample_Source.FEEDBACK).next;
    assert.deepEqual(fed.examples.map((e) => e.source), [StoredExample_Source.ADDED, StoredExample_Source.ADDED, StoredExample_Source.FEEDBACK]);
    assert.equal(learnExample(fed, "list it", 20), undefined, "a kept example is not turned into a learned one");
    const { next, removed } = removeExample(fed, exampleId("tenant-a", "open todo.md"))!;
    assert.equal(removed.text, "open todo.md");
    assert.deepEqual(exampleTexts(next), ["show my notes", "list it"]);
    assert.equal(learnExample(next, "open todo.md", 20), undefined, "not learned again");
    assert.equal(removeExample(next, exampleId("tenant-b", "show my notes")), undefined, "another owner's id names nothing here");
    const shared = addExamples(emptyExamples(TOOL), ["read a file"]).next;
    const listed = listedExamples(new Map([["tenant-a", next], [SHARED, shared], ["tenant-b", addExamples(emptyExamples(TOOL, "tenant-b"), ["theirs"]).next]]), "tenant-a");
    assert.deepEqual(listed.map((e) => [e.text, e.shared, e.id]), [
      ["read a file", true, exampleId(SHARED, "read a file")],
      ["show my notes", false, exampleId("tenant-a", "show my notes")],
      ["list it", false, exampleId("tenant-a", "list it")],
    ]);
  });

  it("tool examples - keys: one per owner and tool, none a catalog key of before owners", () => {
    assert.equal(examplesKey("fs.read", SHARED), "=s/fs.read");
    assert.equal(examplesKey("fs.read", "tenant-a"), "=t/tenant-a/fs.read");
    assert.equal(examplesKey("fs.read", "a..b"), "=t/a=2e=2eb/fs.read", "no empty subject token");
    assert.notEqual(examplesKey("b.c", "a"), examplesKey("c", "a.b"));
    assert.ok(isOwnedExamplesKey(examplesKey("x", "t")) && isOwnedExamplesKey(examplesKey("x", SHARED)));
    assert.ok(!isOwnedExamplesKey(catalogKey("=s/x")) && !isOwnedExamplesKey("fs.read"));
  });
});

describe("tool examples - the bucket", () => {
  const nats = suiteNats();


  it("tool examples - concurrent writers to one tool all land (compare-and-set with retries)", async () => {
    const bucket = await openBucket(nats.nc, EXAMPLES_BUCKET);
    const queries = Array.from({ length: 12 }, (_, i) => `query ${i}`);
    await Promise.all(queries.map((q) => updateToolExamples(bucket, TOOL, "tenant-a", (current) => learnExample(current, q, 20))));
    const stored = await readToolExamples(bucket, TOOL, "tenant-a");
    assert.deepEqual(new Set(exampleTexts(stored)), new Set(queries));
    assert.equal(stored.tool, TOOL);
    assert.equal(stored.tenant, "tenant-a");
    assert.deepEqual(exampleTexts(await readToolExamples(bucket, TOOL, "tenant-b")), [], "another tenant's record is apart");
  });

  it("tool examples - no change writes nothing; a follower sees every owner's examples, then changes, and ignores records of before owners", async () => {
    const bucket = await openBucket(nats.nc, "examples-follow-test");
    await updateToolExamples(bucket, "a.tool", "tenant-a", (current) => addExamples(current, ["first"]).next);
    await updateToolExamples(bucket, "a.tool", SHARED, (current) => addExamples(current, ["for everyone"]).next);
    // A record as written before examples had owners: under the bare catalog key.
    await bucket.put(catalogKey("a.tool"), encodeToolExamples(addExamples(emptyExamples("a.tool"), ["whose was this"]).next));
    const before = (await bucket.status()).values;
    await updateToolExamples(bucket, "a.tool", "tenant-a", () => undefined);
    assert.equal((await bucket.status()).values, before, "an unchanged tool is not rewritten");

    const changed: string[] = [];
    const follower = await followExamples(bucket, (tool) => changed.push(tool));
    const texts = (owner: string) => exampleTexts(follower.of("a.tool").get(owner) ?? emptyExamples("a.tool"));
    assert.deepEqual(texts("tenant-a"), ["first"]);
    assert.deepEqual(texts(SHARED), ["for everyone"]);
    assert.equal(follower.of("a.tool").size, 2, "the record of before owners is not read");
    assert.equal(follower.unowned, 1);
    await updateToolExamples(bucket, "a.tool", "tenant-a", (current) => addExamples(current, ["second"]).next);
    for (let i = 0; i < 50 && texts("tenant-a").length !== 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(texts("tenant-a"), ["first", "second"]);
    await bucket.delete(examplesKey("a.tool", "tenant-a"));
    for (let i = 0; i < 50 && follower.of("a.tool").has("tenant-a"); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(follower.of("a.tool").has("tenant-a"), false, "a deleted record is gone");
    assert.ok(changed.includes("a.tool"));
    follower.stop();
  });
});
