import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { Tracer } from "@opentelemetry/api";
import { currentTraceparent, doneSubject, publishPacket, recordHop, retryWhileTransient, setDeadline } from "@switchyard/bus";
import type { HopClock } from "@switchyard/bus";
import { decodePacket, encodePacket } from "@switchyard/packet";
import type { Packet, Stage } from "@switchyard/packet";
import { finishedPacket } from "@switchyard/runtime";
import { processMetrics } from "@switchyard/telemetry";
import type { LivePackets } from "./live-packets.js";
import type { NatsAvailability } from "./nats-availability.js";

const SERVICE = "gateway";

export interface PacketDispatchOptions {
  nc: NatsConnection;
  packets: KV;
  tracer: Tracer;
  availability: NatsAvailability;
  live: LivePackets;
  /** How long a waiting request waits for its packet; also how long a packet JetStream cannot take yet is tried again. */
  waitTimeoutMs: number;
  /** How long one try to store and publish a packet waits for JetStream. */
  publishTimeoutMs: number;
  /** Time a packet has to finish, from submission or approval; 0: none. */
  packetDeadlineMs: number;
}

/** A packet handed to a stage: the finished packet when the caller waited and it finished in time, else as sent. */
export interface Dispatched {
  packet: Packet;
  finished: boolean;
}

/** How the gateway hands packets to the stages and stores the ones it ends itself. */
export function packetDispatcher(options: PacketDispatchOptions) {
  const { nc, packets, tracer, availability, live } = options;
  const js = jetstream(nc, { timeout: options.publishTimeoutMs });

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
  async function dispatch(packet: Packet, stage: Stage, wait: boolean, clock: HopClock, previous?: Uint8Array): Promise<Dispatched> {
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

  return {
    dispatch,

    /** Starts a new packet of `tenant`'s at `stage`, in the caller's trace, counted among the tenant's packets in flight. */
    async launch(packet: Packet, tenant: string, stage: Stage, wait: boolean, clock: HopClock): Promise<Dispatched> {
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
    },

    /** Stores a packet the gateway itself ended (denied, approval expired) and counts it with the others. */
    async endAtGateway(packet: Packet): Promise<void> {
      await packets.put(packet.header!.packetId, encodePacket(packet));
      processMetrics().packetFinished(finishedPacket(packet));
    },
  };
}
