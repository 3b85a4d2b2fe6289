/**
 * The packets stopped for a person (waiting for an approval, or for the user's answer), read
 * from the packets bucket for the operators' metrics. Nothing ends an approval when its time
 * runs out: the packet waits until someone answers (an answer after the expiry ends it), so
 * expiries are found here, by the clock, and each is counted once.
 */
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { decodePacketApprovalSummary, Packet_State } from "@switchyard/packet";
import type { StoredPacket } from "./stored-packets.js";

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

/** The waiting packets, fed by the bucket's watch (`observe`, stored-packets.ts), read at each scrape (`read`). */
export class WaitingPackets {
  private readonly waiting = new Map<string, Waiting>();

  /** `retentionMs`: the bucket's entry lifetime; an entry older than that is gone from it without a delete. */
  constructor(private readonly retentionMs: number) {}

  /** One stored packet, or its deletion (no bytes): an observer of followStoredPackets. */
  readonly observe = ({ key, bytes, summary, storedAt }: StoredPacket): void => {
    const state = summary?.state;
    if (!bytes || state === undefined || !WAITING_STATES.includes(state)) {
      this.waiting.delete(key);
      return;
    }
    const expiry = state === Packet_State.AWAITING_APPROVAL ? decodePacketApprovalSummary(bytes).toolRouting?.approval?.expiresAt : undefined;
    this.waiting.set(key, { state, storedAt, ...(expiry ? { expiresAt: timestampDate(expiry).getTime() } : {}) });
  };

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
