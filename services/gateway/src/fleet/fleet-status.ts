import { create } from "@bufbuild/protobuf";
import { decodePacket, FleetStatusSchema, Packet_State } from "@switchyard/packet";
import type { FleetStatus } from "@switchyard/packet";
import type { FleetService } from "@switchyard/runtime";
import { AT_REST } from "./live-packets.js";
import type { IndexedPacket } from "./recent-packets.js";

/** The services a whole fleet runs, each a NATS micro service of this name (`nats micro ls`). */
export const FLEET_SERVICES = ["gateway", "intent", "embedding-router", "selector", "reviewer", "executor"] as const;

const WAITING = new Set([Packet_State.AWAITING_APPROVAL, Packet_State.AWAITING_USER]);

/**
 * The console's Fleet page: each service as `$SRV.PING` found it (the discovery /readyz's
 * `down` comes from), and counts over one tenant's recent packets (recent-packets.ts): in
 * flight, waiting for a person, and the fallbacks they record. "unavailable" when a service
 * of the fleet has no replica answering; "degraded" when one says a dependency is down.
 */
export function fleetStatus(found: readonly FleetService[], packets: readonly IndexedPacket[]): FleetStatus {
  const byName = new Map(found.map((service) => [service.name, service]));
  const names = [...FLEET_SERVICES, ...found.map((service) => service.name).filter((name) => !(FLEET_SERVICES as readonly string[]).includes(name))];
  const services = names.map((name) => {
    const service = byName.get(name);
    return { name, instances: service?.instances ?? 0, ready: (service?.instances ?? 0) > 0, down: service?.down ?? [] };
  });
  const status = services.some((service) => !service.ready) ? "unavailable" : services.some((service) => service.down.length > 0) ? "degraded" : "ready";

  const fallbacks = new Map<string, { stage: string; dependency: string; cause: string; count: number }>();
  let packetsInFlight = 0;
  let approvalsWaiting = 0;
  for (const { summary, bytes } of packets) {
    if (!AT_REST.has(summary.state)) packetsInFlight += 1;
    if (WAITING.has(summary.state)) approvalsWaiting += 1;
    for (const { stage, dependency, cause } of decodePacket(bytes).fallbacks) {
      const key = `${stage}\n${dependency}\n${cause}`;
      const counted = fallbacks.get(key) ?? { stage, dependency, cause, count: 0 };
      counted.count += 1;
      fallbacks.set(key, counted);
    }
  }
  return create(FleetStatusSchema, { status, services, packetsInFlight, approvalsWaiting, fallbacks: [...fallbacks.values()] });
}
