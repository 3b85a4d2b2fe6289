import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { JsMsg } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { AttemptSchema } from "@switchyard/packet";
import type { Attempt } from "@switchyard/packet";
import { Headers } from "./headers.js";

/**
 * The last failed delivery of each packet message, keyed by its stream sequence: a nak
 * carries no reason, so this is where the dead-letter record finds why a packet kept
 * failing. Entries expire (see ATTEMPTS_TTL_MS); nothing else reads them.
 */
export const ATTEMPTS_BUCKET = "switchyard-attempts";
export const ATTEMPTS_TTL_MS = 24 * 60 * 60 * 1000;

/** The record kept (proto `Attempt`, records.proto). */
export type { Attempt };

function attemptKey(streamSequence: number): string {
  return `seq-${streamSequence}`;
}

/** Keeps why this delivery failed, and whether the stage terminated it; without a bucket, nothing. */
export async function recordAttempt(attempts: KV | undefined, msg: JsMsg, stage: string, error: string, terminated = false): Promise<void> {
  if (!attempts) return;
  const attempt = create(AttemptSchema, {
    stage,
    packetId: msg.headers?.get(Headers.PacketId) ?? "",
    tenant: msg.headers?.get(Headers.Tenant) ?? "",
    deliveries: msg.info.deliveryCount,
    error,
    terminated,
    at: timestampNow(),
  });
  await attempts.put(attemptKey(msg.info.streamSequence), toBinary(AttemptSchema, attempt));
}

/** The last failed delivery of the message at `streamSequence`, if one was kept. */
export async function readAttempt(attempts: KV, streamSequence: number): Promise<Attempt | undefined> {
  const entry = await attempts.get(attemptKey(streamSequence));
  if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
  return fromBinary(AttemptSchema, entry.value);
}

/** Forgets a message's attempts once its packet has ended. */
export async function forgetAttempt(attempts: KV, streamSequence: number): Promise<void> {
  await attempts.delete(attemptKey(streamSequence));
}
