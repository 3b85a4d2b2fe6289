import type { NatsConnection } from "@nats-io/nats-core";
import { AckPolicy, DeliverPolicy, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { ConsumerConfig, JetStreamManager, StreamConfig } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import type { Stage } from "@switchyard/packet";
import { retryWhileTransient } from "./nats-failure.js";
import { PACKETS_WILDCARD, packetSubject } from "./subjects.js";

export const PACKETS_STREAM = "SWITCHYARD_PACKETS";
/** Finished packets, for `GET /v1/packets/{id}` and the audit trail. */
export const PACKETS_BUCKET = "switchyard-packets";
/** The tool catalog: one entry per tool, written by the executors, watched by the router and gateway. */
export const CATALOG_BUCKET = "switchyard-catalog";
/** Example requests per tool, learned from use and added by hand; keyed like the catalog, merged into it by the router. */
export const EXAMPLES_BUCKET = "switchyard-examples";
/** Lessons of finished packets waiting for their session to confirm them (the router's learning from use), keyed by session. */
export const PENDING_LESSONS_BUCKET = "switchyard-pending-lessons";
/** How long a lesson waits for its session's next request before it is dropped unlearned. */
export const PENDING_LESSONS_TTL_MS = 24 * 60 * 60 * 1000;
/** MCP servers registered at run time (RegisteredServer by name): the gateway writes them, every executor runs them. */
export const SERVERS_BUCKET = "switchyard-servers";
/** The MCP door's sessions (McpSession by hashed tenant and session id); an idle session is forgotten after an hour. */
export const MCP_SESSIONS_BUCKET = "switchyard-mcp-sessions";
export const MCP_SESSIONS_TTL_MS = 60 * 60 * 1000;

export interface TopologyOptions {
  /** JetStream replicas of the stream and buckets (3 in a production cluster). @default 1 */
  replicas?: number;
  /** How long a stage may hold a packet before JetStream redelivers it. @default 30000 */
  ackWaitMs?: number;
  /** How often a packet is delivered before it is given up (then dead-lettered). @default 5 */
  maxDeliver?: number;
  /**
   * How long JetStream waits for the ack of the 2nd, 3rd, … delivery (the first waits
   * `ackWaitMs`); the last entry repeats. Absent or empty: doubling from `ackWaitMs`.
   */
  backoffMs?: readonly number[];
  /** Packets one stage's replicas may hold unacknowledged at once. @default 1000 */
  maxAckPending?: number;
}

export const NS_PER_MS = 1_000_000;

/**
 * Creates or updates streams, consumers and buckets, tried again while JetStream cannot
 * answer yet: services starting together on a new cluster ask before it has elected its
 * leaders, and the API times out meanwhile.
 */
export function setUpTopology<T>(work: () => Promise<T>): Promise<T> {
  return retryWhileTransient(work, 60_000);
}

// JetStream answers "already in use" when a stream or consumer exists with
// another configuration; we then update it so a new release's settings apply.
export async function addOrUpdateStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
  try {
    await jsm.streams.add(config);
  } catch (error) {
    if (!/already in use/i.test(String(error))) throw error;
    await jsm.streams.update(config.name, config);
  }
}

/** Creates (or brings up to date) the packet stream; every service calls this at start. */
export async function ensurePacketStream(nc: NatsConnection, options: TopologyOptions = {}): Promise<void> {
  await setUpTopology(async () => addOrUpdateStream(await jetstreamManager(nc), {
    name: PACKETS_STREAM,
    subjects: [PACKETS_WILDCARD],
    // Work-queue retention: a packet message is gone once its stage acks it;
    // what stays is only what is in flight.
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: options.replicas ?? 1,
    duplicate_window: 120_000 * NS_PER_MS,
  }));
}

/**
 * The consumer's `backoff`: the ack wait of each delivery, in ms. JetStream takes the
 * first entry as the ack wait itself, and refuses more entries than `max_deliver`, so the
 * list is the ack wait followed by the redelivery waits, cut to `max_deliver - 1` entries
 * (the last delivery waits as long as the one before it).
 */
export function consumerBackoffMs(options: TopologyOptions = {}): number[] {
  const ackWait = options.ackWaitMs ?? 30_000;
  const maxDeliver = options.maxDeliver ?? 5;
  const later = options.backoffMs?.length ? options.backoffMs : Array.from({ length: Math.max(0, maxDeliver - 2) }, (_, i) => ackWait * 2 ** (i + 1));
  return [ackWait, ...later].slice(0, Math.max(0, maxDeliver - 1));
}

/**
 * How often a stage tells JetStream it is still working on a packet (`working()`), so a
 * slow step is not redelivered: a third of the shortest ack wait.
 */
export function heartbeatIntervalMs(options: TopologyOptions = {}): number {
  return Math.max(100, Math.floor(Math.min(options.ackWaitMs ?? 30_000, ...consumerBackoffMs(options)) / 3));
}

/** The durable pull consumer of one stage, shared by all of its replicas. */
export async function ensureStageConsumer(nc: NatsConnection, stage: Stage, options: TopologyOptions = {}): Promise<void> {
  const jsm = await setUpTopology(() => jetstreamManager(nc));
  const backoff = consumerBackoffMs(options);
  const config: Partial<ConsumerConfig> & { durable_name: string } = {
    durable_name: stage,
    filter_subject: packetSubject(stage),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: (options.ackWaitMs ?? 30_000) * NS_PER_MS,
    max_deliver: options.maxDeliver ?? 5,
    max_ack_pending: options.maxAckPending ?? 1000,
    // Without a backoff a packet whose stage keeps crashing is redelivered at a flat pace.
    ...(backoff.length > 0 ? { backoff: backoff.map((ms) => ms * NS_PER_MS) } : {}),
  };
  await setUpTopology(() => addOrUpdateConsumer(jsm, PACKETS_STREAM, config));
}

/** As addOrUpdateStream, for a durable consumer. */
export async function addOrUpdateConsumer(jsm: JetStreamManager, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }) {
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    if (!/already in use|exists/i.test(String(error))) throw error;
    await jsm.consumers.update(stream, config.durable_name, config);
  }
}

/**
 * Opens a KV bucket, creating it on first use; `ttlMs` makes its entries expire. The
 * client leaves an existing bucket's settings as they are, so a `ttlMs` that changed
 * since is applied to its stream here (as addOrUpdateStream does for streams); without
 * `ttlMs` the bucket is opened as it is.
 */
export async function openBucket(nc: NatsConnection, name: string, options: TopologyOptions = {}, ttlMs?: number): Promise<KV> {
  return setUpTopology(async () => {
    const kv = await new Kvm(nc).create(name, { history: 1, replicas: options.replicas ?? 1, ...(ttlMs === undefined ? {} : { ttl: ttlMs }) });
    if (ttlMs === undefined) return kv;
    const { streamInfo } = await kv.status();
    const maxAge = ttlMs * NS_PER_MS;
    if (streamInfo.config.max_age !== maxAge) await (await jetstreamManager(nc)).streams.update(streamInfo.config.name, { ...streamInfo.config, max_age: maxAge });
    return kv;
  });
}
