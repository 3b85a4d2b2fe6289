import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Packet } from "@switchyard/packet";

/** Sets the packet's deadline `budgetMs` from now; a budget of 0 means none. */
export function setDeadline(packet: Packet, budgetMs: number): void {
  if (budgetMs > 0 && packet.header) packet.header.deadline = timestampFromMs(Date.now() + budgetMs);
}

/** Milliseconds left before the packet's deadline (negative once past it); undefined when it has none. */
export function remainingMs(packet: Packet): number | undefined {
  const deadline = packet.header?.deadline;
  return deadline ? timestampDate(deadline).getTime() - Date.now() : undefined;
}

/** A call's timeout, cut to the time the packet has left (at least 1 ms, so the call fails rather than hangs). */
export function cappedTimeoutMs(packet: Packet, timeoutMs: number): number {
  const left = remainingMs(packet);
  return left === undefined ? timeoutMs : Math.max(1, Math.min(timeoutMs, left));
}
