import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { headers } from "@nats-io/nats-core";
import type { MsgHdrs, NatsConnection } from "@nats-io/nats-core";
import { EXAMPLES_SUBJECT, FEEDBACK_SUBJECT, Headers, RANK_TOOLS_SUBJECT, requestReply, ROUTE_SUBJECT, ServiceError } from "@switchyard/bus";
import {
  AddExamplesRequestSchema,
  AddExamplesResponseSchema,
  FeedbackRequestSchema,
  FeedbackResponseSchema,
  RankToolsRequestSchema,
  RankToolsResponseSchema,
  RouteRequestSchema,
  RouteResponseReader,
} from "@switchyard/packet";
import type { AddExamplesResponse, FeedbackResponse, RankToolsResponse, RouteResponse } from "@switchyard/packet";
import { GatewayError } from "../shared/deps.js";
import type { GatewayErrorCode } from "../shared/deps.js";

/** The router's error codes (learning.ts) as the gateway's. */
const ROUTER_ERRORS = new Map<number, GatewayErrorCode>([
  [400, "invalid"],
  [404, "not_found"],
  [409, "conflict"],
]);

/** The embedding-routers' endpoints (their NATS micro service), as the gateway asks them. */
export function routerRequests(nc: NatsConnection, timeoutMs: number) {
  const routeAnswers = new RouteResponseReader();
  /** One request; the router's refusals keep their meaning (404, 409, 400), anything else is 503. */
  async function ask<I extends DescMessage, O>(
    subject: string,
    input: I,
    read: (answer: Uint8Array) => O,
    init: MessageInitShape<I>,
    tenant?: string,
  ): Promise<O> {
    try {
      return read(await requestReply(nc, subject, toBinary(input, create(input, init)), timeoutMs, tenant === undefined ? undefined : tenantHeaders(tenant)));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const code = ROUTER_ERRORS.get(error.code) ?? "unavailable";
      throw new GatewayError(code, code === "unavailable" ? `embedding-router: ${error.message}` : error.message);
    }
  }
  return {
    route: (tenant: string, request: MessageInitShape<typeof RouteRequestSchema>): Promise<RouteResponse> =>
      ask(ROUTE_SUBJECT, RouteRequestSchema, (answer) => routeAnswers.read(answer), request, tenant),
    rankTools: (request: MessageInitShape<typeof RankToolsRequestSchema>): Promise<RankToolsResponse> =>
      ask(RANK_TOOLS_SUBJECT, RankToolsRequestSchema, reader(RankToolsResponseSchema), request),
    feedback: (request: MessageInitShape<typeof FeedbackRequestSchema>): Promise<FeedbackResponse> => ask(FEEDBACK_SUBJECT, FeedbackRequestSchema, reader(FeedbackResponseSchema), request),
    addExamples: (tenant: string, request: MessageInitShape<typeof AddExamplesRequestSchema>): Promise<AddExamplesResponse> =>
      ask(EXAMPLES_SUBJECT, AddExamplesRequestSchema, reader(AddExamplesResponseSchema), request, tenant),
  };
}

function reader<O extends DescMessage>(output: O): (answer: Uint8Array) => MessageShape<O> {
  return (answer) => fromBinary(output, answer);
}

/** The tenant travels beside the request, not in it: RouteRequest is also the public body, which must not name one. */
function tenantHeaders(tenant: string): MsgHdrs {
  const requestHeaders = headers();
  requestHeaders.set(Headers.Tenant, tenant);
  return requestHeaders;
}
