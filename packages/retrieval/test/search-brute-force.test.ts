import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ownToolName } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { catalogTool } from "@switchyard/test-fixtures";
import { relatedStems } from "../src/concepts.js";
import { LocalEmbedder } from "../src/embedder.js";
import { mulberry32 } from "../src/seeded-random.js";
import { withoutValues } from "@switchyard/request-text";
import { exampleDocuments, tokenize, toolFields } from "../src/text.js";
import { EmbeddedIndex, matchesFilter, weightedStems, weightedVector } from "../src/tool-index.js";
import type { ScoredTool, SearchOptions } from "../src/tool-index.js";
import { topK } from "../src/top-k.js";

// The index's defaults, which the brute force below scores with.
const DENSE = 0.4;
const NAME_MATCH = 0.2;
const RELATED = 0.5;
const K1 = 1.0;
const B = 0.6;

/**
 * Every tool scored in full, as the class comment of EmbeddedIndex defines the
 * score, in the same order of float operations: what the index's search must
 * equal to the last bit, however it avoids scoring every tool.
 */
function bruteForce(tools: readonly ToolDefinition[], embedder: LocalEmbedder, query: string, opts: SearchOptions): ScoredTool[] {
  const context = opts.context ?? [];
  const stems = weightedStems(query, context);
  if (opts.limit <= 0 || tools.length === 0 || stems.size === 0) return [];
  const embed = (text: string) => embedder.embedOne(text);
  const docs = tools.map((tool) => {
    const f = toolFields(tool);
    const terms = new Map<string, number>();
    for (const [text, weight] of [[f.name, 2], [f.description, 1], [f.parameters, 1]] as const) {
      for (const t of tokenize(text)) terms.set(t, (terms.get(t) ?? 0) + weight);
    }
    let length = 0;
    for (const tf of terms.values()) length += tf;
    const whole = [f.name, f.description, f.parameters].filter((s) => s.length > 0).join("\n");
    const examples = exampleDocuments(f).map((e) => e.compared);
    return {
      tool,
      terms,
      length,
      name: [...new Set(tokenize(ownToolName(tool)))],
      vectors: [whole, ...examples].map(embed),
      examples: examples.map((e) => new Set(tokenize(e))),
    };
  });
  const n = docs.length;
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / n;
  const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const idf = (term: string) => idfOf(docs.filter((d) => d.terms.has(term)).length);
  const nameIdf = (stem: string) => idfOf(docs.filter((d) => d.name.includes(stem)).length);

  // examples are compared with the text without its values
  type Weighted = { weights: ReadonlyMap<string, number>; vector: Float32Array | undefined };
  const plainOf = (text: string, withContext: boolean): Weighted => ({
    weights: weightedStems(withoutValues(text), withContext ? context.map(withoutValues) : []),
    vector: opts.sparseOnly ? undefined : weightedVector(embed(withoutValues(text)), withContext ? context.map((c) => embed(withoutValues(c))) : []),
  });
  const expand = (weights: ReadonlyMap<string, number>) => [...weights].map(([term, weight]) => [{ term, weight }, ...relatedStems(term).map((r) => ({ term: r, weight: weight * RELATED }))]);
  const rank = (weights: ReadonlyMap<string, number>, vector: Float32Array | undefined, limit: number, plain: Weighted): ScoredTool[] => {
    const expanded = expand(weights);
    const plainExpanded = expand(plain.weights);
    const known = (term: string) => docs.some((d) => d.terms.has(term));
    let reference = 0;
    for (const alternatives of expanded) {
      let best = 0;
      for (const { term, weight } of alternatives) if (known(term)) best = Math.max(best, weight * idf(term));
      reference += best;
    }
    const bm25 = docs.map((d) => {
      const norm = K1 * (1 - B + (B * d.length) / avg);
      let total = 0;
      for (const alternatives of expanded) {
        let best = 0;
        for (const { term, weight } of alternatives) {
          const tf = d.terms.get(term);
          if (tf === undefined) continue;
          const s = (weight * idf(term) * tf * (K1 + 1)) / (tf + norm);
          if (s > best) best = s;
        }
        total += best;
      }
      return total;
    });
    const scale = Math.max(reference, ...bm25);
    const matches = new Map<string, number>();
    for (const { term, weight } of expanded.flat()) matches.set(term, Math.max(matches.get(term) ?? 0, Math.min(1, weight)));
    const exampleIdf = plainExpanded.map((alternatives) => alternatives.map(({ term, weight }) => weight * idf(term)));
    const whole = exampleIdf.reduce((sum, alternatives) => sum + alternatives[0]!, 0);
    const cosine = (v: Float32Array, of = vector!) => {
      let s = 0;
      for (let d = 0; d < v.length; d++) if (of[d] !== 0 && v[d] !== 0) s += of[d]! * v[d]!;
      return Math.max(0, s);
    };
    const fuse = (c: number, sparse: number) => DENSE * c + (1 - DENSE) * sparse;
    const scored = docs.map((d, t) => {
      let total = 0;
      let matched = 0;
      for (const s of d.name) {
        total += nameIdf(s);
        matched += nameIdf(s) * (matches.get(s) ?? 0);
      }
      const nameCoverage = NAME_MATCH * (total > 0 ? matched / total : 0);
      let score = (scale > 0 && bm25[t]! > 0 ? ((1 - NAME_MATCH) * bm25[t]!) / scale : 0) + nameCoverage;
      if (vector) score = fuse(cosine(d.vectors[0]!), score);
      d.examples.forEach((stemsOfExample, i) => {
        let said = 0;
        exampleIdf.forEach((alternatives, q) => {
          let best = 0;
          alternatives.forEach((w, a) => {
            if (stemsOfExample.has(plainExpanded[q]![a]!.term)) best = Math.max(best, w);
          });
          said += best;
        });
        const sparse = (1 - NAME_MATCH) * (whole > 0 ? said / whole : 0) + nameCoverage;
        const s = vector ? fuse(cosine(d.vectors[i + 1]!, plain.vector), sparse) : sparse;
        if (s > score) score = s;
      });
      return { tool: d.tool, score: Math.min(1, score) };
    });
    const kept = scored.filter((r) => r.score > 0 && matchesFilter(r.tool, opts.filter));
    return topK(kept, limit, (r) => r.score, (r) => r.tool.name);
  };

  // an included tool scores the better of the whole query's and each line's, wherever it ranks
  const includedScores = new Map<string, ScoredTool>();
  const include = new Set(opts.include);
  const rankWithIncluded = (s: ReadonlyMap<string, number>, v: Float32Array | undefined, limit: number, plain: Weighted) => {
    const all = rank(s, v, tools.length, plain);
    for (const r of all) if (include.has(r.tool.name) && r.score > (includedScores.get(r.tool.name)?.score ?? 0)) includedScores.set(r.tool.name, r);
    return all.slice(0, limit);
  };
  const vector = opts.sparseOnly ? undefined : weightedVector(embed(query), context.map(embed));
  let result = rankWithIncluded(stems, vector, opts.limit, plainOf(query, true));
  const lines = [...context, query]
    .join("\n")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => tokenize(l).length >= 2);
  if (lines.length >= 2) {
    const best = new Map(result.map((r) => [r.tool.name, r]));
    for (const line of lines) {
      for (const r of rankWithIncluded(weightedStems(line), opts.sparseOnly ? undefined : embed(line), 2, plainOf(line, false))) {
        if (r.score > (best.get(r.tool.name)?.score ?? 0)) best.set(r.tool.name, r);
      }
    }
    result = topK([...best.values()], opts.limit, (r) => r.score, (r) => r.tool.name);
  }
  const inTop = new Set(result.map((r) => r.tool.name));
  const extra = [...includedScores.values()].filter((r) => !inTop.has(r.tool.name));
  return [...result, ...topK(extra, extra.length, (r) => r.score, (r) => r.tool.name).map((r): ScoredTool => ({ ...r, included: true }))];
}

const WORDS = [
  "read", "write", "file", "directory", "folder", "weather", "forecast", "city", "stock", "price", "mail", "send",
  "calendar", "event", "list", "search", "create", "delete", "user", "account", "image", "music", "play", "note",
  "todo", "translate", "currency", "convert", "flight", "hotel",
];

function randomTool(random: () => number, i: number): ToolDefinition {
  const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const words = (k: number) => Array.from({ length: k }, word).join(" ");
  return catalogTool({
    name: `${word()}_${word()}_${i}`,
    description: words(1 + Math.floor(random() * 14)),
    examples: random() < 0.3 ? Array.from({ length: 1 + Math.floor(random() * 2) }, () => words(2 + Math.floor(random() * 4))) : [],
    pool: random() < 0.5 ? "a" : "b",
    domains: random() < 0.5 ? ["x"] : ["y", "z"],
    tenants: random() < 0.2 ? ["t1"] : [],
  });
}

describe("search brute force", () => {
  it("search brute force - the index equals scoring every tool in full, through upserts, removals, filters, limits, included tools and multi-line queries", async () => {
    const random = mulberry32(7);
    const embedder = new LocalEmbedder();
    const index = new EmbeddedIndex(embedder);
    const catalog = new Map<string, ToolDefinition>();
    const removed: string[] = [];
    for (let round = 0; round < 12; round++) {
      const added = Array.from({ length: 10 + Math.floor(random() * 40) }, (_, i) => randomTool(random, Math.floor(random() * 200) + i * 1000));
      await index.upsert(added);
      for (const t of added) catalog.set(t.name, t);
      for (const name of [...catalog.keys()].filter(() => random() < 0.15)) {
        await index.remove(name);
        catalog.delete(name);
        removed.push(name);
      }
      for (let q = 0; q < 15; q++) {
        const word = () => WORDS[Math.floor(random() * WORDS.length)]!;
        const lines = random() < 0.25 ? 2 : 1;
        const query = Array.from({ length: lines }, () => Array.from({ length: 1 + Math.floor(random() * 4) }, word).join(" ")).join("\n");
        const opts: SearchOptions = {
          limit: 1 + Math.floor(random() * 8),
          filter: [undefined, { tenant: "t2" }, { pools: ["a"] }, { domains: ["z"], tenant: "t1" }][Math.floor(random() * 4)],
          sparseOnly: random() < 0.2,
          context: random() < 0.15 ? [word() + " " + word()] : undefined,
          // names of the catalog, some removed since, and one never indexed
          include: random() < 0.4 ? [...[...catalog.keys(), ...removed].filter(() => random() < 0.1), "never.indexed"] : undefined,
        };
        const got = (await index.search(query, opts)).map((r) => [r.tool.name, r.score, r.included ?? false]);
        const want = bruteForce([...catalog.values()], embedder, query, opts).map((r) => [r.tool.name, r.score, r.included ?? false]);
        assert.deepEqual(got, want, `round ${round} query ${JSON.stringify(query)} ${JSON.stringify(opts)}`);
      }
    }
  });
});
