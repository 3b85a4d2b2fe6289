import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { ConsumerInfo, JetStreamManager, SeqMsgRequest, StoredMsg } from "@nats-io/jetstream";
import { STAGES } from "@switchyard/packet";
import type { Stage } from "@switchyard/packet";
import { Headers } from "./headers.js";
import { PACKETS_WILDCARD, packetSubject } from "./subjects.js";
import { PACKETS_STREAM } from "./topology.js";

/** One message of a packet in the packet stream. */
export interface PacketMessage {
  seq: number;
  stage: Stage;
  /**
   * Its stage's consumer will deliver it: it is past the consumer's ack floor (waiting, or
   * delivered and waiting for its ack), or the stage has no consumer yet to count it. False:
   * the consumer took it as acknowledged, and it lies in the work queue for ever.
   */
  live: boolean;
  /** The message as stored, kept only when it is not live: the copy a resume starts from. */
  stored?: StoredMsg;
}

/** Every packet's messages in the packet stream, and which stages have no consumer. */
export interface StreamCensus {
  /** By packet id, oldest first. */
  messages: Map<string, PacketMessage[]>;
  /** Stages with no durable consumer: nothing delivers their messages until one is made. */
  withoutConsumer: Set<Stage>;
}

/** The server's message API takes `next_by_subj` (since 2.9); nats.js types it for direct gets only. */
type NextMessageRequest = SeqMsgRequest & { next_by_subj: string };

const STAGE_OF_SUBJECT = new Map<string, Stage>(STAGES.map((stage) => [packetSubject(stage), stage]));

/** The stage's durable consumer as JetStream reports it; undefined when the stage has none. */
export function stageConsumerInfo(jsm: JetStreamManager, stage: Stage): Promise<ConsumerInfo | undefined> {
  return jsm.consumers.info(PACKETS_STREAM, stage).catch((error: unknown) => {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
    throw error;
  });
}

/**
 * Reads the packet stream message by message (a work queue holds only what is in flight),
 * through the stream's leader, not a direct get that a lagging replica may answer. The
 * consumers are read first: a message at or below its consumer's ack floor then is one the
 * consumer will not deliver again, whatever happens during the scan. Throws when either
 * cannot be read: nothing may be concluded from half a census.
 */
export async function takeStreamCensus(jsm: JetStreamManager): Promise<StreamCensus> {
  const ackFloors = new Map<Stage, number>();
  const withoutConsumer = new Set<Stage>();
  for (const stage of STAGES) {
    const info = await stageConsumerInfo(jsm, stage);
    if (info) ackFloors.set(stage, info.ack_floor.stream_seq);
    else withoutConsumer.add(stage);
  }
  const messages = new Map<string, PacketMessage[]>();
  for (let seq = 0; ; ) {
    const query: NextMessageRequest = { seq, next_by_subj: PACKETS_WILDCARD };
    const stored = await jsm.streams.getMessage(PACKETS_STREAM, query);
    if (!stored) break;
    seq = stored.seq + 1;
    const stage = STAGE_OF_SUBJECT.get(stored.subject);
    const packetId = stored.header?.get(Headers.PacketId);
    if (!stage || !packetId) continue;
    const floor = ackFloors.get(stage);
    const live = floor === undefined || stored.seq > floor;
    const message: PacketMessage = { seq: stored.seq, stage, live, ...(live ? {} : { stored }) };
    messages.set(packetId, [...(messages.get(packetId) ?? []), message]);
  }
  return { messages, withoutConsumer };
}
