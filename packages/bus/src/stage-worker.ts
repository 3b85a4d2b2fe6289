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
import { recordAttempt } from "./attempts.js";
import { isNatsFailure, retryWhileTransient } from "./nats-failure.js";
import { remainingMs } from "./deadline.js";
import { hasEnded, publishPacket, recordHop, startHopClock, storeFinishedPacket } from "./packet-bus.js";
import { RetryLater } from "./stage-errors.js";
import { PACKETS_STREAM, setUpTopology } from "./topology.js";
import { packetSubject } from "./subjects.js";
import { extractTraceContext } from "./trace-context.js";

/**
 * How long a stage keeps trying to hand a packet on while JetStream cannot take it (an
 * election after a server was lost takes seconds); the packet's heartbeat holds it meanwhile.
 */
const HAND_ON_RETRY_MS = 30_000;

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
  /** How often `working()` tells JetStream the packet is still in hand (see heartbeatIntervalMs). @default 10000 */
  heartbeatMs?: number;
  /** Least wait before a packet given back (`nak`) is delivered again; see RetryLater. @default 1000 */
  retryDelayMs?: number;
  /**
   * Where the last error of each delivery is kept, for the dead-letter record's reason; absent: not
   * kept, and the packet of a message that is no packet is not ended FAILED (nothing says it was terminated).
   */
  attempts?: KV;
  /** Told of each packet the worker ends without running the stage (past its deadline), for the finished-packet metrics. */
  onEnded?: (packet: Packet) => void;
}

export interface StageWorker {
  /** Stops taking packets and waits for those in hand to be handed on. */
  stop(): Promise<void>;
}

/**
 * Consumes a stage's durable pull consumer: for each packet, runs the stage,
 * records the hop, publishes the next hop (or stores the finished packet) and
 * only then acks, so a crash at any point leaves the packet to be redelivered.
 * While the stage runs, `working()` keeps JetStream from redelivering it; a
 * step that failed in a retryable way (RetryLater, or NATS itself failing) is
 * given back with a delay; bytes that are no packet are terminated.
 */
export async function startStageWorker(options: StageWorkerOptions): Promise<StageWorker> {
  const { nc, stage, logger } = options;
  const concurrency = options.concurrency ?? 64;
  const js = jetstream(nc);
  const consumer = await setUpTopology(() => js.consumers.get(PACKETS_STREAM, stage));
  const messages: ConsumerMessages = await consumer.consume({ max_messages: concurrency });
  const inFlight = new Set<Promise<void>>();

  const loop = (async () => {
    for await (const msg of messages) {
      const work = handleMessage(options, js, msg).catch(async (error: unknown) => {
        const delayMs = error instanceof RetryLater && error.delayMs !== undefined ? error.delayMs : (options.retryDelayMs ?? 1000);
        const packetId = msg.headers?.get(Headers.PacketId);
        logger.warn({ err: error, stage, packetId, deliveries: msg.info.deliveryCount }, "packet given back; it will be delivered again");
        await recordAttempt(options.attempts, msg, stage, errorMessage(error)).catch(() => undefined);
        msg.nak(delayMs);
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
    if (!packet.header?.packetId) throw new Error("the packet has no header or id");
  } catch (error) {
    // Nothing can ever make a packet of these bytes: retrying is pointless.
    const reason = `invalid packet message: ${errorMessage(error)}`;
    logger.error({ err: error, packetId: msg.headers?.get(Headers.PacketId) }, "invalid packet message");
    // Terminated only once the attempt says so: the dead-letter worker ends a terminated message's
    // packet only then. Should keeping it fail (NATS away), the error gives the message back instead.
    await recordAttempt(options.attempts, msg, stage, reason, true);
    // No reason on the term itself: servers before 2.10 take "+TERM <reason>" for neither a
    // term nor an ack. The dead-letter record reads the reason from the attempt kept above.
    msg.term();
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
  const heartbeat = setInterval(() => msg.working(), options.heartbeatMs ?? 10_000);
  await context.with(withPacketId(trace.setSpan(parent, span), packet.header?.packetId ?? ""), async () => {
    try {
      const outcome = await runStage(options, packet);
      // A packet ends once: a copy that would end it again (JetStream redelivers acked messages
      // after a server's crash; a copy runs again beside one that went on) must not overwrite
      // its ending nor announce another. Read only when ending, not on every hop.
      if (outcome === "stale" || ("done" in outcome && (await hasEnded(options.packets, packet.header!.packetId)))) {
        logger.info({ packetId: packet.header?.packetId }, "a copy of a packet that has ended: dropped");
        msg.ack();
        return;
      }
      span.setAttributes(stageOutcomeAttributes(packet, options.content));
      recordHop(packet, service, clock);
      // Handing on is tried again while JetStream elects a stream's leader: giving the message
      // back instead would spend one of its few deliveries on every try.
      await retryWhileTransient(
        () => ("next" in outcome ? publishPacket(js, tracer, outcome.next, packet) : storeFinishedPacket(options.nc, options.packets, packet)),
        HAND_ON_RETRY_MS,
      );
      // A plain ack, not a confirmed one (ackAck): nothing could be done differently when the
      // confirmation does not come, and a lost ack costs a redelivery whose next hop is dropped
      // as a duplicate (docs/reliability.md, "Why a plain ack").
      msg.ack();
      logger.debug({ packetId: packet.header?.packetId, hop: packet.header?.hop, outcome }, "packet handed on");
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: maskSecrets(String(error)) });
      throw error;
    } finally {
      clearInterval(heartbeat);
      span.end();
    }
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the stage logic; a stage that throws ends the packet FAILED rather than losing it or
 * looping on it, unless it asked to be retried (RetryLater). A packet past its deadline ends
 * FAILED without running.
 */
async function runStage(options: StageWorkerOptions, packet: Packet): Promise<StageOutcome | "stale"> {
  const left = remainingMs(packet);
  if (left !== undefined && left <= 0) {
    // A copy delivered again long after its packet finished (JetStream redelivers acked
    // messages after a server's crash) is stale, not late: the packet ends once.
    if (await hasEnded(options.packets, packet.header!.packetId)) return "stale";
    const reason = `deadline exceeded at ${options.stage}`;
    addReflection(packet, { step: options.stage, summary: reason });
    finish(packet, Packet_State.FAILED, reason);
    options.onEnded?.(packet);
    return { done: true };
  }
  try {
    return await options.handle(packet);
  } catch (error) {
    // NATS away (a KV write, a request timing out) is no fault of the packet: redeliver it later.
    if (error instanceof RetryLater || isNatsFailure(error)) throw error;
    const reason = `${options.service} failed: ${errorMessage(error)}`;
    options.logger.error({ err: error, packetId: packet.header?.packetId }, "stage failed");
    addReflection(packet, { step: options.stage, summary: reason });
    finish(packet, Packet_State.FAILED, reason);
    return { done: true };
  }
}
