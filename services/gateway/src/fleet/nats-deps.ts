import { create } from "@bufbuild/protobuf";
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { context, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { Attr, loadPacket, packetTraceContext, setDeadline, startHopClock } from "@switchyard/bus";
import { removeExample, SHARED, updateToolExamples } from "@switchyard/learning";
import { encodePacket, ListExamplesResponseSchema, newPacket, Packet_State } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { downInFleet, fleetServices } from "@switchyard/runtime";
import { approveCall, denyCall } from "./approvals.js";
import { followCatalogView } from "./catalog-view.js";
import { fleetStatus } from "./fleet-status.js";
import { GatewayError, ownedBy } from "../shared/deps.js";
import type { GatewayDeps } from "../shared/deps.js";
import { callPacket, resolveTool } from "./direct-call.js";
import type { LivePackets } from "./live-packets.js";
import { mcpSessionStore } from "./mcp-session-store.js";
import { whileNatsAvailable } from "./nats-availability.js";
import type { NatsAvailability } from "./nats-availability.js";
import { packetDispatcher } from "./packet-dispatch.js";
import { selectPackets, storedPacketsOf } from "./recent-packets.js";
import type { RecentPackets } from "./recent-packets.js";
import { routerRequests } from "./router-requests.js";
import { serverRegistry } from "./server-registry.js";
import { requestToolApproval } from "./tool-approval.js";

export interface NatsDepsOptions {
  nc: NatsConnection;
  packets: KV;
  catalog: KV;
  /** The examples bucket (EXAMPLES_BUCKET): each tool's stored examples, shown with it. */
  examples: KV;
  /** The MCP door's sessions (MCP_SESSIONS_BUCKET). */
  mcpSessions: KV;
  /** MCP servers registered at run time (SERVERS_BUCKET). */
  servers: KV;
  tracer: Tracer;
  /**
   * How long a waiting request waits for its packet before answering 202; also how long
   * a packet that JetStream cannot take yet (a stream leader being elected) is tried again.
   */
  waitTimeoutMs: number;
  /** How long a route-only request waits for an embedding-router. */
  routeTimeoutMs: number;
  maxReinjections: number;
  /** How long one try to store and publish a packet waits for JetStream. */
  publishTimeoutMs: number;
  /** Whether NATS is connected; a request that finds it lost waits a grace period for it, then is answered 503. */
  availability: NatsAvailability;
  /** Each tenant's packets in flight, for the concurrency limit. */
  live: LivePackets;
  /** Each tenant's recent packets and their changes, for the console. */
  recent: RecentPackets;
  /** Time a packet has to finish, from submission or approval; 0: none. */
  packetDeadlineMs: number;
}

/**
 * The gateway's view of the fleet, over NATS: packets into JetStream (packet-dispatch.ts),
 * requests to the embedding-routers (router-requests.ts) and the executors
 * (tool-approval.ts), the catalog as the buckets hold it (catalog-view.ts), MCP sessions
 * and registered servers in KV. Every call waits a grace period for a lost NATS connection.
 */
export async function createNatsDeps(options: NatsDepsOptions): Promise<GatewayDeps & { close(): void }> {
  const { nc, packets, tracer, availability } = options;
  const catalog = await followCatalogView(options.catalog, options.examples);
  const registry = serverRegistry({ bucket: options.servers, catalog: () => catalog.all(), waitMs: options.waitTimeoutMs });
  const { dispatch, launch, endAtGateway } = packetDispatcher(options);
  const router = routerRequests(nc, options.routeTimeoutMs);
  const sessions = mcpSessionStore(options.mcpSessions);

  async function ownPacket(tenant: string, packetId: string): Promise<Packet | undefined> {
    return ownedBy(await loadPacket(packets, packetId), tenant);
  }

  async function awaitingApproval(tenant: string, packetId: string): Promise<Packet> {
    const packet = await ownPacket(tenant, packetId);
    if (!packet) throw new GatewayError("not_found", `no packet with id ${packetId}`);
    if (packet.state !== Packet_State.AWAITING_APPROVAL) {
      throw new GatewayError("conflict", `packet ${packetId} is ${Packet_State[packet.state]}, not AWAITING_APPROVAL`);
    }
    return packet;
  }

  return {
    submitPacket: (tenant, request) => whileNatsAvailable(availability, async () => {
      const clock = startHopClock();
      const packet = newPacket({
        message: request.message,
        sessionId: request.sessionId,
        history: request.history,
        scope: { tools: request.tools, pools: request.pools, domains: request.domains },
        maxReinjections: options.maxReinjections,
        preview: request.dryRun,
      });
      packet.state = Packet_State.DETECTING_INTENT;
      return launch(packet, tenant, "intent", request.wait ?? true, clock);
    }),

    submitCall: (tenant, request) => whileNatsAvailable(availability, async () => {
      const clock = startHopClock();
      const packet = callPacket(request, resolveTool(request.tool, catalog.all(), tenant), options.maxReinjections);
      return launch(packet, tenant, "review", request.wait ?? true, clock);
    }),

    getPacket: (tenant, packetId) => whileNatsAvailable(availability, () => ownPacket(tenant, packetId)),

    // The index answers what it can; older pages, and those asked before it has read the bucket, are read from it.
    listPackets: async (tenant, request) =>
      options.recent.list(tenant, request) ?? whileNatsAvailable(availability, async () => selectPackets(await storedPacketsOf(packets, tenant), request)),

    followPackets: (tenant, listener) => options.recent.subscribe(tenant, listener),

    fleetStatus: (tenant) => whileNatsAvailable(availability, async () => {
      const [services, own] = await Promise.all([fleetServices(nc).catch(() => []), options.recent.packetsOf(tenant) ?? storedPacketsOf(packets, tenant)]);
      return fleetStatus(services, own);
    }),

    approvePacket: (tenant, packetId, callHash) => whileNatsAvailable(availability, async () => {
      const clock = startHopClock();
      const packet = await awaitingApproval(tenant, packetId);
      // Should the resumed packet not reach JetStream, it waits for approval again.
      const awaiting = encodePacket(packet);
      const outcome = approveCall(packet, callHash);
      if (!outcome.approved) {
        if (outcome.ended) await endAtGateway(packet);
        throw new GatewayError("conflict", `packet ${packetId}: ${outcome.message}`);
      }
      // The packet resumes in its own trace; the approving request is linked to it.
      const approving = trace.getSpanContext(context.active());
      return tracer.startActiveSpan(
        "approve packet",
        { attributes: { [Attr.PacketId]: packetId }, links: approving ? [{ context: approving }] : [] },
        packetTraceContext(packet.header!.traceparent),
        async (span) => {
          try {
            // The time spent waiting for the user does not count against the packet.
            setDeadline(packet, options.packetDeadlineMs);
            return (await dispatch(packet, "execute", true, clock, awaiting)).packet;
          } finally {
            span.end();
          }
        },
      );
    }),

    denyPacket: (tenant, packetId, reason) => whileNatsAvailable(availability, async () => {
      const packet = await awaitingApproval(tenant, packetId);
      denyCall(packet, reason);
      await endAtGateway(packet);
      return packet;
    }),

    route: (tenant, request) => whileNatsAvailable(availability, () => router.route(tenant, request)),

    rankTools: (_tenant, request) => whileNatsAvailable(availability, async () => (await router.rankTools(request)).candidates),

    sessionTools: (tenant, session) => whileNatsAvailable(availability, () => sessions.tools(tenant, session)),

    exposeInSession: (tenant, session, names, keep) => whileNatsAvailable(availability, () => sessions.expose(tenant, session, names, keep)),

    listTools: async (tenant) => catalog.visibleTo(tenant),

    feedback: (tenant, request) => whileNatsAvailable(availability, async () => {
      // The router learns from any packet it is told of: only the packet's own tenant may tell it.
      if (!(await ownPacket(tenant, request.packetId))) throw new GatewayError("not_found", `no packet with id ${request.packetId}`);
      if (request.tool) catalog.requireVisible(tenant, request.tool);
      return router.feedback(request);
    }),

    addExamples: (caller, request) => whileNatsAvailable(availability, () => {
      catalog.requireVisible(caller.tenant, request.tool);
      if (request.shared && !caller.admin) {
        throw new GatewayError("forbidden", "shared examples rank every tenant's requests: adding them needs an admin's API key (ADMIN_API_KEYS)");
      }
      return router.addExamples(caller.tenant, request);
    }),

    registerServer: (server) => whileNatsAvailable(availability, () => registry.registerServer(server)),
    listServers: () => whileNatsAvailable(availability, () => registry.listServers()),
    removeServer: (name) => whileNatsAvailable(availability, () => registry.removeServer(name)),

    approveTool: (caller, name) => whileNatsAvailable(availability, () => {
      // Answered here, before any executor is asked: an unknown tool and another tenant's are told apart by nothing.
      catalog.requireVisible(caller.tenant, name);
      // Approving lifts the quarantine for every tenant that sees the tool.
      if (!caller.admin) throw new GatewayError("forbidden", "approving a quarantined tool needs an admin's API key (ADMIN_API_KEYS)");
      return requestToolApproval(nc, name, options.routeTimeoutMs);
    }),

    listExamples: async (caller, { tool }) => {
      catalog.requireVisible(caller.tenant, tool);
      return create(ListExamplesResponseSchema, { tool, examples: catalog.storedExamples(tool, caller.tenant) });
    },

    deleteExample: (caller, { tool, id }) => whileNatsAvailable(availability, async () => {
      catalog.requireVisible(caller.tenant, tool);
      const shown = catalog.storedExamples(tool, caller.tenant).find((example) => example.id === id);
      if (!shown) throw new GatewayError("not_found", `tool ${tool} has no example ${id}`);
      if (shown.shared && !caller.admin) {
        throw new GatewayError("forbidden", "shared examples rank every tenant's requests: removing one needs an admin's API key (ADMIN_API_KEYS)");
      }
      let removed = false;
      await updateToolExamples(options.examples, tool, shown.shared ? SHARED : caller.tenant, (current) => {
        const change = removeExample(current, id);
        removed = change !== undefined;
        return change?.next;
      });
      // Another request removed it between the look and the write.
      if (!removed) throw new GatewayError("not_found", `tool ${tool} has no example ${id}`);
      return shown;
    }),

    isReady: () => availability.connected(),
    // What every service's NATS micro metadata says; a fleet that does not answer in time names nothing rather than failing the probe.
    downDependencies: () => downInFleet(nc).catch(() => []),

    close: () => {
      catalog.stop();
    },
  };
}
