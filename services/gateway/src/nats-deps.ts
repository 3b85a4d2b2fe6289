import { createHash } from "node:crypto";
import { headers } from "@nats-io/nats-core";
import type { MsgHdrs, NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { context, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  Attr,
  catalogKey,
  currentTraceparent,
  doneSubject,
  EXAMPLES_SUBJECT,
  FEEDBACK_SUBJECT,
  followCatalog,
  Headers,
  loadPacket,
  packetTraceContext,
  publishPacket,
  RANK_TOOLS_SUBJECT,
  recordHop,
  requestReply,
  retryWhileTransient,
  ROUTE_SUBJECT,
  ServiceError,
  setDeadline,
  startHopClock,
} from "@switchyard/bus";
import type { HopClock } from "@switchyard/bus";
import { exampleTexts, followExamples, withExamples } from "@switchyard/learning";
import { callPacket, resolveTool } from "./direct-call.js";
import { withShown } from "./mcp-session.js";
import {
  AddExamplesRequestSchema,
  AddExamplesResponseSchema,
  decodePacket,
  FeedbackRequestSchema,
  FeedbackResponseSchema,
  encodePacket,
  McpSessionSchema,
  newPacket,
  RankToolsRequestSchema,
  RankToolsResponseSchema,
  Packet_State,
  RouteRequestSchema,
  RouteResponseSchema,
  toolVisibleTo,
} from "@switchyard/packet";
import type { Packet, Stage, ToolDefinition } from "@switchyard/packet";
import { finishedPacket } from "@switchyard/runtime";
import { processMetrics } from "@switchyard/telemetry";
import { approveCall, denyCall } from "./approvals.js";
import { GatewayError, ownedBy } from "./deps.js";
import { serverRegistry } from "./server-registry.js";
import { requestToolApproval } from "./tool-approval.js";
import type { GatewayDeps, GatewayErrorCode } from "./deps.js";
import type { LivePackets } from "./live-packets.js";
import { whileNatsAvailable } from "./nats-availability.js";
import type { NatsAvailability } from "./nats-availability.js";

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
  /** Time a packet has to finish, from submission or approval; 0: none. */
  packetDeadlineMs: number;
}

const SERVICE = "gateway";

/** The router's error codes (learning.ts) as the gateway's. */
const ROUTER_ERRORS = new Map<number, GatewayErrorCode>([
  [400, "invalid"],
  [404, "not_found"],
  [409, "conflict"],
]);

/** The gateway's view of the fleet, over NATS: packets into JetStream, route-only over request/reply. */
export async function createNatsDeps(options: NatsDepsOptions): Promise<GatewayDeps & { close(): void }> {
  const { nc, packets, tracer, availability, live } = options;
  const js = jetstream(nc, { timeout: options.publishTimeoutMs });
  const tools = new Map<string, ToolDefinition>();
  const follower = await followCatalog(options.catalog, {
    upsert: (tool) => tools.set(catalogKey(tool.name), tool),
    remove: (key) => tools.delete(key),
  });
  const registry = serverRegistry({ bucket: options.servers, catalog: () => tools.values(), waitMs: options.waitTimeoutMs });
  // Stored examples by catalog key, shown with the tools (the router indexes them the same way).
  const examples = new Map<string, string[]>();
  const exampleFollower = await followExamples(options.examples, {
    upsert: (stored, key) => examples.set(key, exampleTexts(stored)),
    remove: (key) => examples.delete(key),
  });

  /** A request to the embedding-routers; their refusals keep their meaning (404, 409, 400), anything else is 503. */
  async function askRouter(subject: string, data: Uint8Array, requestHeaders?: MsgHdrs): Promise<Uint8Array> {
    try {
      return await requestReply(nc, subject, data, options.routeTimeoutMs, requestHeaders);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const code = ROUTER_ERRORS.get(error.code) ?? "unavailable";
      throw new GatewayError(code, code === "unavailable" ? `embedding-router: ${error.message}` : error.message);
    }
  }

  /**
   * Hands the packet to a stage and, when asked, waits for it to finish. The
   * subscription to its done subject opens before the publish, so a fast
   * packet cannot finish unseen; the packet is stored first so that
   * `GET /v1/packets/{id}` finds it while it is in flight. It returns only
   * once JetStream acknowledged the publish: an answer means the packet is kept.
   * While a server is lost and its streams elect new leaders, JetStream answers nobody
   * for seconds: the store, then the publish, are tried again until the wait budget is spent
   * (the message id makes a publish stored twice count once).
   * When the publish fails the stored packet goes back to `previous` (deleted
   * when there was none), best effort as NATS may be away, so that it does not
   * look in flight for ever.
   */
  async function dispatch(packet: Packet, stage: Stage, wait: boolean, clock: HopClock, previous?: Uint8Array) {
    const packetId = packet.header!.packetId;
    const done = wait ? nc.subscribe(doneSubject(packetId), { max: 1, timeout: options.waitTimeoutMs }) : undefined;
    recordHop(packet, SERVICE, clock);
    const deadline = Date.now() + options.waitTimeoutMs;
    try {
      // Stored once, then published: a publish retried after its ack was lost may already
      // have been taken on (or finished) by the stages, and storing again would overwrite that.
      // A lost connection is waited for as long as any request waits for one (awaitConnection), not the whole budget.
      const connected = () => availability.awaitConnection();
      await retryWhileTransient(() => packets.put(packetId, encodePacket(packet)), options.waitTimeoutMs, connected);
      await retryWhileTransient(() => publishPacket(js, tracer, stage, packet), Math.max(0, deadline - Date.now()), connected);
    } catch (error) {
      done?.unsubscribe();
      (previous ? packets.put(packetId, previous) : packets.delete(packetId)).catch(() => undefined);
      throw error;
    }
    if (!done) return { packet, finished: false };
    try {
      for await (const msg of done) return { packet: decodePacket(msg.data), finished: true };
    } catch {
      // The subscription's timeout: the packet is still on its way.
    }
    return { packet, finished: false };
  }

  /** Starts a new packet of `tenant`'s at `stage`, in the caller's trace, counted among the tenant's packets in flight. */
  async function launch(packet: Packet, tenant: string, stage: Stage, wait: boolean, clock: HopClock) {
    const header = packet.header!;
    header.tenant = tenant;
    // The request's trace becomes the packet's: an approval later continues it.
    header.traceparent = currentTraceparent();
    setDeadline(packet, options.packetDeadlineMs);
    live.admit(tenant, header.packetId);
    try {
      return await dispatch(packet, stage, wait, clock);
    } catch (error) {
      live.release(tenant, header.packetId);
      throw error;
    }
  }

  /** A session's tools as stored, [] for a new one. */
  async function storedSession(key: string): Promise<string[]> {
    const entry = await options.mcpSessions.get(key);
    return entry?.value.length ? fromBinary(McpSessionSchema, entry.value).tools : [];
  }

  /** Stores a packet the gateway itself ended (denied, approval expired) and counts it with the others. */
  async function endAtGateway(packet: Packet): Promise<void> {
    await packets.put(packet.header!.packetId, encodePacket(packet));
    processMetrics().packetFinished(finishedPacket(packet));
  }

  /** Another tenant's tool is as unknown to this one as a tool that does not exist (the router's words for that). */
  function hideOthersTool(tenant: string, name: string): void {
    const tool = tools.get(catalogKey(name));
    if (tool && !toolVisibleTo(tool, tenant)) throw new GatewayError("not_found", `no tool named ${name}`);
  }

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
    submitPacket: (input) => whileNatsAvailable(availability, async () => {
      const clock = startHopClock();
      const packet = newPacket({
        message: input.message,
        sessionId: input.sessionId,
        history: input.history,
        allowedTools: input.tools,
        pools: input.pools,
        domains: input.domains,
        maxReinjections: options.maxReinjections,
      });
      packet.state = Packet_State.DETECTING_INTENT;
      return launch(packet, input.tenant, "intent", input.wait, clock);
    }),

    submitCall: (input) => whileNatsAvailable(availability, async () => {
      const clock = startHopClock();
      const packet = callPacket(input, resolveTool(input.tool, tools.values(), input.tenant), options.maxReinjections);
      return launch(packet, input.tenant, "review", input.wait, clock);
    }),

    getPacket: (tenant, packetId) => whileNatsAvailable(availability, () => ownPacket(tenant, packetId)),

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

    route: (tenant, input) => whileNatsAvailable(availability, async () => {
      const request = create(RouteRequestSchema, {
        message: input.message,
        history: input.history,
        topK: input.topK,
        tools: input.tools,
        pools: input.pools,
        domains: input.domains,
      });
      // The tenant travels beside the request, not in it: RouteRequest is also the public body, which must not name one.
      const tenantHeader = headers();
      tenantHeader.set(Headers.Tenant, tenant);
      const reply = await askRouter(ROUTE_SUBJECT, toBinary(RouteRequestSchema, request), tenantHeader);
      const { candidates, warnings } = fromBinary(RouteResponseSchema, reply);
      return { candidates, warnings };
    }),

    rankTools: (_tenant, input) => whileNatsAvailable(availability, async () => {
      const request = create(RankToolsRequestSchema, input);
      const reply = await askRouter(RANK_TOOLS_SUBJECT, toBinary(RankToolsRequestSchema, request));
      return fromBinary(RankToolsResponseSchema, reply).candidates;
    }),

    sessionTools: (tenant, session) => whileNatsAvailable(availability, () => storedSession(sessionKey(tenant, session))),

    exposeInSession: (tenant, session, names, keep) => whileNatsAvailable(availability, async () => {
      const key = sessionKey(tenant, session);
      const after = withShown(await storedSession(key), names, keep);
      // Two replicas updating one session at once: the last write wins, both lists are close.
      await options.mcpSessions.put(key, toBinary(McpSessionSchema, create(McpSessionSchema, { tools: after })));
      return after;
    }),

    async listTools(tenant) {
      return [...tools.entries()]
        .filter(([, tool]) => toolVisibleTo(tool, tenant))
        .map(([key, tool]) => withExamples(tool, examples.get(key) ?? []))
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    feedback: (tenant, input) => whileNatsAvailable(availability, async () => {
      // The router learns from any packet it is told of: only the packet's own tenant may tell it.
      if (!(await ownPacket(tenant, input.packetId))) throw new GatewayError("not_found", `no packet with id ${input.packetId}`);
      if (input.tool) hideOthersTool(tenant, input.tool);
      const request = create(FeedbackRequestSchema, input);
      const reply = await askRouter(FEEDBACK_SUBJECT, toBinary(FeedbackRequestSchema, request));
      return fromBinary(FeedbackResponseSchema, reply);
    }),

    addExamples: (tenant, tool, texts) => whileNatsAvailable(availability, async () => {
      hideOthersTool(tenant, tool);
      const request = create(AddExamplesRequestSchema, { tool, examples: texts });
      const reply = await askRouter(EXAMPLES_SUBJECT, toBinary(AddExamplesRequestSchema, request));
      return fromBinary(AddExamplesResponseSchema, reply);
    }),

    registerServer: (server) => whileNatsAvailable(availability, () => registry.registerServer(server)),
    listServers: () => whileNatsAvailable(availability, () => registry.listServers()),
    removeServer: (name) => whileNatsAvailable(availability, () => registry.removeServer(name)),

    approveTool: (tenant, name) => whileNatsAvailable(availability, () => {
      // Another tenant's tool is as unknown to this one as a tool that does not exist (the executor's words for that).
      const tool = tools.get(catalogKey(name));
      if (tool && !toolVisibleTo(tool, tenant)) throw new GatewayError("not_found", `no tool ${name} on MCP server ${tool.server}`);
      return requestToolApproval(nc, name, options.routeTimeoutMs);
    }),

    isReady: () => availability.connected(),

    close: () => {
      follower.stop();
      exampleFollower.stop();
    },
  };
}

/** A session's key: the tenant's and the client's ids, hashed (any characters; one tenant's session is never another's). */
function sessionKey(tenant: string, session: string): string {
  return createHash("sha256").update(`${tenant}\n${session}`).digest("hex");
}
