/**
 * The gateway hosts the fleet's reconciler (packages/bus/src/reconciler.ts). It is the service
 * that answered 2xx, so the promise that the packet ends is its own; it stores every packet's
 * first state and waits for the ends it announces; and it consumes no stage's messages, so a
 * consumer that stopped delivering them cannot stop it too. Its replicas share the work safely:
 * each action is a compare-and-set on the stored packet.
 */
import { startReconciler } from "@switchyard/bus";
import { ConfigError } from "@switchyard/config";
import { finishedPacket } from "@switchyard/runtime";
import type { ServiceContext } from "@switchyard/runtime";
import { processMetrics } from "@switchyard/telemetry";
import type { Config } from "../config.js";

export interface ReconcilerSettings {
  horizonMs: number;
  intervalMs: number;
  maxResumes: number;
}

/**
 * The reconciler's settings; undefined when it is off (RECONCILE_INTERVAL_MS=0). A horizon
 * within WAIT_TIMEOUT_MS is refused: the gateway tries a first publish that long, and a packet
 * stored but not yet published would be taken for lost and sent twice.
 */
export function reconcilerSettings(config: Config): ReconcilerSettings | undefined {
  if (config.RECONCILE_INTERVAL_MS === 0) return undefined;
  if (config.RECONCILE_HORIZON_MS <= config.WAIT_TIMEOUT_MS) {
    throw new ConfigError("RECONCILE_HORIZON_MS", `is ${config.RECONCILE_HORIZON_MS}; it must be more than WAIT_TIMEOUT_MS (${config.WAIT_TIMEOUT_MS})`);
  }
  return { horizonMs: config.RECONCILE_HORIZON_MS, intervalMs: config.RECONCILE_INTERVAL_MS, maxResumes: config.RECONCILE_MAX_RESUMES };
}

/** Runs the reconciler until the service stops; its actions are counted on /metrics. */
export async function runReconciler(service: ServiceContext, settings: ReconcilerSettings): Promise<void> {
  const metrics = processMetrics();
  const reconciler = await startReconciler({
    nc: service.nc,
    packets: service.packets,
    tracer: service.tracer,
    logger: service.logger,
    topology: service.topology,
    ...settings,
    onAction: (action, stage, packet) => {
      metrics.packetReconciled(stage, action);
      if (action === "failed") metrics.packetFinished(finishedPacket(packet));
    },
  });
  service.onStop(() => reconciler.stop());
}
