import { outageOf } from "@switchyard/llm";
import { EmbeddingDimensionError, EmbeddingRequestError, matchesFilter } from "@switchyard/retrieval";
import type { SearchOptions, ToolIndex } from "@switchyard/retrieval";
import { fallbackOf } from "@switchyard/telemetry";
import type { DependencyReporter, Outage } from "@switchyard/telemetry";
import { RoutingCandidate_Source } from "@switchyard/packet";
import type { RoutingCandidate, ToolDefinition } from "@switchyard/packet";
import { candidate, routeCandidates } from "./route.js";
import type { RouteQuery, RouteResult, RoutingSettings } from "./route.js";
import type { OfflineIndex } from "./offline-index.js";

/** The catalog as the router knows it (catalog-index.ts). */
export interface RouterCatalog {
  /** The tools always offered. */
  core(): ToolDefinition[];
  /** Every tool. */
  all(): ToolDefinition[];
}

/** What routing falls back on, and whose outage it names. */
export interface FallbackOptions {
  /** Ranks the whole catalog while tools are missing from the index (offline-index.ts); absent: the whole catalog, unscored. */
  offline?: OfflineIndex;
  /** The embeddings endpoint as a dependency (choose-embedder.ts `watchEmbeddings`): a fallback it caused is recorded on the packet. */
  embeddings?: DependencyReporter;
}

/**
 * Routing that still answers when the embedder fails (an endpoint that is
 * down, or answers with the wrong dimension):
 *
 * 1. hybrid search, `routeCandidates`;
 * 2. if that throws, or finds no tool while the index lacks some of the
 *    catalog's tools (their embedding failed, e.g. the endpoint was down at
 *    start, so its "no tool" cannot be trusted): the same search in the
 *    catalog as the built-in embedder indexes it (`options.offline`) while
 *    tools are missing from the index, else with the index's sparse
 *    (lexical) part alone; neither embeds anything with the endpoint;
 * 3. if that throws too, or finds no tool (core tools aside): the whole
 *    catalog within the request's filter, non-core tools first (SEMANTIC,
 *    score 0: unscored) then core tools (CORE), each by name.
 *
 * Each fallback adds a warning, and one the embeddings endpoint caused is
 * the result's `fallback`, for the packet. The request's filter holds at
 * every step. Once the embedder has failed, the list is empty only if the
 * catalog within the filter is; a query with no searchable word at all
 * (only stopwords) embeds nothing, and gets no tool whatever the embedder's
 * state.
 */
export async function routeWithFallback(
  index: ToolIndex,
  catalog: RouterCatalog,
  req: RouteQuery,
  config: RoutingSettings,
  options: FallbackOptions = {},
): Promise<RouteResult> {
  const warnings: string[] = [];
  let hybrid: RoutingCandidate[] | undefined;
  let failure: unknown;
  try {
    hybrid = await routeCandidates(index, catalog.core(), req, config);
  } catch (error) {
    failure = error;
  }
  const unindexed = catalog.all().length - index.size;
  if (hybrid && (hasSemantic(hybrid) || unindexed <= 0)) return result(hybrid, warnings, catalog, req);

  const offline = unindexed > 0 ? options.offline : undefined;
  const instead = offline ? "ranked the catalog with the built-in embedder" : "routed by lexical search alone";
  warnings.push(`${failure === undefined ? `no tool found, but ${unindexed} catalog tool(s) are not indexed (their embedding failed)` : `hybrid search failed (${messageOf(failure)})`}; ${instead}`);
  const outage = embedderOutage(failure, options.embeddings);
  const fallback = outage && options.embeddings ? { fallback: fallbackOf("route", { dependency: options.embeddings.dependency, outage }, `the router ${instead}`) } : {};
  try {
    const searched = offline ? await offline.of(catalog.all()) : sparseOnly(index);
    const candidates = await routeCandidates(searched, catalog.core(), req, config);
    if (hasSemantic(candidates)) return { candidates, warnings, ...fallback };
    warnings.push(`${offline ? "the built-in embedder" : "lexical search"} found no tool`);
  } catch (error) {
    warnings.push(`${offline ? "the built-in embedder" : "lexical search"} failed too (${messageOf(error)})`);
  }
  const candidates = wholeCatalog(catalog.all(), req);
  warnings.push(`returned the whole catalog within the request's filter (${candidates.length} tools, unscored)`);
  return { ...result(candidates, warnings, catalog, req), ...fallback };
}

/**
 * The embeddings endpoint's outage behind a fallback: the error of a request to it (or its
 * answer of the wrong dimension), or, when nothing was asked of it (tools missing from the
 * index), the outage it is down with. Undefined when the tool index itself failed.
 */
function embedderOutage(failure: unknown, embeddings: DependencyReporter | undefined): Outage | undefined {
  if (failure instanceof EmbeddingDimensionError) return { cause: "invalid_answer", text: `gave no usable answer (${failure.message})` };
  if (failure instanceof EmbeddingRequestError) return outageOf(failure);
  return failure === undefined ? embeddings?.outage() : undefined;
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
