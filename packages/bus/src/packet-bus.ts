import { headers } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import type { JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { context, SpanKind, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs, timestampNow } from "@bufbuild/protobuf/wkt";
import { decodePacket, decodePacketSummary, encodePacket, HopSchema, Packet_State, PacketSchema } from "@switchyard/packet";
import type { Packet, Stage } from "@switchyard/packet";
import { INSTANCE } from "@switchyard/telemetry";
import { packetMessageAttributes } from "./attributes.js";
import { Headers, hopMessageId } from "./headers.js";
import { announcementSubject, packetSubject } from "./subjects.js";
import { injectTraceContext } from "./trace-context.js";

/** When a hop started: wall time for the record, a monotonic clock for its duration. */
export interface HopClock {
  wallMs: number;
  monotonicMs: number;
}

export function startHopClock(): HopClock {
  return { wallMs: Date.now(), monotonicMs: performance.now() };
}

/**
 * Records that `service` handled the packet as its next hop. The hop number is
 * the one the packet's next message carries.
 */
export function recordHop(packet: Packet, service: string, started: HopClock): number {
  const header = packet.header!;
  const hop = header.hop + 1;
  packet.hops.push(
    create(HopSchema, {
      service,
      instance: INSTANCE,
      hop,
      startedAt: timestampFromMs(started.wallMs),
      durationMs: performance.now() - started.monotonicMs,
    }),
  );
  header.hop = hop;
  header.updatedAt = timestampNow();
  return hop;
}

function packetHeaders(packet: Packet) {
  const h = headers();
  const { packetId, hop, tenant } = packet.header!;
  h.set(Headers.PacketId, packetId);
  h.set(Headers.Hop, String(hop));
  if (tenant) h.set(Headers.Tenant, tenant);
  injectTraceContext(h);
  return h;
}

/**
 * Publishes the packet to a stage's subject and waits for JetStream's ack, in
 * a PRODUCER span. The message id is `<packet id>:<hop>`, so publishing the same
 * hop twice (a redelivered stage) stores it once. `bytes`: the packet as encoded already.
 */
export async function publishPacket(js: JetStreamClient, tracer: Tracer, stage: Stage, packet: Packet, bytes = encodePacket(packet)): Promise<void> {
  const subject = packetSubject(stage);
  const { packetId, hop, resumes } = packet.header!;
  const msgID = hopMessageId(packetId, hop, resumes);
  const span = tracer.startSpan(`send ${subject}`, {
    kind: SpanKind.PRODUCER,
    attributes: packetMessageAttributes("send", subject, msgID, packet, hop),
  });
  try {
    await context.with(trace.setSpan(context.active(), span), () =>
      js.publish(subject, bytes, { msgID, headers: packetHeaders(packet) }),
    );
  } finally {
    span.end();
  }
}

/**
 * Stores a finished (or waiting) packet in the packets bucket, then announces it
 * on its done subject for the gateway that waits (announcementSubject). Storing
 * first means a gateway that misses the announcement still finds the packet.
 * With `revision`, only over that revision of the stored packet (else it throws, and
 * nothing is announced): whoever changed it since has the last word.
 */
export async function storeFinishedPacket(nc: NatsConnection, packets: KV, packet: Packet, revision?: number): Promise<void> {
  const bytes = encodePacket(packet);
  const packetId = packet.header!.packetId;
  await (revision === undefined ? packets.put(packetId, bytes) : packets.update(packetId, bytes, revision));
  nc.publish(announcementSubject(packet.header!), bytes, { headers: packetHeaders(packet) });
}

/**
 * Reads a stored packet; undefined when the bucket has none under that id. A record that
 * cannot be decoded whole (written by an older version, or holding a value nested past what
 * protobuf decodes) is read as its header and state, with a `stateReason` that says so:
 * whoever asks for it gets what can be known, never an error it cannot act on.
 */
export async function loadPacket(packets: KV, packetId: string): Promise<Packet | undefined> {
  const bytes = await storedBytes(packets, packetId);
  return bytes && readStoredPacket(bytes, packetId);
}

/** A stored packet's bytes; undefined when the bucket has none under that id (never written, deleted, or empty). */
async function storedBytes(packets: KV, packetId: string): Promise<Uint8Array | undefined> {
  const entry = await packets.get(packetId);
  return entry?.operation === "PUT" && entry.value.length > 0 ? entry.value : undefined;
}

/** A stored or announced packet's bytes as a packet; those that cannot be decoded whole as loadPacket reads them. */
export function readStoredPacket(bytes: Uint8Array, packetId: string): Packet {
  try {
    return decodePacket(bytes);
  } catch (error) {
    return unreadablePacket(bytes, packetId, error);
  }
}

/** What is known of a stored packet that cannot be decoded whole: its header and state (PacketSummary reads nothing else). */
function unreadablePacket(bytes: Uint8Array, packetId: string, error: unknown): Packet {
  const why = `the stored packet cannot be read whole: ${error instanceof Error ? error.message : String(error)}`;
  try {
    const { header, state } = decodePacketSummary(bytes);
    return create(PacketSchema, { header: header ?? { packetId }, state, stateReason: why });
  } catch {
    return create(PacketSchema, { header: { packetId }, state: Packet_State.FAILED, stateReason: why });
  }
}

/** True when the packet is stored COMPLETED or FAILED: a copy of it finished already, and a packet ends once. */
export async function hasEnded(packets: KV, packetId: string): Promise<boolean> {
  const bytes = await storedBytes(packets, packetId);
  if (!bytes) return false;
  // The summary alone: cheaper, and readable even where the whole packet is not. Bytes that
  // are not even that record no ending: ending the packet over them is what makes it readable.
  let state: Packet_State;
  try {
    state = decodePacketSummary(bytes).state;
  } catch {
    return false;
  }
  return state === Packet_State.COMPLETED || state === Packet_State.FAILED;
}
