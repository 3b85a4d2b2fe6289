import type { MessageShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { grpcServiceDefinition } from "@switchyard/grpc";
import { Router } from "@switchyard/packet";
import { GatewayError } from "./deps.js";
import type { GatewayDeps } from "./deps.js";
import { grpcErrorOf } from "./errors.js";
import { listToolsResponse, routeResponse, submitResponse } from "./json.js";
import { requestSchemas, requestValidator, toFeedbackInput, toRouteInput, toSubmitInput, turnsToBody } from "./requests.js";
import type { FeedbackBody, GatewayLimits, RouteBody, SubmitPacketBody } from "./requests.js";

/** The health-checking name of the Router service, beside "" for the whole server. */
export const ROUTER_SERVICE_NAME = Router.typeName;

type RouterMethods = (typeof Router)["method"];
/** One async function per Router RPC, typed by the generated messages. */
type RouterHandlers = {
  [K in keyof RouterMethods]: (
    request: MessageShape<RouterMethods[K]["input"]>,
  ) => Promise<MessageShape<RouterMethods[K]["output"]>>;
};

export type GrpcServerOptions = GatewayLimits;

/**
 * The gRPC API (switchyard.v1.Router) and the standard health service, not yet
 * bound: main.ts calls `server.bindAsync`, and on shutdown sets the health
 * status to NOT_SERVING before `server.tryShutdown`.
 */
export function buildGrpcServer(
  deps: GatewayDeps,
  opts: GrpcServerOptions,
): { server: grpc.Server; health: HealthImplementation } {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": opts.bodyLimitBytes,
  });
  const handlers = routerHandlers(deps, opts);
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(handlers) as [string, (request: unknown) => Promise<unknown>][]) {
    implementation[name] = unary(handler);
  }
  server.addService(grpcServiceDefinition(Router), implementation);

  const health = new HealthImplementation({ "": "SERVING", [ROUTER_SERVICE_NAME]: "SERVING" });
  health.addToServer(server);
  return { server, health };
}

function unary(handler: (request: unknown) => Promise<unknown>): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    handler(call.request).then(
      (response) => callback(null, response),
      (error: unknown) => callback(grpcErrorOf(error)),
    );
  };
}

function routerHandlers(deps: GatewayDeps, limits: GatewayLimits): RouterHandlers {
  const schemas = requestSchemas(limits);
  const check = {
    submitPacket: requestValidator(schemas.submitPacket),
    route: requestValidator(schemas.route),
    packetRef: requestValidator(schemas.packetRef),
    approve: requestValidator(schemas.approve),
    deny: requestValidator(schemas.deny),
    feedback: requestValidator(schemas.feedback),
    toolExamples: requestValidator(schemas.toolExamples),
  };
  /** Runs a validator and turns its failure into INVALID_ARGUMENT; returns the value as validated. */
  function valid<T>(validator: (value: unknown) => ReturnType<typeof check.route>, value: T): T {
    const failure = validator(value);
    if (failure) throw new GatewayError("invalid", failure.message, failure.field);
    return value;
  }
  // proto3 has no "absent" for strings and numbers: empty and zero mean "not given".
  const packetId = (id: string) => valid(check.packetRef, { packetId: id }).packetId;

  return {
    async submitPacket(request) {
      const body = valid<SubmitPacketBody>(check.submitPacket, {
        message: request.message,
        ...(request.sessionId ? { sessionId: request.sessionId } : {}),
        history: turnsToBody(request.history),
        tools: request.tools,
        pools: request.pools,
        domains: request.domains,
        ...(request.wait === undefined ? {} : { wait: request.wait }),
      });
      const { packet, finished } = await deps.submitPacket(toSubmitInput(body));
      return submitResponse(packet, finished);
    },

    async getPacket(request) {
      const id = packetId(request.packetId);
      const packet = await deps.getPacket(id);
      if (!packet) throw new GatewayError("not_found", `packet ${id} not found`);
      return packet;
    },

    async approvePacket(request) {
      const id = packetId(request.packetId);
      const { callHash } = valid<{ callHash?: string }>(check.approve, request.callHash ? { callHash: request.callHash } : {});
      return deps.approvePacket(id, callHash);
    },

    async denyPacket(request) {
      const id = packetId(request.packetId);
      const { reason } = valid(check.deny, { reason: request.reason });
      return deps.denyPacket(id, reason);
    },

    async route(request) {
      const body = valid<RouteBody>(check.route, {
        message: request.message,
        history: turnsToBody(request.history),
        ...(request.topK === 0 ? {} : { topK: request.topK }),
        tools: request.tools,
        pools: request.pools,
        domains: request.domains,
      });
      return routeResponse(await deps.route(toRouteInput(body)));
    },

    listTools: async () => listToolsResponse(await deps.listTools()),

    async feedback(request) {
      const id = packetId(request.packetId);
      // An absent `correct` stays absent, so the validator names it as required; the cast is checked right here.
      const body = valid(check.feedback, {
        ...(request.correct === undefined ? {} : { correct: request.correct }),
        ...(request.tool ? { tool: request.tool } : {}),
      } as FeedbackBody);
      return deps.feedback(toFeedbackInput(id, body));
    },

    async addExamples(request) {
      const { tool, examples } = valid(check.toolExamples, { tool: request.tool, examples: request.examples });
      return deps.addExamples(tool, examples);
    },
  };
}
