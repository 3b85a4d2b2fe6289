import { Packet_State } from "@switchyard/packet";
import type { PacketSummary } from "@switchyard/packet";
import { GatewayError } from "../shared/deps.js";
import type { StoredPacketObserver } from "@switchyard/bus";

/** States in which a packet no longer occupies the fleet: finished, or waiting on a person. */
export const AT_REST: ReadonlySet<Packet_State> = new Set([Packet_State.COMPLETED, Packet_State.FAILED, Packet_State.AWAITING_APPROVAL, Packet_State.AWAITING_USER]);

/**
 * The packets each tenant has in flight, for MAX_CONCURRENT_PACKETS. It learns
 * from the packets bucket, where the gateway stores a packet before publishing
 * it and a stage stores it when it finishes or waits, so every gateway replica
 * sees the packets of the others too (a little after they are stored). Packets
 * in flight before this replica started are not known to it.
 */
export class LivePackets {
  private readonly byTenant = new Map<string, Set<string>>();

  /** 0: unlimited, and nothing is counted (no watch of the bucket tells it when packets end). */
  constructor(private readonly maxPerTenant: number) {}

  /** Counts a new packet for its tenant, or throws "limited" when the tenant is at its limit. */
  admit(tenant: string, packetId: string): void {
    if (this.maxPerTenant === 0) return;
    const live = this.byTenant.get(tenant) ?? new Set<string>();
    if (this.maxPerTenant > 0 && live.size >= this.maxPerTenant) {
      throw new GatewayError(
        "limited",
        `${live.size} packets of this tenant are in flight (MAX_CONCURRENT_PACKETS ${this.maxPerTenant}); wait for one to finish`,
      );
    }
    live.add(packetId);
    this.byTenant.set(tenant, live);
  }

  /** Forgets a packet that was never accepted (its publish failed). */
  release(tenant: string, packetId: string): void {
    const live = this.byTenant.get(tenant);
    live?.delete(packetId);
    if (live?.size === 0) this.byTenant.delete(tenant);
  }

  /** A stored packet: in flight, or at rest. */
  observe(packet: Pick<PacketSummary, "header" | "state">): void {
    const { tenant, packetId } = packet.header ?? { tenant: "", packetId: "" };
    if (!packetId) return;
    if (AT_REST.has(packet.state)) this.release(tenant, packetId);
    else this.byTenant.set(tenant, (this.byTenant.get(tenant) ?? new Set<string>()).add(packetId));
  }

  count(tenant: string): number {
    return this.byTenant.get(tenant)?.size ?? 0;
  }
}

/**
 * The feed's observer for `live` (stored-packets.ts in @switchyard/bus): the packets stored from the gateway's start
 * on; those already in the bucket are not counted, as the comment on LivePackets says.
 */
export function livePacketsObserver(live: LivePackets): StoredPacketObserver {
  return ({ summary, update }) => {
    if (update && summary) live.observe(summary);
  };
}
