import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/nats-core";
import { doneListenerWildcard, doneSubject } from "@switchyard/bus";

/** A wait for one packet's end: its bytes as announced, or undefined when the time ran out or it was cancelled. */
export interface PacketEnding {
  bytes: Promise<Uint8Array | undefined>;
  cancel(): void;
}

/**
 * The ends of the packets this gateway waits for, on one subscription: each packet it
 * sends names `switchyard.done.<this gateway>.<packet id>` as where its end is announced,
 * so a wait costs a map entry and a timer, not a subscription opened and closed on the
 * server per packet, and no other gateway replica receives it.
 */
export function packetEndings(nc: NatsConnection) {
  const listener = randomUUID();
  const waiting = new Map<string, (bytes: Uint8Array | undefined) => void>();
  nc.subscribe(doneListenerWildcard(listener), {
    callback: (error, msg) => {
      // the packet id is the subject's last token (ids are single tokens)
      if (!error) waiting.get(msg.subject.slice(msg.subject.lastIndexOf(".") + 1))?.(msg.data);
    },
  });
  return {
    /** Where the packet's end is announced to this gateway. */
    subjectOf: (packetId: string) => doneSubject(packetId, listener),

    /** Begins waiting for the packet's end, for at most `timeoutMs`. */
    await(packetId: string, timeoutMs: number): PacketEnding {
      let settle!: (bytes: Uint8Array | undefined) => void;
      const bytes = new Promise<Uint8Array | undefined>((resolve) => {
        const timer = setTimeout(() => settle(undefined), timeoutMs);
        settle = (ended) => {
          clearTimeout(timer);
          waiting.delete(packetId);
          resolve(ended);
        };
      });
      waiting.set(packetId, settle);
      return { bytes, cancel: () => settle(undefined) };
    },
  };
}
