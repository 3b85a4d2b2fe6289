import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { Tracer } from "@opentelemetry/api";
import { currentTraceparent, publishPacket, readStoredPacket, recordHop, retryWhileTransient, setDeadline } from "@switchyard/bus";
import type { HopClock } from "@switchyard/bus";
import { encodePacket } from "@switchyard/packet";
import type { Packet, Stage } from "@switchyard/packet";
import { finishedPacket } from "@switchyard/runtime";
import { processMetrics } from "@switchyard/telemetry";
import type { LivePackets } from "./live-packets.js";
import type { NatsAvailability } from "./nats-availability.js";
import { packetEndings } from "./packet-endings.js";

const SERVICE = "gateway";

/** JetStream's "wrong last sequence": what `kv.create` answers for a key that exists. */
const KEY_EXISTS = 10071;

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
  const endings = packetEndings(nc);

  /**
   * Hands the packet to a stage and, when asked, waits for it to finish. The wait
   * begins before the publish, so a fast packet cannot finish unseen; the packet is
   * stored so that `GET /v1/packets/{id}` finds it while it is in flight. It returns only
   * once JetStream acknowledged the publish: an answer means the packet is kept.
   * While a server is lost and its streams elect new leaders, JetStream answers nobody
   * for seconds: the store and the publish are tried again until the wait budget is spent
   * (the message id makes a publish stored twice count once).
   * When the publish fails the stored packet goes back to `previous` (deleted
   * when there was none), best effort as NATS may be away, so that it does not
   * look in flight for ever.
   */
  async function dispatch(packet: Packet, stage: Stage, wait: boolean, clock: HopClock, previous?: Uint8Array): Promise<Dispatched> {
    const packetId = packet.header!.packetId;
    packet.header!.doneSubject = endings.subjectOf(packetId);
    const ending = wait ? endings.await(packetId, options.waitTimeoutMs) : undefined;
    recordHop(packet, SERVICE, clock);
    const bytes = encodePacket(packet);
    const deadline = Date.now() + options.waitTimeoutMs;
    // A lost connection is waited for as long as any request waits for one (awaitConnection), not the whole budget.
    const connected = () => availability.awaitConnection();
    const publish = () => retryWhileTransient(() => publishPacket(js, tracer, stage, packet, bytes), Math.max(0, deadline - Date.now()), connected);
    try {
      if (previous) {
        // A resumed packet is stored over its waiting state before it is published: stored
        // afterwards, a store retried late could overwrite what the stages made of it since.
        await retryWhileTransient(() => packets.put(packetId, bytes), options.waitTimeoutMs, connected);
        await publish();
      } else {
        // A new packet is stored only if absent, so the store and the publish can go out
        // together (one round trip, not two): a store retried after the packet ended finds
        // its end there and leaves it. Once published the packet runs and is stored when it
        // ends, whether or not this first store was made.
        const [, published] = await Promise.allSettled([storeIfAbsent(packetId, bytes, connected), publish()]);
        if (published.status === "rejected") throw published.reason;
      }
    } catch (error) {
      ending?.cancel();
      (previous ? packets.put(packetId, previous) : packets.delete(packetId)).catch(() => undefined);
      throw error;
    }
    const ended = await ending?.bytes;
    // Read as GET reads it: an ending that cannot be decoded whole is answered as its header and state, not a 500.
    return ended ? { packet: readStoredPacket(ended, packetId), finished: true } : { packet, finished: false };
  }

  /** Stores a new packet's first state unless the bucket has one already (an earlier try's, or its end). */
  async function storeIfAbsent(packetId: string, bytes: Uint8Array, connected: () => Promise<boolean>): Promise<void> {
    try {
      await retryWhileTransient(() => packets.create(packetId, bytes), options.waitTimeoutMs, connected);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === KEY_EXISTS)) throw error;
    }
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
