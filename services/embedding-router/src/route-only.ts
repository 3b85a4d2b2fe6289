import { create } from "@bufbuild/protobuf";
import { RouteResponseSchema, RoutingCandidate_Source } from "@switchyard/packet";
import type { RouteRequest, RouteResponse } from "@switchyard/packet";
import { buildQuery } from "@switchyard/request-text";
import { matchedWords } from "@switchyard/retrieval";
import { toolNeedOf } from "./route.js";
import type { RouteStageDeps } from "./route.js";

/** What a route-only request needs: the route stage's routing and tool-need gate, and how many turns a query borrows. */
export interface RouteOnlyDeps extends Pick<RouteStageDeps, "route" | "catalogStats" | "englishOnly" | "toolNeed" | "correctSpelling"> {
  /** ROUTER_MAX_QUERY_TURNS. */
  maxQueryTurns: number;
}

/**
 * The answer to a route-only request (POST /v1/route, gRPC Route) from `tenant`:
 * the candidates the route stage would get for the message, within the
 * request's filter, each with the request's words its text or example shares
 * (`matchedWords`, made for the returned candidates alone) and the example's
 * text; and `need`, the route stage's tool-need verdict (`toolNeedOf`) for a
 * message no intent rule settled: the intent stage's rules are not run here.
 */
export async function routeOnly(request: RouteRequest, tenant: string, deps: RouteOnlyDeps): Promise<RouteResponse> {
  const filter = { tools: request.tools, pools: request.pools, domains: request.domains, tenant };
  // The same query the intent stage would build: "turn it off" borrows the turn before.
  const { text, context } = buildQuery(request.message, request.history, { maxTurns: deps.maxQueryTurns });
  // searched with its typos read as the catalog's words, as the route stage does
  const spelled = deps.correctSpelling?.(text) ?? { text, corrections: [] };
  const { candidates, warnings } = await deps.route({ query: spelled.text, context, topK: request.topK || undefined, filter });
  const semantic = candidates.filter((c) => c.source === RoutingCandidate_Source.SEMANTIC);
  const { verdict } = toolNeedOf({ written: text, query: spelled.text, context, semantic, requested: false, allowList: request.tools.length > 0 }, deps);
  const explain = matchedWords(text, spelled.corrections, deps.catalogStats());
  // the candidates are this request's own messages (routeCandidates makes them), so they are filled in place
  for (const c of candidates) if (c.tool) c.matchedWords = explain(c.tool, c.example || undefined);
  return create(RouteResponseSchema, { candidates, warnings, need: verdict });
}
