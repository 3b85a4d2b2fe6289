import { create } from "@bufbuild/protobuf";
import {
  addDataField,
  AddExamplesResponseSchema,
  decodePacketSummary,
  encodePacket,
  FeedbackResponseSchema,
  finish,
  ListExamplesRequestSchema,
  ListExamplesResponseSchema,
  newPacket,
  Packet_State,
  routingOf,
  RoutingCandidate_Source,
  RouteResponseSchema,
  RoutingCandidateSchema,
  requestApproval,
  SelectedToolSchema,
  StoredExample_Source,
  ToolDefinition_SideEffect,
  ToolDefinitionSchema,
  ToolExampleSchema,
  ToolExecutionResultSchema,
  ToolRoutingState_ExecutionStatus,
  TOOL_RESULT_FIELD,
  toolVisibleTo,
} from "@switchyard/packet";
import type {
  AddExamplesRequest,
  DeleteExampleRequest,
  FeedbackRequest,
  ListExamplesRequest,
  ListPacketsRequest,
  Packet,
  RankToolsRequest,
  RegisteredServer,
  RouteRequest,
  SubmitCallRequest,
  SubmitPacketRequest,
  ToolDefinition,
  ToolExample,
  Turn,
} from "@switchyard/packet";
import { approveCall, denyCall } from "../src/fleet/approvals.js";
import { callPacket, resolveTool } from "../src/fleet/direct-call.js";
import { GatewayError, ownedBy, withShown } from "../src/shared/deps.js";
import type { GatewayDeps } from "../src/shared/deps.js";
import type { Caller } from "../src/shared/auth.js";
import { fleetStatus } from "../src/fleet/fleet-status.js";
import { RECENT_PACKETS_PER_TENANT, RecentPackets } from "../src/fleet/recent-packets.js";
import type { FleetService } from "@switchyard/runtime";

/** What a door handed over, as the tests read it: the request's fields, the tenant beside them. */
interface HandedPacket {
  tenant: string;
  message: string;
  sessionId?: string;
  history: Turn[];
  tools: string[];
  pools: string[];
  domains: string[];
  wait: boolean;
}

/** A message that makes the in-memory fleet stop at AWAITING_APPROVAL, as a write tool would. */
export const NEEDS_APPROVAL = "write the report to disk";

export const CATALOG: ToolDefinition[] = [
  create(ToolDefinitionSchema, {
    name: "filesystem.read_file",
    description: "Read a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    sideEffect: ToolDefinition_SideEffect.READ,
    server: "filesystem",
    serverToolName: "read_file",
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  }),
  create(ToolDefinitionSchema, {
    name: "filesystem.write_file",
    description: "Write a file",
    sideEffect: ToolDefinition_SideEffect.WRITE,
    server: "filesystem",
    serverToolName: "write_file",
  }),
  create(ToolDefinitionSchema, { name: "core.clarify", description: "Ask the user", core: true }),
];

export const PRIVATE_TENANT = "tenant-private";

/** Only PRIVATE_TENANT sees it (the MCP server it comes from is configured for that tenant alone); CATALOG is what every other tenant sees. */
export const PRIVATE_TOOL = create(ToolDefinitionSchema, {
  name: "ledger.post_entry",
  description: "Post an entry to the private ledger",
  sideEffect: ToolDefinition_SideEffect.WRITE,
  server: "ledger",
  serverToolName: "post_entry",
  tenants: [PRIVATE_TENANT],
});

const ALL_TOOLS = [...CATALOG, PRIVATE_TOOL];

/**
 * In-memory deps for the HTTP- and gRPC-layer tests: packets live in a Map and
 * "finish" at once, so the tests exercise the gateway's validation, status
 * mapping and JSON, not the fleet. It records what the gateway handed over.
 */
export class InMemoryGatewayDeps implements GatewayDeps {
  /** @param tools the catalog (default: CATALOG and PRIVATE_TOOL) */
  constructor(readonly tools: readonly ToolDefinition[] = ALL_TOOLS) {}

  readonly packets = new Map<string, Packet>();
  readonly submitted: HandedPacket[] = [];
  /** Route requests as handed over: their fields. */
  readonly routed: Pick<RouteRequest, "message" | "history" | "topK" | "tools" | "pools" | "domains">[] = [];
  /** The tenant of each route() call, in order. */
  readonly routedTenants: string[] = [];
  ready = true;
  /** When set, route() and listTools() throw it (to test error mapping). */
  failure: Error | undefined;
  /** What route() answers as warnings, as a router that fell back would. */
  routeWarnings: string[] = [];

  async submitPacket(tenant: string, request: SubmitPacketRequest) {
    const { message, sessionId, history, tools, pools, domains } = request;
    const input: HandedPacket = { tenant, message, ...(sessionId ? { sessionId } : {}), history, tools, pools, domains, wait: request.wait ?? true };
    this.submitted.push(input);
    const packet = newPacket({
      message: input.message,
      ...(input.sessionId ? { sessionId: input.sessionId } : {}),
      history: input.history,
      scope: { tools: input.tools, pools: input.pools, domains: input.domains },
    });
    packet.header!.tenant = input.tenant;
    this.packets.set(packet.header!.packetId, packet);
    if (!input.wait) {
      packet.state = Packet_State.DETECTING_INTENT;
      return { packet: this.store(packet), finished: false };
    }
    if (input.message === NEEDS_APPROVAL) {
      const routing = routingOf(packet);
      routing.selectedTool = create(SelectedToolSchema, { toolName: "filesystem.write_file", params: { path: "report.md", content: "the report" } });
      routing.executionStatus = ToolRoutingState_ExecutionStatus.PENDING;
      requestApproval(packet, 60_000);
      finish(packet, Packet_State.AWAITING_APPROVAL, "filesystem.write_file writes; approval needed");
    } else {
      finish(packet, Packet_State.COMPLETED, "no tool needed: in-memory deps run no stages");
    }
    return { packet: this.store(packet), finished: true };
  }

  /** The calls handed over, each with the caller's tenant. */
  readonly calls: (SubmitCallRequest & { tenant: string })[] = [];

  /** A call as the fleet would end it: a write waits for approval, a read runs and echoes its arguments. */
  async submitCall(tenant: string, input: SubmitCallRequest) {
    this.calls.push({ ...input, tenant });
    const tool = resolveTool(input.tool, this.tools, tenant);
    const packet = callPacket(input, tool, 3);
    packet.header!.tenant = tenant;
    this.packets.set(packet.header!.packetId, packet);
    const routing = routingOf(packet);
    if (tool.sideEffect !== ToolDefinition_SideEffect.READ) {
      routing.executionStatus = ToolRoutingState_ExecutionStatus.PENDING;
      requestApproval(packet, 60_000);
      return { packet: this.store(finish(packet, Packet_State.AWAITING_APPROVAL, `awaiting approval: ${tool.name} writes`)), finished: true };
    }
    routing.executionStatus = ToolRoutingState_ExecutionStatus.EXECUTED;
    const output = `${tool.name} ${JSON.stringify(input.arguments ?? {})}`;
    addDataField(packet, { key: TOOL_RESULT_FIELD, value: { tool: tool.name, params: input.arguments ?? {}, success: true, output, error: null }, type: "tool_execution_result", source: `mcp:${tool.server}` });
    routing.executionResult = create(ToolExecutionResultSchema, { success: true });
    return { packet: this.store(finish(packet, Packet_State.COMPLETED, `done: ${tool.name} ran`)), finished: true };
  }

  /** The packets as the bucket's watch would index them, each change a stored entry (stored-packets.ts in @switchyard/bus). */
  readonly recent = new RecentPackets(Number.POSITIVE_INFINITY, RECENT_PACKETS_PER_TENANT, true);
  /** Event streams open now (followPackets not yet stopped). */
  following = 0;
  /** What $SRV.PING would find; tests set it. */
  fleet: FleetService[] = [];

  /** Stores a packet as a stage would: in the map, and through the index's watch. */
  store(packet: Packet): Packet {
    const bytes = encodePacket(packet);
    this.recent.observe({ key: packet.header!.packetId, bytes, summary: decodePacketSummary(bytes), storedAt: Date.now(), update: true });
    return packet;
  }

  async listPackets(tenant: string, request: ListPacketsRequest) {
    return this.recent.list(tenant, request) ?? [];
  }

  followPackets(tenant: string, listener: (packet: Packet) => void) {
    this.following += 1;
    const stop = this.recent.subscribe(tenant, listener);
    return () => {
      this.following -= 1;
      stop();
    };
  }

  async fleetStatus(tenant: string) {
    return fleetStatus(this.fleet, this.recent.packetsOf(tenant) ?? []);
  }

  async getPacket(tenant: string, packetId: string) {
    return ownedBy(this.packets.get(packetId), tenant);
  }

  async approvePacket(tenant: string, packetId: string, callHash?: string) {
    const packet = this.awaitingApproval(tenant, packetId);
    const outcome = approveCall(packet, callHash);
    if (!outcome.approved) throw new GatewayError("conflict", `packet ${packetId}: ${outcome.message}`);
    // What the executor would do next: run the call.
    routingOf(packet).executionStatus = ToolRoutingState_ExecutionStatus.EXECUTED;
    return this.store(finish(packet, Packet_State.COMPLETED, "done: filesystem.write_file ran"));
  }

  async denyPacket(tenant: string, packetId: string, reason: string) {
    const packet = this.awaitingApproval(tenant, packetId);
    denyCall(packet, reason);
    return this.store(packet);
  }

  async route(tenant: string, input: RouteRequest) {
    if (this.failure) throw this.failure;
    const { message, history, topK, tools, pools, domains } = input;
    this.routed.push({ message, history, topK, tools, pools, domains });
    this.routedTenants.push(tenant);
    const allowed = (tool: ToolDefinition) => toolVisibleTo(tool, tenant) && (input.tools.length === 0 || input.tools.includes(tool.name));
    const candidates = this.tools.filter(allowed)
      .slice(0, input.topK || this.tools.length)
      .map((tool, i) =>
        create(RoutingCandidateSchema, {
          tool,
          score: tool.core ? 0 : 0.9 - i / 10,
          source: tool.core ? RoutingCandidate_Source.CORE : RoutingCandidate_Source.SEMANTIC,
        }),
      );
    return create(RouteResponseSchema, { candidates, warnings: this.routeWarnings });
  }

  readonly sessions = new Map<string, string[]>();

  async sessionTools(tenant: string, session: string) {
    return this.sessions.get(`${tenant}\n${session}`) ?? [];
  }

  async exposeInSession(tenant: string, session: string, names: readonly string[], keep: number) {
    const after = withShown(await this.sessionTools(tenant, session), names, keep);
    this.sessions.set(`${tenant}\n${session}`, after);
    return after;
  }

  readonly ranked: RankToolsRequest[] = [];

  /** Ranks like a lexical router would, crudely: tools whose name or description shares more of the message's words first. */
  async rankTools(_tenant: string, input: RankToolsRequest) {
    this.ranked.push(input);
    const words = new Set(input.message.toLowerCase().match(/[a-z]+/g) ?? []);
    const overlap = (tool: ToolDefinition) => (`${tool.name} ${tool.description}`.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => words.has(w)).length;
    return input.tools
      .map((tool) => ({ tool, score: overlap(tool) }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, input.topK)
      .map((r) => create(RoutingCandidateSchema, { tool: r.tool, score: r.score / 10, source: RoutingCandidate_Source.SEMANTIC }));
  }

  async listTools(tenant: string) {
    if (this.failure) throw this.failure;
    return this.tools.filter((tool) => toolVisibleTo(tool, tenant));
  }

  /** Feedback as handed over: the packet, `correct` and, when given, `tool`. */
  readonly feedbacks: { packetId: string; correct?: boolean; tool?: string }[] = [];
  readonly added: { tool: string; examples: string[] }[] = [];

  /** Like the router: an unknown packet or tool is not found; the packet's own tool loses its prompt. */
  async feedback(tenant: string, request: FeedbackRequest) {
    const { packetId, correct } = request;
    const input = { packetId, ...(correct === undefined ? {} : { correct }), ...(request.tool ? { tool: request.tool } : {}) };
    this.feedbacks.push(input);
    const packet = ownedBy(this.packets.get(input.packetId), tenant);
    if (!packet) throw new GatewayError("not_found", `no packet with id ${input.packetId}`);
    if (input.tool !== undefined && !CATALOG.some((t) => t.name === input.tool)) {
      throw new GatewayError("not_found", `no tool named ${input.tool}`);
    }
    return create(FeedbackResponseSchema, {
      packetId: input.packetId,
      query: packet.content?.originalPrompt ?? "",
      removedFrom: input.correct ? "" : "filesystem.read_file",
      addedTo: input.correct ? "" : (input.tool ?? ""),
    });
  }

  async addExamples(caller: Caller, { tool, examples, shared }: AddExamplesRequest) {
    this.added.push({ tool, examples });
    if (!this.tools.some((t) => t.name === tool && toolVisibleTo(t, caller.tenant))) throw new GatewayError("not_found", `no tool named ${tool}`);
    if (shared && !caller.admin) throw new GatewayError("forbidden", "shared examples need an admin's API key");
    return create(AddExamplesResponseSchema, { tool, added: examples.length, examples });
  }

  /** Stored examples by tool, as the buckets would show them to every tenant: a shared one and tenant-a's. */
  readonly stored = new Map<string, ToolExample[]>([
    [
      "filesystem.read_file",
      [
        create(ToolExampleSchema, { id: "0123456789abcdef", text: "open a text file", source: StoredExample_Source.ADDED, shared: true }),
        create(ToolExampleSchema, { id: "fedcba9876543210", text: "show me my notes", source: StoredExample_Source.LEARNED }),
      ],
    ],
  ]);

  async listExamples(caller: Caller, { tool }: ListExamplesRequest) {
    if (!this.tools.some((t) => t.name === tool && toolVisibleTo(t, caller.tenant))) throw new GatewayError("not_found", `no tool named ${tool}`);
    return create(ListExamplesResponseSchema, { tool, examples: this.stored.get(tool) ?? [] });
  }

  async deleteExample(caller: Caller, { tool, id }: DeleteExampleRequest) {
    const { examples } = await this.listExamples(caller, create(ListExamplesRequestSchema, { tool }));
    const found = examples.find((e) => e.id === id);
    if (!found) throw new GatewayError("not_found", `tool ${tool} has no example ${id}`);
    if (found.shared && !caller.admin) throw new GatewayError("forbidden", "removing a shared example needs an admin's API key");
    this.stored.set(tool, examples.filter((e) => e !== found));
    return found;
  }

  /** Approves as the executor would: the tool leaves quarantine with a pin. */
  async approveTool(caller: Caller, name: string) {
    const tool = this.tools.find((t) => t.name === name && t.server !== "" && toolVisibleTo(t, caller.tenant));
    if (!tool) throw new GatewayError("not_found", `no tool named ${name}`);
    if (!caller.admin) throw new GatewayError("forbidden", "approving a quarantined tool needs an admin's API key");
    return create(ToolDefinitionSchema, { ...tool, pinHash: "f".repeat(64), quarantined: false });
  }

  /** Registered servers by name; a registration lists the catalog's tools of that server, as executors would. */
  readonly servers = new Map<string, RegisteredServer>();

  async registerServer(server: RegisteredServer) {
    if (this.servers.has(server.name)) throw new GatewayError("conflict", `MCP server ${server.name} is registered already`, "name");
    this.servers.set(server.name, server);
    return { server, tools: this.tools.filter((t) => t.server === server.name) };
  }

  async listServers() {
    return [...this.servers.values()];
  }

  async removeServer(name: string) {
    if (!this.servers.delete(name)) throw new GatewayError("not_found", `no MCP server ${name} is registered`);
  }

  isReady() {
    return this.ready;
  }

  /** What /readyz names as down; tests set it. */
  down: string[] = [];

  async downDependencies() {
    return this.down;
  }

  private awaitingApproval(tenant: string, packetId: string): Packet {
    const packet = ownedBy(this.packets.get(packetId), tenant);
    if (!packet) throw new GatewayError("not_found", `no packet with id ${packetId}`);
    if (packet.state !== Packet_State.AWAITING_APPROVAL) {
      throw new GatewayError("conflict", `packet ${packetId} is ${Packet_State[packet.state]}, not AWAITING_APPROVAL`);
    }
    return packet;
  }
}
