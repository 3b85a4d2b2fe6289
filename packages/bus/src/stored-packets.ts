/**
 * The gateway's one watch of the packets bucket: the concurrency count and the console's index
 * of recent packets (the gateway's live-packets.ts, recent-packets.ts) and the operators' tally
 * of packets waiting for a person (waiting-packets.ts) all learn from it, so each stored packet
 * is fetched and its header decoded once.
 */
import type { KV } from "@nats-io/kv";
import { KvWatchInclude } from "@nats-io/kv";
import { decodePacketSummary } from "@switchyard/packet";
import type { PacketSummary } from "@switchyard/packet";

/** One entry of the bucket as the watch delivers it. */
export interface StoredPacket {
  /** The bucket key: the packet's id. */
  key: string;
  /** The stored bytes and their header and state; both undefined for a deletion. */
  bytes?: Uint8Array;
  summary?: PacketSummary;
  /** When the entry was stored (ms since the epoch). */
  storedAt: number;
  /**
   * False for the bucket's values from before the watch began, true for every change after
   * (nats.js counts the last of those values as a change too).
   */
  update: boolean;
}

export type StoredPacketObserver = (entry: StoredPacket) => void;

/**
 * Feeds each observer every packet in the bucket (each key's last value, from the start) and
 * every change after, in order. The watch is an ordered consumer: it resumes where it was after
 * NATS comes back. A value that does not decode, or an observer that throws, is reported to
 * `onError` and skipped. Returns its stop.
 */
export async function followStoredPackets(packets: KV, observers: readonly StoredPacketObserver[], onError: (error: unknown) => void): Promise<() => void> {
  const watch = await packets.watch({ include: KvWatchInclude.LastValue });
  void (async () => {
    for await (const entry of watch) {
      const stored: StoredPacket = { key: entry.key, storedAt: entry.created.getTime(), update: entry.isUpdate };
      try {
        if (entry.operation === "PUT" && entry.value.length > 0) {
          stored.bytes = entry.value;
          stored.summary = decodePacketSummary(entry.value);
        }
      } catch (error) {
        onError(error);
        continue;
      }
      for (const observe of observers) {
        try {
          observe(stored);
        } catch (error) {
          onError(error);
        }
      }
    }
  })();
  return () => watch.stop();
}
