import type { CallInput } from "./direct-call.js";
import type { AddExamplesResponse, FeedbackResponse, Packet, RegisteredServer, RoutingCandidate, ToolDefinition, Turn } from "@switchyard/packet";

/** A validated request for the full packet flow, as both front doors (HTTP and gRPC) hand it over. */
export interface SubmitInput {
  /** The caller's tenant, from its API key; the packet is stamped with it. */
  tenant: string;
  message: string;
  /** Absent: the packet starts a new session (its id becomes the session id). */
  sessionId?: string;
  /** Earlier turns, oldest first. */
  history: Turn[];
  /** Allow-list of tool names; empty means the whole catalog. */
  tools: string[];
  /** Pools and domains the request may use; empty means all. */
  pools: string[];
  domains: string[];
  /** Wait for the packet to finish (up to the wait timeout) or return at once. */
  wait: boolean;
}

export interface RouteInput {
  message: string;
  history: Turn[];
  /** How many semantic candidates to return; 0 means the router's default (as in RouteRequest.top_k). */
  topK: number;
  tools: string[];
  pools: string[];
  domains: string[];
}

/** Tools a caller brings, to be ranked for a turn (the OpenAI-compatible proxy's). */
export interface RankToolsInput {
  message: string;
  history: Turn[];
  topK: number;
  tools: ToolDefinition[];
}

/** Feedback on a finished packet's tool. */
export interface FeedbackInput {
  packetId: string;
  correct: boolean;
  /** With correct=false: the tool that should have been chosen. */
  tool?: string;
}

/** Route-only's answer: the candidates, and warnings when the router fell back (RouteResponse.warnings). */
export interface RouteOutput {
  candidates: RoutingCandidate[];
  /** Empty unless the router fell back, e.g. to lexical search when its embedder failed. */
  warnings: string[];
}

/**
 * Everything the gateway needs from the rest of the fleet. The HTTP app and the
 * gRPC server only validate, call these and convert the answers; the
 * implementation over NATS lives in nats-deps.ts.
 *
 * Methods report expected failures by throwing a {@link GatewayError}; any
 * other error is answered as an internal error without its details.
 *
 * `tenant` is the caller's, from its API key: a packet of another tenant is
 * "not found", so its existence is not revealed. Tools are shared by all tenants.
 */
export interface GatewayDeps {
  /** finished=false: still running after the wait timeout (or wait=false). */
  submitPacket(input: SubmitInput): Promise<{ packet: Packet; finished: boolean }>;
  /**
   * A call the caller chose (direct-call.ts): reviewed and run as a packet that starts at the
   * review stage. GatewayError "not_found" for a tool the tenant cannot see, "invalid" for an
   * ambiguous bare name. finished=false as for submitPacket.
   */
  submitCall(input: CallInput): Promise<{ packet: Packet; finished: boolean }>;
  /** undefined when no packet has that id. */
  getPacket(tenant: string, packetId: string): Promise<Packet | undefined>;
  /**
   * Throws GatewayError "not_found" for an unknown id, "conflict" when the packet is not awaiting
   * approval or the approval cannot be given (expired, the call changed, `callHash` names another call).
   */
  approvePacket(tenant: string, packetId: string, callHash?: string): Promise<Packet>;
  /** Throws like {@link approvePacket}. */
  denyPacket(tenant: string, packetId: string, reason: string): Promise<Packet>;
  /** Route only: which of the tenant's tools (its own and the shared ones) should this turn see. Executes nothing. */
  route(tenant: string, input: RouteInput): Promise<RouteOutput>;
  /** The `input.topK` of the caller's own tools (not the catalog's) that best fit the turn, best first. Executes nothing. */
  rankTools(tenant: string, input: RankToolsInput): Promise<RoutingCandidate[]>;
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
  feedback(tenant: string, input: FeedbackInput): Promise<FeedbackResponse>;
  /** Throws GatewayError "not_found" for a tool the catalog does not have. */
  addExamples(tenant: string, tool: string, examples: string[]): Promise<AddExamplesResponse>;
  /** Pins an MCP tool of the tenant's (or a shared one)'s current definition and lifts its quarantine; GatewayError "not_found" for no such tool. */
  approveTool(tenant: string, name: string): Promise<ToolDefinition>;
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
