import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { LocalEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { BroughtTools } from "../src/brought-tools.js";

const tool = (name: string, description: string) => create(ToolDefinitionSchema, { name, description });
const TOOLS = [
  tool("ledger_post", "Post an entry to the ledger"),
  tool("weather_forecast", "Weather forecast for a city: rain, wind and temperature"),
  tool("send_email", "Send an email message"),
  tool("translate_text", "Translate text into another language"),
];

/** The local embedder, counting the texts it embeds. */
function countingEmbedder(): Embedder & { texts: number } {
  const inner = new LocalEmbedder();
  const counting = { id: inner.id, dimensions: inner.dimensions, texts: 0, embed: (texts: string[]) => ((counting.texts += texts.length), inner.embed(texts)) };
  return counting;
}

describe("embedding-router - ranking the tools a caller brings", () => {
  it("embedding-router - the best fit first, the rest up to top K in the caller's order, no floor", async () => {
    const brought = new BroughtTools(new LocalEmbedder());
    const ranked = await brought.rank({ text: "will it rain in Oslo tomorrow?", context: [] }, TOOLS, 3);
    assert.equal(ranked.length, 3);
    assert.equal(ranked[0]!.tool?.name, "weather_forecast");
    assert.ok(ranked[0]!.score > 0);
    // nothing relevant: still two of them, for the caller's model to judge
    const none = await brought.rank({ text: "zzz qqq", context: [] }, TOOLS, 2);
    assert.equal(none.length, 2);
    for (const c of none) assert.ok(TOOLS.some((t) => t.name === c.tool?.name));
  });

  it("embedding-router - a set of tools is indexed once, the least recently used set dropped past the limit", async () => {
    const embedder = countingEmbedder();
    const brought = new BroughtTools(embedder, 1);
    await brought.rank({ text: "send an email", context: [] }, TOOLS, 2);
    const once = embedder.texts;
    await brought.rank({ text: "translate this", context: [] }, TOOLS, 2);
    assert.equal(embedder.texts, once + 1, "the same set again: only the query is embedded");
    await brought.rank({ text: "translate this", context: [] }, TOOLS.slice(1), 2);
    await brought.rank({ text: "translate this", context: [] }, TOOLS, 2);
    assert.ok(embedder.texts > once + 3, "the first set was dropped for the second and indexed again");
  });
});
