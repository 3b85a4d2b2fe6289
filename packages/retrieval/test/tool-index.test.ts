import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LocalEmbedder } from "../src/embedder.js";
import type { Embedder } from "../src/embedder.js";
import { EmbeddedIndex, toolContentHash } from "../src/tool-index.js";
import { catalogTool as tool, filesystemTools } from "@switchyard/test-fixtures";

/** The local embedder, counting the texts it is asked to embed and optionally holding each call until released. */
class CountingEmbedder implements Embedder {
  readonly inner = new LocalEmbedder();
  readonly id = this.inner.id;
  readonly dimensions = this.inner.dimensions;
  texts = 0;
  gate: Promise<void> | undefined;

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.texts += texts.length;
    if (this.gate) await this.gate;
    return this.inner.embed(texts);
  }
}

const weather = tool({
  name: "weather.forecast",
  description: "Weather forecast for a city: temperature, rain and wind for the next days.",
  inputSchema: { type: "object", properties: { city: { type: "string", description: "City name" } } },
});
const stocks = tool({ name: "finance.quote", description: "Current stock price for a ticker symbol." });

describe("tool-index", () => {
  it("tool-index - upsert embeds new tools and skips unchanged ones", async () => {
    const embedder = new CountingEmbedder();
    const index = new EmbeddedIndex(embedder);
    assert.equal(await index.upsert([weather, stocks]), 2);
    assert.equal(index.size, 2);
    const embedded = embedder.texts;

    assert.equal(await index.upsert([weather, stocks]), 0);
    assert.equal(embedder.texts, embedded, "unchanged tools must not be re-embedded");

    const changed = tool({ ...stocks, description: "Current and historical stock prices for a ticker symbol." });
    assert.equal(await index.upsert([weather, changed]), 1);
    assert.equal(index.size, 2);
    assert.equal(index.get("finance.quote")?.description, changed.description);
  });

  it("tool-index - examples and schema are part of the content, key order is not", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert([weather]);
    const reordered = tool({
      ...weather,
      inputSchema: { properties: { city: { description: "City name", type: "string" } }, type: "object" },
    });
    assert.equal(toolContentHash(reordered), toolContentHash(weather));
    assert.equal(await index.upsert([reordered]), 0);
    assert.equal(await index.upsert([tool({ ...weather, examples: ["will it rain in Oslo"] })]), 1);
    assert.equal(await index.upsert([tool({ ...weather, inputSchema: {} })]), 1);
  });

  it("tool-index - a change outside the content is kept without re-embedding", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert([weather]);
    assert.equal(await index.upsert([tool({ ...weather, core: true, pool: "outdoor" })]), 0);
    const [hit] = await index.search("weather forecast", { limit: 1 });
    assert.equal(hit?.tool.core, true);
    assert.equal(hit?.tool.pool, "outdoor");
  });

  it("tool-index - remove drops a tool from search", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert([weather, stocks]);
    assert.equal(await index.remove("weather.forecast"), true);
    assert.equal(await index.remove("weather.forecast"), false);
    assert.equal(index.size, 1);
    const found = await index.search("weather forecast for Paris", { limit: 5 });
    assert.deepEqual(found.map((r) => r.tool.name).filter((n) => n === "weather.forecast"), []);
    assert.equal(await index.upsert([weather]), 1, "a removed tool is embedded again when it comes back");
  });

  it("tool-index - a removal waits for an upsert in flight, so the tool stays removed", async () => {
    const embedder = new CountingEmbedder();
    const index = new EmbeddedIndex(embedder);
    let release!: () => void;
    embedder.gate = new Promise((resolve) => (release = resolve));
    const upsert = index.upsert([weather]);
    const removal = index.remove("weather.forecast");
    release();
    assert.equal(await upsert, 1);
    assert.equal(await removal, true);
    assert.equal(index.size, 0);
  });

  it("tool-index - search ranks by relevance, with scores in [0, 1] best first", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert([...filesystemTools(), weather, stocks]);
    const results = await index.search("will it rain in Oslo tomorrow? weather please", { limit: 20 });
    assert.equal(results[0]?.tool.name, "weather.forecast");
    for (const r of results) assert.ok(r.score > 0 && r.score <= 1, `${r.tool.name} ${r.score}`);
    for (let i = 1; i < results.length; i++) assert.ok(results[i - 1]!.score >= results[i]!.score);
  });

  it("tool-index - limit caps the results and the filter applies before it", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert(filesystemTools());
    assert.equal((await index.search("read the file notes/todo.md", { limit: 2 })).length, 2);
    const onlyWrites = await index.search("read the file notes/todo.md", {
      limit: 2,
      filter: { tools: ["filesystem.write_file", "filesystem.edit_file"] },
    });
    assert.deepEqual(onlyWrites.map((r) => r.tool.name).sort(), ["filesystem.edit_file", "filesystem.write_file"]);
  });

  it("tool-index - a tenant finds the shared tools and its own, never another tenant's", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    const tenants = (name: string) => (name === "filesystem.read_text_file" ? ["tenant-a"] : name === "filesystem.write_file" ? ["tenant-b"] : []);
    await index.upsert(filesystemTools().map((t) => tool({ ...t, tenants: tenants(t.name) })));
    const found = async (tenant?: string) => (await index.search("read or write the file notes/todo.md", { limit: 20, filter: tenant === undefined ? {} : { tenant } })).map((r) => r.tool.name);
    const a = await found("tenant-a");
    assert.ok(a.includes("filesystem.read_text_file") && !a.includes("filesystem.write_file"), `tenant-a got ${a.join(", ")}`);
    const b = await found("tenant-b");
    assert.ok(b.includes("filesystem.write_file") && !b.includes("filesystem.read_text_file"), `tenant-b got ${b.join(", ")}`);
    const none = await found("");
    assert.ok(!none.includes("filesystem.write_file") && !none.includes("filesystem.read_text_file") && none.length > 0, `no tenant got ${none.join(", ")}`);
    const all = await found(undefined);
    assert.ok(all.includes("filesystem.write_file") && all.includes("filesystem.read_text_file"), "no tenant in the filter: no restriction");
  });

  it("tool-index - a query without words, or an empty index, finds nothing", async () => {
    const empty = new EmbeddedIndex(new LocalEmbedder());
    assert.deepEqual(await empty.search("read a file", { limit: 5 }), []);
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert(filesystemTools());
    assert.deepEqual(await index.search("   ", { limit: 5 }), []);
    assert.deepEqual(await index.search("could you please?", { limit: 5 }), []);
  });

  it("tool-index - a query about something else scores low everywhere", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert(filesystemTools());
    const [best] = await index.search("what's the weather in Paris", { limit: 1 });
    assert.ok((best?.score ?? 0) < 0.1, `best ${best?.tool.name} ${best?.score}`);
  });

  it("tool-index - a context fills in what the query points back at, and the query's own words decide", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    const lightOn = tool({ name: "home.light_on", description: "Turn a light on in a room." });
    const lightOff = tool({ name: "home.light_off", description: "Turn a light off in a room." });
    const fanOff = tool({ name: "home.fan_off", description: "Turn the ceiling fan off." });
    await index.upsert([lightOn, lightOff, fanOff, weather]);
    const alone = (await index.search("turn it off", { limit: 3 })).map((r) => r.tool.name);
    assert.ok(alone.includes("home.fan_off") && alone.includes("home.light_off"), `without context: ${alone.join(", ")}`);
    const found = await index.search("turn it off", { limit: 3, context: ["turn on the kitchen light"] });
    assert.deepEqual(found.slice(0, 2).map((r) => r.tool.name), ["home.light_off", "home.light_on"], "the light, and off before on");
    const [fromContextAlone] = await index.search("what's the weather like?", { limit: 1, context: ["turn on the kitchen light"] });
    assert.equal(fromContextAlone?.tool.name, "weather.forecast", "a query that names its own object is not pulled back to the context's");
  });

  it("tool-index - one learned example lifts its tool for requests like it, and outvotes no description for others", async () => {
    const taught = filesystemTools().map((t) => (t.name === "filesystem.read_text_file" ? tool({ ...t, examples: ["please read the file notes/todo.md"] }) : t));
    const before = new EmbeddedIndex(new LocalEmbedder());
    await before.upsert(filesystemTools());
    const after = new EmbeddedIndex(new LocalEmbedder());
    await after.upsert(taught);
    const first = async (index: EmbeddedIndex, query: string) => (await index.search(query, { limit: 1 }))[0]?.tool.name;
    // the request from issue 16: it shares "files" and "notes" with the example and nothing else
    assert.equal(await first(after, "show me the files in the notes folder"), "filesystem.list_directory");
    const scoresOf = async (index: EmbeddedIndex, query: string) => new Map((await index.search(query, { limit: 20 })).map((r) => [r.tool.name, r.score]));
    const untaught = await scoresOf(before, "show me the files in the notes folder");
    const taughtScores = await scoresOf(after, "show me the files in the notes folder");
    assert.equal(taughtScores.get("filesystem.list_directory"), untaught.get("filesystem.list_directory"), "other tools' scores do not move");
    // issue 37: the file an example names makes no other request like it
    assert.equal(await first(after, "open the todo note"), await first(before, "open the todo note"), "values alike are not requests alike");
    const said = filesystemTools().map((t) => (t.name === "filesystem.read_text_file" ? tool({ ...t, examples: ["show me what the recipe says"] }) : t));
    const sayIndex = new EmbeddedIndex(new LocalEmbedder());
    await sayIndex.upsert(said);
    assert.equal(await first(sayIndex, "what does the recipe say"), "filesystem.read_text_file", "a request like the example finds its tool");
    assert.notEqual(await first(before, "what does the recipe say"), "filesystem.read_text_file", "which it did not before");
  });

  it("tool-index - an example counts as a whole: the README's example does not take over requests that name the same file", async () => {
    const taught = filesystemTools().map((t) => (t.name === "filesystem.get_file_info" ? tool({ ...t, examples: ["how big is notes/todo.md?"] }) : t));
    const before = new EmbeddedIndex(new LocalEmbedder());
    await before.upsert(filesystemTools());
    const after = new EmbeddedIndex(new LocalEmbedder());
    await after.upsert(taught);
    for (const query of ["delete notes/todo.md", "list the files in notes", "please read the file notes/todo.md"]) {
      const [was, is] = [await before.search(query, { limit: 3 }), await after.search(query, { limit: 3 })];
      assert.deepEqual(is.map((r) => [r.tool.name, r.score]), was.map((r) => [r.tool.name, r.score]), query);
    }
    const [hit] = await after.search("how big is the file notes/ideas.txt?", { limit: 1 });
    assert.equal(hit?.tool.name, "filesystem.get_file_info");
    assert.deepEqual(hit?.example, { text: "how big is notes/todo.md?", owner: "" }, "the result names the example that scored it");
  });

  it("tool-index - scores do not depend on the filter or the limit", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    await index.upsert(filesystemTools());
    const all = await index.search("list the files in notes", { limit: 20 });
    const one = await index.search("list the files in notes", { limit: 1, filter: { tools: [all[2]!.tool.name] } });
    assert.equal(one[0]?.score, all[2]?.score);
  });

  it("tool-index - a tool's text embedded from the stems BM25 splits gets the vector of the text itself", async () => {
    // fields whose joints could join words: an acronym, camelCase, a field left empty
    const tools = [
      ...filesystemTools(),
      tool({ name: "export.PDF", description: "Exporter of URLs", inputSchema: { properties: { pageURLs: { description: "HTMLPage list" } } } }),
      tool({ name: "misc.noDescription", description: "", examples: ["ask the HTTPServer", "fetchItNow please"] }),
    ];
    const fromStems = new EmbeddedIndex(new LocalEmbedder());
    // an embedder with `embed` alone, which the index hands the texts
    const local = new LocalEmbedder();
    const fromTexts = new EmbeddedIndex({ id: local.id, dimensions: local.dimensions, embed: (texts) => local.embed(texts) });
    await fromStems.upsert(tools);
    await fromTexts.upsert(tools);
    for (const query of ["export the url list to pdf", "ask the http server", "read a text file", "page urls"]) {
      assert.deepEqual(await fromStems.search(query, { limit: 10 }), await fromTexts.search(query, { limit: 10 }), query);
    }
  });

  it("tool-index - the weights are checked", () => {
    assert.throws(() => new EmbeddedIndex(new LocalEmbedder(), { denseWeight: 1.5 }), /denseWeight/);
    assert.throws(() => new EmbeddedIndex(new LocalEmbedder(), { nameMatchWeight: -1 }), /nameMatchWeight/);
  });
});
