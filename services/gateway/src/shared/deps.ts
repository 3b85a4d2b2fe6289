import type {
  AddExamplesRequest,
  AddExamplesResponse,
  DeleteExampleRequest,
  FeedbackRequest,
  FeedbackResponse,
  FleetStatus,
  ListExamplesRequest,
  ListExamplesResponse,
  ListPacketsRequest,
  Packet,
  RankToolsRequest,
  RegisteredServer,
  RouteRequest,
  RouteResponse,
  RoutingCandidate,
  SubmitCallRequest,
  SubmitPacketRequest,
  ToolDefinition,
  ToolExample,
} from "@switchyard/packet";
import type { Caller } from "./auth.js";

/** A packet handed to the fleet: finished=false when it was still running after the wait timeout (or `wait` was false). */
export interface Submitted {
  packet: Packet;
  finished: boolean;
}

/**
 * Everything the gateway needs from the rest of the fleet, in the API's own proto
 * messages (router.proto) plus the caller's tenant. Every door (HTTP, gRPC, MCP, the
 * OpenAI proxy) validates, calls these and converts the answers; the implementation
 * over NATS lives in nats-deps.ts.
 *
 * Methods report expected failures by throwing a {@link GatewayError}; any
 * other error is answered as an internal error without its details.
 *
 * `tenant` is the caller's, from its API key: a packet of another tenant is
 * "not found", so its existence is not revealed, and so is a tool private to another
 * tenant. What a tenant teaches is its own (docs/security.md).
 */
export interface GatewayDeps {
  /** The full packet flow; `wait` unset waits. */
  submitPacket(tenant: string, request: SubmitPacketRequest): Promise<Submitted>;
  /**
   * A call the caller chose (direct-call.ts): reviewed and run as a packet that starts at the
   * review stage. GatewayError "not_found" for a tool the tenant cannot see, "invalid" for an
   * ambiguous bare name. `wait` as for submitPacket.
   */
  submitCall(tenant: string, request: SubmitCallRequest): Promise<Submitted>;
  /** undefined when no packet has that id. */
  getPacket(tenant: string, packetId: string): Promise<Packet | undefined>;
  /** The tenant's packets that `request` filters, newest first (by header.createdAt), at most its limit (0: 50). */
  listPackets(tenant: string, request: ListPacketsRequest): Promise<Packet[]>;
  /** Calls `listener` with each of the tenant's packets as it is stored from now on; returns its stop. */
  followPackets(tenant: string, listener: (packet: Packet) => void): () => void;
  /** Each service's readiness and the tenant's packets in flight, waiting for a person and falling back. */
  fleetStatus(tenant: string): Promise<FleetStatus>;
  /**
   * Throws GatewayError "not_found" for an unknown id, "conflict" when the packet is not awaiting
   * approval or the approval cannot be given (expired, the call changed, `callHash` names another call).
   */
  approvePacket(tenant: string, packetId: string, callHash?: string): Promise<Packet>;
  /** Throws like {@link approvePacket}. */
  denyPacket(tenant: string, packetId: string, reason: string): Promise<Packet>;
  /** Route only: which of the tenant's tools (its own and the shared ones) should this turn see. Executes nothing. */
  route(tenant: string, request: RouteRequest): Promise<RouteResponse>;
  /** The `request.topK` of the caller's own tools (not the catalog's) that best fit the turn, best first. Executes nothing. */
  rankTools(tenant: string, request: RankToolsRequest): Promise<RoutingCandidate[]>;
  /** The tools an MCP session has been shown beyond the core ones (McpSession), oldest first; [] for a new session. */
  sessionTools(tenant: string, session: string): Promise<string[]>;
  /**
   * Adds tools to an MCP session's (the latest last, at most `keep`, the oldest dropped) and
   * returns the session's tools after the change.
   */
  exposeInSession(tenant: string, session: string, tools: readonly string[], keep: number): Promise<string[]>;
  /**
   * The catalog as the tenant sees it: its own tools and the shared ones; each tool's
   * examples include those stored for it (learned from use, added by hand).
   */
  listTools(tenant: string): Promise<ToolDefinition[]>;
  /** Throws GatewayError "not_found" for an unknown packet or tool, "conflict" for a packet still running. */
  feedback(tenant: string, request: FeedbackRequest): Promise<FeedbackResponse>;
  /**
   * Adds examples to a tool: the caller's tenant's, or with `shared` every tenant's (an admin's
   * act: GatewayError "forbidden" for any other key). "not_found" for a tool the catalog does
   * not have or the tenant cannot see, in the same words.
   */
  addExamples(caller: Caller, request: AddExamplesRequest): Promise<AddExamplesResponse>;
  /**
   * Pins an MCP tool's current definition and lifts its quarantine for every tenant that sees it:
   * an admin's act (GatewayError "forbidden" for any other key). "not_found", in the same words,
   * for a tool the catalog does not have or the caller's tenant cannot see.
   */
  approveTool(caller: Caller, name: string): Promise<ToolDefinition>;
  /** A tool's stored examples as the caller's tenant sees them, with ids; "not_found" as for addExamples. */
  listExamples(caller: Caller, request: ListExamplesRequest): Promise<ListExamplesResponse>;
  /**
   * Removes one stored example (it is not learned again) and answers it: one of the tenant's
   * own, or a shared one (an admin's act: "forbidden" for any other key). "not_found" for a
   * tool as for addExamples, or an id the tenant is shown no example with.
   */
  deleteExample(caller: Caller, request: DeleteExampleRequest): Promise<ToolExample>;
  /**
   * Registers an MCP server for every executor to run (an admin's request; the caller checks).
   * Waits up to the wait timeout for the executors to list its tools into the catalog and
   * answers them ([] when none were listed in time). GatewayError "conflict" for a name
   * already registered or one of a server in switchyard.yaml.
   */
  registerServer(server: RegisteredServer): Promise<{ server: RegisteredServer; tools: ToolDefinition[] }>;
  /** The servers registered at run time, by name. */
  listServers(): Promise<RegisteredServer[]>;
  /** Unregisters a server: the executors stop it and retire its tools. GatewayError "not_found" for a name not registered. */
  removeServer(name: string): Promise<void>;
  /** True once the gateway can take requests (bus connected, streams there); drives /readyz. */
  isReady(): boolean;
  /** The configured dependencies (models, the embeddings endpoint) that any service of the fleet says are down, for /readyz's body. */
  downDependencies(): Promise<string[]>;
}

/**
 * `upstream`: a server the gateway forwards to (the proxy's model) did not answer;
 * `forbidden`: the caller's key may not do this (an admin's is needed).
 */
export type GatewayErrorCode = "not_found" | "conflict" | "unavailable" | "invalid" | "limited" | "upstream" | "forbidden";

/** An expected failure with a code that both front doors map to their own status (404/NOT_FOUND, …). */
export class GatewayError extends Error {
  override readonly name = "GatewayError";

  constructor(
    public readonly code: GatewayErrorCode,
    message: string,
    /** The request field at fault, for code "invalid". */
    public readonly field?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The packet when it belongs to `tenant`; another tenant's packet is as good as absent. */
export function ownedBy(packet: Packet | undefined, tenant: string): Packet | undefined {
  return packet?.header?.tenant === tenant ? packet : undefined;
}

/** A session's tools after showing it `names` (exposeInSession, in every GatewayDeps): shown again, a tool moves to the end; the latest `keep` stay. */
export function withShown(before: readonly string[], names: readonly string[], keep: number): string[] {
  return [...before.filter((name) => !names.includes(name)), ...names].slice(-keep);
}
