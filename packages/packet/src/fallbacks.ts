import { create } from "@bufbuild/protobuf";
import { FallbackSchema } from "./gen/switchyard/v1/packet_pb.js";
import type { Fallback, Packet } from "./gen/switchyard/v1/packet_pb.js";

/**
 * Records that a stage decided the packet without a dependency it is configured with; one
 * record per stage and dependency, the latest kept (a reinjected packet meets the same
 * outage again). The stage's runtime counts it (`switchyard_fallbacks_total`).
 */
export function addFallback(packet: Packet, fallback: Pick<Fallback, "stage" | "dependency" | "cause" | "detail">): void {
  const record = create(FallbackSchema, fallback);
  const at = packet.fallbacks.findIndex((f) => f.stage === fallback.stage && f.dependency === fallback.dependency);
  if (at >= 0) packet.fallbacks[at] = record;
  else packet.fallbacks.push(record);
}

/** `reason`, followed by what each fallback stood in for: a finished packet's stateReason names every outage that decided it. */
export function withFallbacks(reason: string, fallbacks: readonly Fallback[]): string {
  if (fallbacks.length === 0) return reason;
  return `${reason}${/[.?!]$/.test(reason) ? "" : "."} Decided without: ${fallbacks.map((f) => f.detail).join("; ")}.`;
}
