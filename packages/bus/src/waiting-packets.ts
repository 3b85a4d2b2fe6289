/**
 * The packets stopped for a person (waiting for an approval, or for the user's answer), read
 * from the packets bucket for the operators' metrics. Nothing ends an approval when its time
 * runs out: the packet waits until someone answers (an answer after the expiry ends it), so
 * expiries are found here, by the clock, and each is counted once.
 */
import type { KV } from "@nats-io/kv";
import { KvWatchInclude } from "@nats-io/kv";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { decodePacketApprovalSummary, decodePacketSummary, Packet_State } from "@switchyard/packet";

interface Waiting {
  state: Packet_State;
  storedAt: number;
  /** The approval's expiry (ms); undefined for a packet waiting for the user, or once its expiry is counted. */
  expiresAt?: number;
}

/** What a read of the tally finds: the waiting packets by state, and the approvals newly past their time. */
export interface WaitingRead {
  byState: Map<string, number>;
  newlyExpired: number;
}

const WAITING_STATES = [Packet_State.AWAITING_APPROVAL, Packet_State.AWAITING_USER];

/** The waiting packets, fed by the bucket's entries (`observe`), read at each scrape (`read`). */
export class WaitingPackets {
  private readonly waiting = new Map<string, Waiting>();

  /** `retentionMs`: the bucket's entry lifetime; an entry older than that is gone from it without a delete. */
  constructor(private readonly retentionMs: number) {}

  /** One stored packet (or its deletion: `value` undefined); `storedAt` is the entry's time. */
  observe(key: string, value: Uint8Array | undefined, storedAt: number): void {
    const state = value && value.length > 0 ? decodePacketSummary(value).state : undefined;
    if (state === undefined || !WAITING_STATES.includes(state)) {
      this.waiting.delete(key);
      return;
    }
    const expiry = state === Packet_State.AWAITING_APPROVAL ? decodePacketApprovalSummary(value!).toolRouting?.approval?.expiresAt : undefined;
    this.waiting.set(key, { state, storedAt, ...(expiry ? { expiresAt: timestampDate(expiry).getTime() } : {}) });
  }

  /** The waiting packets by state name, and how many approvals ran out of time since the last read. */
  read(now = Date.now()): WaitingRead {
    const byState = new Map(WAITING_STATES.map((state) => [Packet_State[state], 0]));
    let newlyExpired = 0;
    for (const [key, entry] of this.waiting) {
      if (entry.storedAt + this.retentionMs < now) {
        this.waiting.delete(key);
        continue;
      }
      const name = Packet_State[entry.state];
      byState.set(name, byState.get(name)! + 1);
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) {
        newlyExpired += 1;
        delete entry.expiresAt;
      }
    }
    return { byState, newlyExpired };
  }
}

/**
 * Feeds `tally` every packet in the bucket (each key's last value, from the start) and every
 * change after; the watch is an ordered consumer that resumes after NATS comes back. Returns
 * its stop. A value that does not decode is reported to `onError` and skipped.
 */
export async function followWaitingPackets(packets: KV, tally: WaitingPackets, onError: (error: unknown) => void): Promise<() => void> {
  const watch = await packets.watch({ include: KvWatchInclude.LastValue });
  void (async () => {
    for await (const entry of watch) {
      try {
        tally.observe(entry.key, entry.operation === "PUT" ? entry.value : undefined, entry.created.getTime());
      } catch (error) {
        onError(error);
      }
    }
  })();
  return () => watch.stop();
}
