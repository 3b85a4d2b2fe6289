import type { NatsConnection } from "@nats-io/nats-core";
import { jetstreamManager } from "@nats-io/jetstream";
import { PACKETS_STREAM, packetSubject, stageConsumerInfo } from "@switchyard/bus";
import type { WaitingPackets } from "@switchyard/bus";
import { Packet_State, STAGES, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet, Stage, StageOutcome } from "@switchyard/packet";
import { processMetrics } from "@switchyard/telemetry";
import type { Metrics } from "@switchyard/telemetry";
import type { ServiceContext } from "./service.js";

type Handler = (packet: Packet) => StageOutcome | Promise<StageOutcome>;

/**
 * The stage's handler, measured: every run records how long the stage took and where the
 * packet went (the next stage, or the state it ended in), and a packet that ended records
 * how, and each fallback the stage recorded on the packet (`addFallback`) is counted. A
 * handler that throws counts as ending FAILED, which is what the stage worker makes of it.
 */
export function measuredHandler(metrics: Metrics, stage: Stage, handle: Handler): Handler {
  return async (packet) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const earlier = new Set(packet.fallbacks);
    let outcome: StageOutcome;
    try {
      outcome = await handle(packet);
      for (const fallback of packet.fallbacks) if (!earlier.has(fallback)) metrics.fellBack(fallback.stage, fallback.dependency, fallback.cause);
    } catch (error) {
      metrics.stageRun(stage, Packet_State[Packet_State.FAILED], seconds());
      metrics.packetFinished(finishedPacket(packet, Packet_State.FAILED));
      throw error;
    }
    metrics.stageRun(stage, "next" in outcome ? outcome.next : Packet_State[packet.state]!, seconds());
    if (!("next" in outcome)) metrics.packetFinished(finishedPacket(packet, packet.state));
    return outcome;
  };
}

/** What the finished-packet metrics record of a packet that ended in `state`. */
export function finishedPacket(packet: Packet, state: Packet_State = packet.state) {
  const routing = packet.toolRouting;
  const selected = routing?.selectedTool;
  return {
    state: Packet_State[state]!,
    executionStatus: ToolRoutingState_ExecutionStatus[routing?.executionStatus ?? ToolRoutingState_ExecutionStatus.PENDING]!,
    selectionConfidence: selected?.toolName ? selected.selectionConfidence : undefined,
    reinjectionRounds: routing?.reinjectionCount ?? 0,
  };
}

/**
 * Reports the stage's durable consumer backlog (JetStream consumer info) on every scrape;
 * returns the function that stops it. A stage with no consumer yet reports every message of
 * its subject as pending, and no pull requests: nothing takes them.
 */
export async function watchStageConsumer(metrics: Metrics, nc: NatsConnection, stage: Stage): Promise<() => void> {
  const jsm = await jetstreamManager(nc);
  return metrics.watchConsumer(stage, async () => {
    const info = await stageConsumerInfo(jsm, stage);
    if (info) return { pending: info.num_pending, ackPending: info.num_ack_pending, pullRequests: info.num_waiting };
    const subject = packetSubject(stage);
    const stream = await jsm.streams.info(PACKETS_STREAM, { subjects_filter: subject });
    return { pending: stream.state.subjects?.[subject] ?? 0, ackPending: 0, pullRequests: 0 };
  });
}

/**
 * The fleet's view for operators, reported by the gateway: every stage's backlog, whether or
 * not its service runs (a stage service reports only its own, and only while it runs), and
 * the packets waiting for a person (`waiting`, fed by the gateway's watch of the packets
 * bucket). Returns the function that stops it.
 */
export async function watchFleetBacklog(context: ServiceContext, waiting: WaitingPackets): Promise<() => void> {
  const metrics = processMetrics();
  const stops = await Promise.all(STAGES.map((stage) => watchStageConsumer(metrics, context.nc, stage)));
  metrics.watchWaitingPackets(() => waiting.read());
  return () => {
    for (const stop of stops) stop();
  };
}
