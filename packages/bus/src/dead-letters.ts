import type { NatsConnection } from "@nats-io/nats-core";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { ConsumerMessages, JetStreamManager, JsMsg, StoredMsg } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { create } from "@bufbuild/protobuf";
import { addReflection, decodePacket, finish, Packet_State, PacketSchema } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import type { Logger } from "@switchyard/telemetry";
import { forgetAttempt, readAttempt } from "./attempts.js";
import type { Attempt } from "./attempts.js";
import { Headers } from "./headers.js";
import { hasEnded, storeFinishedPacket } from "./packet-bus.js";
import { addOrUpdateConsumer, addOrUpdateStream, NS_PER_MS, PACKETS_STREAM, setUpTopology } from "./topology.js";
import type { TopologyOptions } from "./topology.js";

/**
 * Packets JetStream gave up on: the advisories it publishes when a packet message used up
 * its deliveries, or a stage terminated it, kept in a stream of their own. One durable
 * consumer, shared by every stage service, ends each such packet FAILED with the reason.
 */
export const DEAD_LETTERS_STREAM = "SWITCHYARD_DEAD_LETTERS";
const DEAD_LETTERS_CONSUMER = "dead-letters";
const MAX_DELIVERIES_SUBJECT = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${PACKETS_STREAM}.*`;
const TERMINATED_SUBJECT = `$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.${PACKETS_STREAM}.*`;
/** Dead-letter records are the audit trail of what failed; they are kept this long. */
const DEAD_LETTERS_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/** What the advisories carry that the record needs (JetStream's max_deliver and terminated advisories). */
export interface DeadLetterAdvisory {
  type: string;
  stream: string;
  /** The stage's durable consumer. */
  consumer: string;
  stream_seq: number;
  deliveries: number;
  /** The terminated advisory's reason (nats-server 2.11 and later). */
  reason?: string;
}

export async function ensureDeadLetters(nc: NatsConnection, options: TopologyOptions = {}): Promise<void> {
  const jsm = await setUpTopology(() => jetstreamManager(nc));
  await setUpTopology(() => addOrUpdateStream(jsm, {
    name: DEAD_LETTERS_STREAM,
    subjects: [MAX_DELIVERIES_SUBJECT, TERMINATED_SUBJECT],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: options.replicas ?? 1,
    max_age: DEAD_LETTERS_MAX_AGE_MS * NS_PER_MS,
  }));
  const config = {
    durable_name: DEAD_LETTERS_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30_000 * NS_PER_MS,
    // A record that cannot be handled (NATS away) is tried again, not forever; it stays in the stream.
    max_deliver: 10,
    backoff: [30_000, 60_000, 120_000].map((ms) => ms * NS_PER_MS),
  };
  await setUpTopology(() => addOrUpdateConsumer(jsm, DEAD_LETTERS_STREAM, config));
}

function isTerminated(advisory: DeadLetterAdvisory): boolean {
  return advisory.type.endsWith(".terminated");
}

/** Why the packet ended, as its FAILED reason says it. */
export function deadLetterReason(advisory: DeadLetterAdvisory, attempt: Attempt | undefined): string {
  if (isTerminated(advisory)) {
    return `terminated at stage ${advisory.consumer}: ${advisory.reason || attempt?.error || "no reason given"}`;
  }
  const last = attempt ? `: ${attempt.error}` : "";
  return `gave up after ${advisory.deliveries} deliveries at stage ${advisory.consumer}${last}`;
}

export interface DeadLetterWorker {
  stop(): Promise<void>;
}

/** Works on the dead-letter records until stopped; see handleDeadLetter. */
export async function startDeadLetterWorker(options: {
  nc: NatsConnection;
  packets: KV;
  attempts: KV;
  logger: Logger;
  /** Told of each packet ended FAILED, for the finished-packet metrics. */
  onEnded?: (packet: Packet) => void;
}): Promise<DeadLetterWorker> {
  const jsm = await jetstreamManager(options.nc);
  const consumer = await setUpTopology(() => jetstream(options.nc).consumers.get(DEAD_LETTERS_STREAM, DEAD_LETTERS_CONSUMER));
  const messages: ConsumerMessages = await consumer.consume({ max_messages: 16 });
  const loop = (async () => {
    for await (const msg of messages) {
      try {
        await handleDeadLetter(options, jsm, msg);
        await msg.ackAck().catch(() => false);
      } catch (error) {
        options.logger.error({ err: error }, "dead-letter record not handled; it will be delivered again");
        msg.nak(5_000);
      }
    }
  })();
  return {
    async stop() {
      await messages.close();
      await loop;
    },
  };
}

/**
 * Ends the packet behind a dead-letter record FAILED, with the reason: stored where
 * `GET /v1/packets/{id}` reads it and announced to a waiting gateway. A packet message that
 * used up its deliveries is still in the work-queue stream; it is read from there, then
 * deleted. A terminated one is gone already: its id comes from the attempt kept for it.
 * JetStream also reports as terminated any message removed while a consumer held it (on a
 * server restarted after a crash, the messages it had handed out and missed the acks of):
 * no stage gave up on those, so a terminated record counts only when the stage's attempt says
 * it terminated the message. A packet that has ended already is not ended a second time.
 */
async function handleDeadLetter(
  options: { nc: NatsConnection; packets: KV; attempts: KV; logger: Logger; onEnded?: (packet: Packet) => void },
  jsm: JetStreamManager,
  msg: JsMsg,
): Promise<void> {
  let advisory: DeadLetterAdvisory;
  try {
    advisory = msg.json<DeadLetterAdvisory>();
  } catch (error) {
    // No delivery would make these bytes an advisory: logged once and acked, not retried.
    options.logger.error({ err: error, seq: msg.seq }, "dead-letter record that is no advisory: dropped");
    return;
  }
  if (advisory?.stream !== PACKETS_STREAM) return;
  const seq = advisory.stream_seq;
  const attempt = await readAttempt(options.attempts, seq);
  if (isTerminated(advisory) && !(attempt?.terminated && attempt.stage === advisory.consumer)) {
    // Its packet went on (or goes on) as usual; the message, if still there, is still to be worked on.
    options.logger.info({ stage: advisory.consumer, streamSeq: seq }, "message no stage terminated: not dead-lettered");
    return;
  }
  const stored = await jsm.streams.getMessage(PACKETS_STREAM, { seq }).catch(() => null);
  const reason = deadLetterReason(advisory, attempt);
  const packet = packetOf(stored, attempt);
  const ended = packet ? await hasEnded(options.packets, packet.header!.packetId) : false;
  if (packet && !ended) {
    addReflection(packet, { step: "dead_letter", summary: reason });
    finish(packet, Packet_State.FAILED, reason);
    await storeFinishedPacket(options.nc, options.packets, packet);
    options.onEnded?.(packet);
  }
  options.logger.warn({ packetId: packet?.header?.packetId, stage: advisory.consumer, streamSeq: seq, reason, ended }, "packet dead-lettered");
  if (stored) await jsm.streams.deleteMessage(PACKETS_STREAM, seq).catch(() => false);
  await forgetAttempt(options.attempts, seq);
}

/** The dead-lettered message's packet; when its bytes are no packet, an empty one under the id and tenant its attempt or headers name. */
function packetOf(stored: StoredMsg | null, attempt: Attempt | undefined): Packet | undefined {
  if (stored) {
    try {
      const packet = decodePacket(stored.data);
      if (packet.header?.packetId) return packet;
    } catch {
      // An undecodable message: fall back to the id and tenant named beside it.
    }
  }
  const packetId = attempt?.packetId || stored?.header?.get(Headers.PacketId);
  const tenant = attempt?.tenant || stored?.header?.get(Headers.Tenant) || "";
  return packetId ? create(PacketSchema, { header: { packetId, tenant } }) : undefined;
}
