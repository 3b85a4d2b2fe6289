/**
 * The reconciler owns one question: is every packet in flight still moving? A stored packet
 * whose state waits for a stage, unchanged for longer than the horizon, should have a message
 * in the packet stream that its stage's consumer will deliver. When none is there (JetStream
 * lost it: a purge, a deleted message, a consumer that skipped it after a crash), the packet
 * is re-published to that stage from the newest copy there is, or ended FAILED with the
 * reason once past its deadline. Every replica of its host may run one: each action is a
 * compare-and-set on the stored packet's revision, so one replica acts and the others find
 * the packet changed.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { KvWatchInclude } from "@nats-io/kv";
import { SpanKind } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { addReflection, decodePacket, decodePacketSummary, encodePacket, finish, Packet_State } from "@switchyard/packet";
import type { Packet, Stage } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import { Attr } from "./attributes.js";
import { remainingMs } from "./deadline.js";
import { isWriteConflict } from "./nats-failure.js";
import { publishPacket, readStoredPacket, storeFinishedPacket } from "./packet-bus.js";
import { takeStreamCensus } from "./stream-census.js";
import type { PacketMessage, StreamCensus } from "./stream-census.js";
import { PACKETS_STREAM, ensureStageConsumer } from "./topology.js";
import type { TopologyOptions } from "./topology.js";
import { packetTraceContext } from "./trace-context.js";

/** The stage a stored packet in flight waits for, by its state; undefined for a packet at rest. */
const STAGE_WAITED_FOR = new Map<Packet_State, Stage>([
  [Packet_State.DETECTING_INTENT, "intent"],
  [Packet_State.REINJECTED, "intent"],
  [Packet_State.ROUTING, "route"],
  [Packet_State.SELECTING, "select"],
  [Packet_State.REVIEWING, "review"],
  [Packet_State.EXECUTING, "execute"],
]);

/** What the reconciler did to a packet: published it again, or ended it. */
export type ReconcileAction = "resumed" | "failed";

export interface ReconcilerOptions {
  nc: NatsConnection;
  packets: KV;
  tracer: Tracer;
  logger: Logger;
  /** How long a stored packet in flight may stay unchanged before the stream is asked whether it still moves. */
  horizonMs: number;
  /** How often it looks. */
  intervalMs: number;
  /** Resumes of one packet before it is ended FAILED, deadline or not. */
  maxResumes: number;
  /** The stage consumers' settings, to make again a consumer that was deleted. */
  topology: TopologyOptions;
  /** Stale packets looked at in one pass, oldest first; the rest wait for the next. @default 100 */
  pageSize?: number;
  /** Told of each action, for /metrics. */
  onAction?: (action: ReconcileAction, stage: Stage, packet: Packet) => void;
}

export interface Reconciler {
  /** Stops looking; waits for a pass under way. */
  stop(): Promise<void>;
}

/** Follows the packets bucket and reconciles its packets in flight every `intervalMs` until stopped. */
export async function startReconciler(options: ReconcilerOptions): Promise<Reconciler> {
  const { nc, packets, logger } = options;
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const pageSize = options.pageSize ?? 100;
  /** Packets stored in flight, by id: when their entry last changed (the server's clock). */
  const inFlight = new Map<string, number>();

  const watch = await packets.watch({ include: KvWatchInclude.LastValue });
  void (async () => {
    for await (const entry of watch) {
      if (entry.operation !== "PUT" || entry.value.length === 0 || !stageWaitedFor(entry.value)) inFlight.delete(entry.key);
      else inFlight.set(entry.key, entry.created.getTime());
    }
  })();

  /** The packets that have not changed for the horizon, oldest first, one page of them. */
  function stalePage(now: number): string[] {
    return [...inFlight]
      .filter(([, changed]) => now - changed >= options.horizonMs)
      .sort(([, a], [, b]) => a - b)
      .slice(0, pageSize)
      .map(([packetId]) => packetId);
  }

  async function pass(): Promise<void> {
    const stale = stalePage(Date.now());
    if (stale.length === 0) return;
    const census = await takeStreamCensus(jsm);
    await recreateConsumers(stale, census);
    for (const packetId of stale) await reconcile(packetId, census.messages.get(packetId) ?? []);
  }

  /** Makes again the consumer of a stage that holds a stale packet's message and has none: nothing else would deliver it. */
  async function recreateConsumers(stale: string[], census: StreamCensus): Promise<void> {
    const stages = new Set(stale.flatMap((packetId) => (census.messages.get(packetId) ?? []).map((m) => m.stage)));
    for (const stage of stages) {
      if (!census.withoutConsumer.has(stage)) continue;
      await ensureStageConsumer(nc, stage, options.topology);
      logger.warn({ stage }, "the stage's consumer was missing; made again (its workers resume within two missed heartbeats)");
    }
  }

  async function reconcile(packetId: string, messages: PacketMessage[]): Promise<void> {
    // A message the consumer will deliver: the packet moves, or waits its turn.
    if (messages.some((message) => message.live)) return;
    const entry = await packets.get(packetId);
    const waitedFor = entry?.operation === "PUT" && entry.value.length > 0 ? stageWaitedFor(entry.value) : undefined;
    if (!entry || !waitedFor) {
      inFlight.delete(packetId);
      return;
    }
    // Changed since the census began: it moved after all.
    if (Date.now() - entry.created.getTime() < options.horizonMs) return;
    const stuck = messages.at(-1);
    const stored = readStoredPacket(entry.value, packetId);
    // The copy left below its consumer's ack floor went further than the stored one: resume from it.
    const packet = (stuck?.stored && packetOf(stuck.stored.data)) || stored;
    const stage = stuck?.stage ?? waitedFor;
    const header = packet.header!;
    header.resumes = Math.max(header.resumes, stored.header?.resumes ?? 0);
    const left = remainingMs(packet);
    const action: ReconcileAction = (left !== undefined && left <= 0) || header.resumes >= options.maxResumes ? "failed" : "resumed";
    const span = options.tracer.startSpan(
      "reconcile packet",
      { kind: SpanKind.INTERNAL, attributes: { [Attr.PacketId]: packetId, [Attr.Stage]: stage } },
      packetTraceContext(header.traceparent),
    );
    try {
      const done = action === "failed" ? await end(packet, stage, entry.revision, left) : await resume(packet, stage, entry.revision);
      if (!done) return;
      // Copies its consumer will never hand out: kept, they would only sit in the work queue.
      for (const { seq } of messages) await jsm.streams.deleteMessage(PACKETS_STREAM, seq).catch(() => false);
      options.onAction?.(action, stage, packet);
      logger.warn(
        { packetId, stage, resumes: header.resumes, streamSeq: stuck?.seq, reason: packet.stateReason || undefined },
        action === "failed" ? "packet lost in transit: ended FAILED" : "packet lost in transit: resumed",
      );
    } finally {
      span.end();
    }
  }

  /** Publishes the packet again to `stage` under new message ids (its resume count); false when another replica or a stage changed it first. */
  async function resume(packet: Packet, stage: Stage, revision: number): Promise<boolean> {
    const header = packet.header!;
    header.resumes += 1;
    header.updatedAt = timestampNow();
    addReflection(packet, { step: "reconcile", summary: `lost in transit at stage ${stage}: resumed (${header.resumes} of at most ${options.maxResumes})` });
    const bytes = encodePacket(packet);
    // Stored first, over the revision read: one replica wins, and the packet's clock starts again.
    if (!(await unlessConflict(packets.update(header.packetId, bytes, revision)))) return false;
    await publishPacket(js, options.tracer, stage, packet, bytes);
    return true;
  }

  /** Ends the packet FAILED and announces it, so a waiting client is answered; false when changed first. */
  async function end(packet: Packet, stage: Stage, revision: number, left: number | undefined): Promise<boolean> {
    const resumes = packet.header!.resumes;
    const why = left !== undefined && left <= 0 ? "and its deadline has passed" : `the most allowed`;
    const reason = `lost in transit at stage ${stage}; resumed ${resumes} time${resumes === 1 ? "" : "s"}, ${why}`;
    addReflection(packet, { step: "reconcile", summary: reason });
    finish(packet, Packet_State.FAILED, reason);
    return unlessConflict(storeFinishedPacket(nc, packets, packet, revision));
  }

  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const tick = () => {
    running = pass()
      .then(() => {
        if (failing) logger.info("the reconciler reads the stream again");
        failing = false;
      })
      .catch((error: unknown) => {
        // Once per outage, not once per pass: NATS away fails every pass alike.
        if (!failing) logger.warn({ err: error }, "reconciler pass failed; it tries again every interval");
        failing = true;
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.intervalMs);
      });
  };
  timer = setTimeout(tick, options.intervalMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      watch.stop();
      await running;
    },
  };
}

/** The stage a stored packet waits for; undefined at rest, or when not even its summary can be read. */
function stageWaitedFor(bytes: Uint8Array): Stage | undefined {
  try {
    return STAGE_WAITED_FOR.get(decodePacketSummary(bytes).state);
  } catch {
    return undefined;
  }
}

function packetOf(bytes: Uint8Array): Packet | undefined {
  try {
    const packet = decodePacket(bytes);
    return packet.header?.packetId ? packet : undefined;
  } catch {
    return undefined;
  }
}

/** True once the write is made; false when someone wrote the entry since it was read. */
async function unlessConflict(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isWriteConflict(error)) return false;
    throw error;
  }
}
