import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import type { ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { addReflection, decodePacket, finish, Packet_State } from "@switchyard/packet";
import type { Packet, Stage, StageOutcome } from "@switchyard/packet";
import { maskSecrets, withPacketId } from "@switchyard/telemetry";
import type { Logger } from "@switchyard/telemetry";
import { Attr, packetMessageAttributes, stageOutcomeAttributes } from "./attributes.js";
import type { ContentRecording } from "./attributes.js";
import { Headers } from "./headers.js";
import { publishPacket, recordHop, startHopClock, storeFinishedPacket } from "./packet-bus.js";
import { PACKETS_STREAM } from "./topology.js";
import { packetSubject } from "./subjects.js";
import { extractTraceContext } from "./trace-context.js";

export interface StageWorkerOptions {
  nc: NatsConnection;
  stage: Stage;
  /** The service name recorded on the packet's hops, e.g. "embedding-router". */
  service: string;
  /** The stage logic: mutates the packet, says where it goes next. */
  handle: (packet: Packet) => StageOutcome | Promise<StageOutcome>;
  packets: KV;
  tracer: Tracer;
  logger: Logger;
  /** Packets this process works on at once. @default 64 */
  concurrency?: number;
  /** Record request text, tool arguments and output on the stage's span (masked, cut); absent: never. */
  content?: ContentRecording;
}

export interface StageWorker {
  /** Stops taking packets and waits for those in hand to be handed on. */
  stop(): Promise<void>;
}

/**
 * Consumes a stage's durable pull consumer: for each packet, runs the stage,
 * records the hop, publishes the next hop (or stores the finished packet) and
 * only then acks, so a crash at any point leaves the packet to be redelivered.
 */
export async function startStageWorker(options: StageWorkerOptions): Promise<StageWorker> {
  const { nc, stage, logger } = options;
  const concurrency = options.concurrency ?? 64;
  const js = jetstream(nc);
  const consumer = await js.consumers.get(PACKETS_STREAM, stage);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency });
  const inFlight = new Set<Promise<void>>();

  const loop = (async () => {
    for await (const msg of messages) {
      const work = handleMessage(options, js, msg).catch((error: unknown) => {
        logger.error({ err: error, stage }, "packet could not be handed on; it will be redelivered");
        msg.nak(1000);
      });
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
      if (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  })();

  return {
    async stop() {
      await messages.close();
      await loop;
      await Promise.allSettled(inFlight);
    },
  };
}

async function handleMessage(options: StageWorkerOptions, js: ReturnType<typeof jetstream>, msg: JsMsg): Promise<void> {
  const { stage, service, tracer, logger } = options;
  const clock = startHopClock();
  let packet: Packet;
  try {
    packet = decodePacket(msg.data);
  } catch (error) {
    // Nothing can ever decode these bytes: retrying is pointless.
    logger.error({ err: error, packetId: msg.headers?.get(Headers.PacketId) }, "undecodable packet message");
    msg.term("undecodable packet");
    return;
  }
  const subject = packetSubject(stage);
  const parent = extractTraceContext(msg.headers);
  const span = tracer.startSpan(
    `process ${subject}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...packetMessageAttributes("process", subject, msg.headers?.get(Headers.MsgId) ?? "", packet, (packet.header?.hop ?? 0) + 1),
        [Attr.MessagingConsumerGroup]: stage,
        [Attr.Stage]: stage,
      },
    },
    parent,
  );
  // Log lines written while the packet is worked on carry its id, and the span's trace and span ids.
  await context.with(withPacketId(trace.setSpan(parent, span), packet.header?.packetId ?? ""), async () => {
    try {
      const outcome = await runStage(options, packet);
      span.setAttributes(stageOutcomeAttributes(packet, options.content));
      recordHop(packet, service, clock);
      if ("next" in outcome) await publishPacket(js, tracer, outcome.next, packet);
      else await storeFinishedPacket(options.nc, options.packets, packet);
      msg.ack();
      logger.debug({ packetId: packet.header?.packetId, hop: packet.header?.hop, outcome }, "packet handed on");
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: maskSecrets(String(error)) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs the stage logic; a stage that throws ends the packet FAILED rather than losing it or looping on it. */
async function runStage(options: StageWorkerOptions, packet: Packet): Promise<StageOutcome> {
  try {
    return await options.handle(packet);
  } catch (error) {
    const reason = `${options.service} failed: ${error instanceof Error ? error.message : String(error)}`;
    options.logger.error({ err: error, packetId: packet.header?.packetId }, "stage failed");
    addReflection(packet, { step: options.stage, summary: reason });
    finish(packet, Packet_State.FAILED, reason);
    return { done: true };
  }
}
