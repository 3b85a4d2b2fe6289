import { matchesFilter } from "@switchyard/retrieval";
import type { SearchOptions, ToolIndex } from "@switchyard/retrieval";
import { RoutingCandidate_Source } from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";
import { candidate, routeCandidates } from "./route.js";
import type { RouteQuery, RouteResult, RoutingSettings } from "./route.js";

/** The catalog as the router knows it (catalog-index.ts). */
export interface RouterCatalog {
  /** The tools always offered. */
  core(): ToolDefinition[];
  /** Every tool. */
  all(): ToolDefinition[];
}

/**
 * Routing that still answers when the embedder fails (an endpoint that is
 * down, or answers with the wrong dimension):
 *
 * 1. hybrid search, `routeCandidates`;
 * 2. if that throws: the same with the index's sparse (lexical) part alone,
 *    which embeds nothing;
 * 3. if that throws too, or finds no tool (core tools aside): the whole
 *    catalog within the request's filter, non-core tools first (SEMANTIC,
 *    score 0: unscored) then core tools (CORE), each by name. Also when
 *    hybrid search finds no tool while the index lacks some of the catalog's
 *    tools (their embedding failed, e.g. the endpoint was down at start): its
 *    "no tool" cannot be trusted.
 *
 * Each fallback adds a warning. The request's filter holds at every step.
 * Once the embedder has failed, the list is empty only if the catalog within
 * the filter is; a query with no searchable word at all (only stopwords)
 * embeds nothing, and gets no tool whatever the embedder's state.
 */
export async function routeWithFallback(
  index: ToolIndex,
  catalog: RouterCatalog,
  req: RouteQuery,
  config: RoutingSettings,
): Promise<RouteResult> {
  const warnings: string[] = [];
  let hybrid: RoutingCandidate[] | undefined;
  try {
    hybrid = await routeCandidates(index, catalog.core(), req, config);
  } catch (error) {
    warnings.push(`hybrid search failed (${messageOf(error)}); routed by lexical search alone`);
  }
  if (hybrid) {
    const unindexed = hasSemantic(hybrid) ? 0 : catalog.all().length - index.size;
    if (unindexed <= 0) return result(hybrid, warnings, catalog, req);
    warnings.push(`no tool found, but ${unindexed} catalog tool(s) are not indexed (their embedding failed)`);
  } else {
    try {
      const candidates = await routeCandidates(sparseOnly(index), catalog.core(), req, config);
      if (hasSemantic(candidates)) return { candidates, warnings };
      warnings.push("lexical search found no tool");
    } catch (error) {
      warnings.push(`lexical search failed too (${messageOf(error)})`);
    }
  }
  const candidates = wholeCatalog(catalog.all(), req);
  warnings.push(`returned the whole catalog within the request's filter (${candidates.length} tools, unscored)`);
  return result(candidates, warnings, catalog, req);
}

/** The route result; when no tool matched, with how many tools were searched, for the packet's reason. */
function result(candidates: RoutingCandidate[], warnings: string[], catalog: RouterCatalog, req: RouteQuery): RouteResult {
  if (hasSemantic(candidates)) return { candidates, warnings };
  return { candidates, warnings, searched: catalog.all().filter((tool) => matchesFilter(tool, req.filter)).length };
}

/** The index searched by its sparse part alone (`SearchOptions.sparseOnly`). */
export function sparseOnly(index: ToolIndex): ToolIndex {
  return {
    get size() {
      return index.size;
    },
    upsert: (tools) => index.upsert(tools),
    remove: (name) => index.remove(name),
    search: (query: string, opts: SearchOptions) => index.search(query, { ...opts, sparseOnly: true }),
  };
}

/** Every tool within the request's filter, non-core first, each group by name. */
export function wholeCatalog(tools: readonly ToolDefinition[], req: RouteQuery): RoutingCandidate[] {
  const allowed = tools.filter((t) => matchesFilter(t, req.filter)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [
    ...allowed.filter((t) => !t.core).map((t) => candidate(t, 0, RoutingCandidate_Source.SEMANTIC)),
    ...allowed.filter((t) => t.core).map((t) => candidate(t, 0, RoutingCandidate_Source.CORE)),
  ];
}

function hasSemantic(candidates: readonly RoutingCandidate[]): boolean {
  return candidates.some((c) => c.source === RoutingCandidate_Source.SEMANTIC);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
