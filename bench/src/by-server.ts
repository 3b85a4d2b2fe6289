/**
 * Retrieval figures by MCP server: a case's gold servers (the servers of its expected tools)
 * against the servers of the ranked tools, each kept at its first rank. The router returns
 * tools, so the servers come from its top 10 tools and may be fewer than 10.
 */
import type { ToolDefinition } from "@switchyard/packet";
import { mean, ndcgAt, recallAt, round } from "./metrics.js";

/** The cut-offs of recall@k by server. */
export const SERVER_KS = [1, 5, 10] as const;
const DEPTH = Math.max(...SERVER_KS);

/** A dataset's figures by server (`EvalResult.byServer`). */
export interface ServerResult {
  /** Cases scored: those with an expected tool. */
  n: number;
  /** Mean share of a case's gold servers among the first k servers of its ranked tools, keyed "1", "5", "10". */
  recall: Record<string, number>;
  /** nDCG@10 over those servers, binary relevance. */
  ndcg10: number;
}

/** The servers of `tools` (catalog names), each at its first rank; names without a server are passed over. */
export function serversInRankOrder(tools: readonly string[], serverOf: ReadonlyMap<string, string>): string[] {
  const servers: string[] = [];
  for (const name of tools) {
    const server = serverOf.get(name);
    if (server !== undefined && !servers.includes(server)) servers.push(server);
  }
  return servers;
}

/** Sums the by-server figures over a dataset's cases; nothing to report when no tool names a server. */
export class ServerTally {
  private readonly serverOf: Map<string, string>;
  private readonly recall = new Map<number, number[]>(SERVER_KS.map((k) => [k, []]));
  private readonly ndcg: number[] = [];

  constructor(tools: readonly Pick<ToolDefinition, "name" | "server">[]) {
    this.serverOf = new Map(tools.filter((t) => t.server !== "").map((t) => [t.name, t.server]));
  }

  /** One case: its expected tools and the ranked ones (as `asExpected` names them). */
  add(expected: readonly string[], ranked: readonly string[]): void {
    if (this.serverOf.size === 0 || expected.length === 0) return;
    const gold = serversInRankOrder(expected, this.serverOf);
    const found = serversInRankOrder(ranked, this.serverOf);
    for (const k of SERVER_KS) this.recall.get(k)!.push(recallAt(gold, found, k));
    this.ndcg.push(ndcgAt(gold, found, DEPTH));
  }

  result(): ServerResult | undefined {
    if (this.ndcg.length === 0) return undefined;
    return {
      n: this.ndcg.length,
      recall: Object.fromEntries(SERVER_KS.map((k) => [String(k), round(mean(this.recall.get(k)!))])),
      ndcg10: round(mean(this.ndcg)),
    };
  }
}
