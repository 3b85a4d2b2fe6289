import type { NatsConnection } from "@nats-io/nats-core";
import { Svcm } from "@nats-io/services";

/**
 * What `/readyz` answers while the process can take work: 200 either way, since a stage
 * without its model still decides every packet (by its built-in fallback) and a restart
 * would not bring the model back; "degraded" names the dependencies that are down.
 */
export type Readiness = { status: "ready" } | { status: "degraded"; down: string[] };

const DOWN_KEY = "down";
/** How long the fleet's answers to `$SRV.PING` are waited for: at most in all, and after the last one. */
const PING_WAIT_MS = 500;
const PING_STALL_MS = 100;

/** The body of a ready process's `/readyz`, given the dependencies that are down (here or, for the gateway, anywhere in the fleet). */
export function readiness(down: readonly string[]): Readiness {
  return down.length === 0 ? { status: "ready" } : { status: "degraded", down: [...down] };
}

/** The NATS micro service metadata that says which dependencies are down (`nats micro info` shows it); none while all answer. */
export function downMetadata(down: readonly string[]): Record<string, string> {
  return down.length === 0 ? {} : { [DOWN_KEY]: down.join(",") };
}

/** The dependencies a micro service's metadata says are down. */
function downInMetadata(metadata: Record<string, string> | undefined): string[] {
  const listed = metadata?.[DOWN_KEY];
  return listed ? listed.split(",") : [];
}

/** One service of the fleet as `$SRV.PING` finds it: its replicas that answered, and the dependencies any of them says are down. */
export interface FleetService {
  name: string;
  instances: number;
  down: string[];
}

/**
 * Every micro service that answers `$SRV.PING` within a moment (`nats micro ping` shows the
 * same), by name, with the dependencies its metadata says are down, sorted.
 */
export async function fleetServices(nc: NatsConnection): Promise<FleetService[]> {
  const byName = new Map<string, { instances: number; down: Set<string> }>();
  const answers = await new Svcm(nc).client({ strategy: "stall", maxWait: PING_WAIT_MS, stall: PING_STALL_MS }).ping();
  for await (const identity of answers) {
    const service = byName.get(identity.name) ?? { instances: 0, down: new Set<string>() };
    service.instances += 1;
    for (const name of downInMetadata(identity.metadata)) service.down.add(name);
    byName.set(identity.name, service);
  }
  return [...byName].map(([name, { instances, down }]) => ({ name, instances, down: [...down].sort() }));
}

/** The dependencies any process of the fleet says are down, sorted (`fleetServices`, put together). */
export async function downInFleet(nc: NatsConnection): Promise<string[]> {
  const services = await fleetServices(nc);
  return [...new Set(services.flatMap((service) => service.down))].sort();
}
