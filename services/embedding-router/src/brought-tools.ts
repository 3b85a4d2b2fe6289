/**
 * Ranking the tools a caller brings instead of the catalog's: an OpenAI chat request proxied by
 * the gateway carries its own `tools`, often hundreds, and only the best few go on to the model.
 * They are indexed with the router's own embedder and scoring, once per set of tools (an agent
 * sends the same set with every turn), the latest sets kept.
 */
import { createHash } from "node:crypto";
import { RoutingCandidate_Source } from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";
import { EmbeddedIndex, toolContentHash } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import type { RouterQuery } from "@switchyard/request-text";
import { candidate } from "./route.js";

/** Tool sets kept indexed; the one used longest ago goes first. */
const DEFAULT_KEPT_SETS = 32;

export class BroughtTools {
  private readonly indexes = new Map<string, Promise<EmbeddedIndex>>();

  constructor(
    private readonly embedder: Embedder,
    private readonly keptSets = DEFAULT_KEPT_SETS,
  ) {}

  /**
   * The `topK` of `tools` that best fit `query`, best first. No floor: the caller's model
   * decides among them, and a set with nothing relevant still sends its best.
   */
  async rank(query: RouterQuery, tools: readonly ToolDefinition[], topK: number): Promise<RoutingCandidate[]> {
    const index = await this.indexOf(tools);
    const found = await index.search(query.text, { limit: topK, context: query.context });
    const ranked = found.map((r) => candidate(r.tool, r.score, RoutingCandidate_Source.SEMANTIC));
    if (ranked.length >= topK) return ranked;
    // Tools the search did not reach (no word in common) follow in the caller's order, scored 0.
    const listed = new Set(ranked.map((c) => c.tool?.name));
    const rest = tools.filter((t) => !listed.has(t.name)).slice(0, topK - ranked.length);
    return [...ranked, ...rest.map((t) => candidate(t, 0, RoutingCandidate_Source.SEMANTIC))];
  }

  private indexOf(tools: readonly ToolDefinition[]): Promise<EmbeddedIndex> {
    const key = createHash("sha256").update(tools.map(toolContentHash).join("\n")).digest("hex");
    let index = this.indexes.get(key);
    if (index) {
      this.indexes.delete(key); // most recently used goes last
    } else {
      const fresh = new EmbeddedIndex(this.embedder);
      index = fresh.upsert([...tools]).then(() => fresh);
      // a set that failed to index is not kept: the next request tries again
      index.catch(() => this.indexes.delete(key));
    }
    this.indexes.set(key, index);
    for (const oldest of this.indexes.keys()) {
      if (this.indexes.size <= this.keptSets) break;
      this.indexes.delete(oldest);
    }
    return index;
  }
}
