import { create } from "@bufbuild/protobuf";
import type { MessageShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { addReflection, grpcServiceDefinition } from "@switchyard/grpc";
import { ListPacketsResponseSchema, Packet_State, Router } from "@switchyard/packet";
import type { Authenticator, Caller } from "../../shared/auth.js";
import { DEFAULT_LINKS } from "../../shared/console-links.js";
import type { ConsoleLinks } from "../../shared/console-links.js";
import { peerAddress, THROTTLED_MESSAGE } from "../../shared/auth-throttle.js";
import { structureProblem } from "../../shared/bounded-json.js";
import { GatewayError } from "../../shared/deps.js";
import type { GatewayDeps } from "../../shared/deps.js";
import { grpcErrorOf } from "../../shared/errors.js";
import { listToolsResponse, submitResponse } from "../../shared/json.js";
import { requestSchemas, requestValidator, turnsToBody } from "../../shared/requests.js";
import type { GatewayLimits } from "../../shared/requests.js";

/** The health-checking name of the Router service, beside "" for the whole server. */
export const ROUTER_SERVICE_NAME = Router.typeName;

type RouterMethods = (typeof Router)["method"];
/** One async function per Router RPC, typed by the generated messages. */
type RouterHandlers = {
  [K in keyof RouterMethods]: (
    request: MessageShape<RouterMethods[K]["input"]>,
    caller: Caller,
  ) => Promise<MessageShape<RouterMethods[K]["output"]>>;
};

export interface GrpcServerOptions extends GatewayLimits {
  /** Who may call, and as which tenant: the `authorization` metadata carries "Bearer <key>". */
  auth: Authenticator;
  /** Where answers link the console (SubmitPacketResponse.approval_url). @default DEFAULT_LINKS */
  links?: ConsoleLinks;
}

/**
 * The gRPC API (switchyard.v1.Router), server reflection and the standard health service, not yet
 * bound: front-doors.ts calls `server.bindAsync`, and on shutdown sets the health
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
  for (const [name, handler] of Object.entries(handlers) as [string, UntypedHandler][]) {
    implementation[name] = unary(opts.auth, handler);
  }
  server.addService(keepUndecodable(grpcServiceDefinition(Router, { recursionLimit: DECODE_RECURSION_LIMIT })), implementation);
  // Open like /docs: it describes the API, and every call of it still needs a key.
  addReflection(server, [Router]);

  const health = new HealthImplementation({ "": "SERVING", [ROUTER_SERVICE_NAME]: "SERVING" });
  health.addToServer(server);
  return { server, health };
}

type UntypedHandler = (request: unknown, caller: Caller) => Promise<unknown>;

/**
 * Levels of messages a request is decoded to: far past what the bounds accept (MAX_JSON_DEPTH
 * levels of JSON, two messages each), so a value nested too deep is refused naming its field
 * (protobuf's default of 100 would fail at 49 levels, unnamed); deeper still is refused undecoded.
 */
const DECODE_RECURSION_LIMIT = 1000;

/** A request whose bytes are no message of its type (malformed, or nested past protobuf's limit). */
class UndecodableRequest {
  constructor(readonly reason: string) {}
}

/**
 * The service with deserializers that never throw: grpc-js answers a throwing one INTERNAL,
 * though the fault is the caller's. The failure is kept for `unary` to answer INVALID_ARGUMENT.
 */
function keepUndecodable(definition: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const methods = Object.entries(definition).map(([name, method]) => {
    const requestDeserialize = (bytes: Buffer): unknown => {
      try {
        return method.requestDeserialize(bytes);
      } catch (error) {
        return new UndecodableRequest((error as Error).message);
      }
    };
    return [name, { ...method, requestDeserialize }];
  });
  return Object.fromEntries(methods) as grpc.ServiceDefinition;
}

/** One RPC: the caller's key is checked (UNAUTHENTICATED without a valid one) before the request is looked at. */
function unary(auth: Authenticator, handler: UntypedHandler): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const [authorization] = call.metadata.get("authorization");
    const caller = auth.authenticate(typeof authorization === "string" ? authorization : undefined, peerAddress(call.getPeer()));
    if (typeof caller === "string") {
      const details = caller === "missing" ? "an API key is required: metadata authorization: Bearer <key>" : caller === "invalid" ? "the API key is not valid" : THROTTLED_MESSAGE;
      callback({ code: caller === "throttled" ? grpc.status.RESOURCE_EXHAUSTED : grpc.status.UNAUTHENTICATED, details });
      return;
    }
    if (call.request instanceof UndecodableRequest) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: `the request is not a valid message of its type: ${call.request.reason}` });
      return;
    }
    handler(call.request, caller).then(
      (response) => callback(null, response),
      (error: unknown) => callback(grpcErrorOf(error)),
    );
  };
}

/** A timestamp as RFC 3339 text, or a text the date-time format refuses when it is out of range. */
function timestampText(timestamp: Timestamp): string {
  const date = timestampDate(timestamp);
  return Number.isNaN(date.getTime()) ? `${timestamp.seconds}s` : date.toISOString();
}

function routerHandlers(deps: GatewayDeps, { links = DEFAULT_LINKS, ...limits }: GatewayLimits & { links?: ConsoleLinks }): RouterHandlers {
  const schemas = requestSchemas(limits);
  const check = {
    submitPacket: requestValidator(schemas.submitPacket),
    submitCall: requestValidator(schemas.submitCall),
    route: requestValidator(schemas.route),
    packetRef: requestValidator(schemas.packetRef),
    approve: requestValidator(schemas.approve),
    deny: requestValidator(schemas.deny),
    feedback: requestValidator(schemas.feedback),
    toolExamples: requestValidator(schemas.toolExamples),
    listExamples: requestValidator(schemas.listExamples),
    deleteExample: requestValidator(schemas.deleteExample),
    listPackets: requestValidator(schemas.listPackets),
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
    async submitPacket(request, { tenant }) {
      valid(check.submitPacket, {
        message: request.message,
        ...(request.sessionId ? { sessionId: request.sessionId } : {}),
        history: turnsToBody(request.history),
        tools: request.tools,
        pools: request.pools,
        domains: request.domains,
        ...(request.wait === undefined ? {} : { wait: request.wait }),
      });
      const { packet, finished } = await deps.submitPacket(tenant, request);
      return submitResponse(packet, finished, links.approvalUrl(packet));
    },

    async submitCall(request, { tenant }) {
      // The arguments as HTTP's body would hold them: level 1, with the same bounds (bounded-json.ts).
      const problem = structureProblem(request.arguments ?? {}, "arguments", 1);
      if (problem) throw new GatewayError("invalid", problem.message, problem.field);
      valid(check.submitCall, {
        tool: request.tool,
        arguments: request.arguments ?? {},
        ...(request.message ? { message: request.message } : {}),
        ...(request.sessionId ? { sessionId: request.sessionId } : {}),
        ...(request.wait === undefined ? {} : { wait: request.wait }),
      });
      const { packet, finished } = await deps.submitCall(tenant, request);
      return submitResponse(packet, finished, links.approvalUrl(packet));
    },

    async getPacket(request, { tenant }) {
      const id = packetId(request.packetId);
      const packet = await deps.getPacket(tenant, id);
      if (!packet) throw new GatewayError("not_found", `packet ${id} not found`);
      return packet;
    },

    async approvePacket(request, { tenant }) {
      const id = packetId(request.packetId);
      const { callHash } = valid<{ callHash?: string }>(check.approve, request.callHash ? { callHash: request.callHash } : {});
      return deps.approvePacket(tenant, id, callHash);
    },

    async denyPacket(request, { tenant }) {
      const id = packetId(request.packetId);
      const { reason } = valid(check.deny, { reason: request.reason });
      return deps.denyPacket(tenant, id, reason);
    },

    async route(request, { tenant }) {
      valid(check.route, {
        message: request.message,
        history: turnsToBody(request.history),
        ...(request.topK === 0 ? {} : { topK: request.topK }),
        tools: request.tools,
        pools: request.pools,
        domains: request.domains,
      });
      return deps.route(tenant, request);
    },

    listTools: async (_request, { tenant }) => listToolsResponse(await deps.listTools(tenant)),

    async feedback(request, { tenant }) {
      packetId(request.packetId);
      // An absent `correct` stays absent, so the validator names it as required.
      valid(check.feedback, {
        ...(request.correct === undefined ? {} : { correct: request.correct }),
        ...(request.tool ? { tool: request.tool } : {}),
      });
      return deps.feedback(tenant, request);
    },

    async addExamples(request, caller) {
      valid(check.toolExamples, { tool: request.tool, examples: request.examples, ...(request.shared ? { shared: true } : {}) });
      return deps.addExamples(caller, request);
    },

    async listExamples(request, caller) {
      valid(check.listExamples, { tool: request.tool });
      return deps.listExamples(caller, request);
    },

    async deleteExample(request, caller) {
      valid(check.deleteExample, { tool: request.tool, id: request.id });
      return deps.deleteExample(caller, request);
    },

    async listPackets(request, { tenant }) {
      // The request as HTTP's query holds it, so the same schema names the same field.
      valid(check.listPackets, {
        ...(request.states.length > 0 ? { state: request.states.map((state) => Packet_State[state] ?? String(state)) } : {}),
        ...(request.status ? { status: request.status } : {}),
        ...(request.tool ? { tool: request.tool } : {}),
        ...(request.sessionId ? { sessionId: request.sessionId } : {}),
        ...(request.query ? { query: request.query } : {}),
        ...(request.limit === 0 ? {} : { limit: request.limit }),
        ...(request.before ? { before: timestampText(request.before) } : {}),
      });
      return create(ListPacketsResponseSchema, { packets: await deps.listPackets(tenant, request) });
    },

    getFleetStatus: async (_request, { tenant }) => deps.fleetStatus(tenant),
  };
}
