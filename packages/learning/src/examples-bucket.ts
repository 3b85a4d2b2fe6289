import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { catalogKey, followBucket } from "@switchyard/bus";
import { decodeToolExamples, emptyExamples, encodeToolExamples } from "./tool-examples.js";
import type { ToolExamples } from "./tool-examples.js";

/** Attempts at a read-modify-write before giving up; only concurrent writers to the same tool need more than one. */
const MAX_ATTEMPTS = 25;
/** Longest random pause before a retry, so that writers that collided do not collide again in lockstep. */
const MAX_BACKOFF_MS = 20;

/** A tool's stored examples; none when the bucket has no entry for it. Keys are the catalog's (`catalogKey`). */
export async function readToolExamples(bucket: KV, tool: string): Promise<ToolExamples> {
  const entry = await bucket.get(catalogKey(tool));
  return entry?.operation === "PUT" ? decodeToolExamples(entry.value, tool) : emptyExamples(tool);
}

/**
 * Changes a tool's stored examples: reads them, applies `change` (undefined:
 * nothing to write) and writes back only if nobody wrote in between (the
 * entry's revision), retrying otherwise, so replicas and gateways may write at
 * once. Returns the examples as stored afterwards.
 */
export async function updateToolExamples(
  bucket: KV,
  tool: string,
  change: (current: ToolExamples) => ToolExamples | undefined,
): Promise<ToolExamples> {
  const key = catalogKey(tool);
  for (let attempt = 1; ; attempt++) {
    const entry = await bucket.get(key);
    const current = entry?.operation === "PUT" ? decodeToolExamples(entry.value, tool) : emptyExamples(tool);
    const next = change(current);
    if (next === undefined) return current;
    try {
      if (entry) await bucket.update(key, encodeToolExamples(next), entry.revision);
      else await bucket.create(key, encodeToolExamples(next));
      return next;
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isWriteConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_BACKOFF_MS));
    }
  }
}

/** Loads every tool's examples into the listener, then follows every change (see `followBucket`). */
export function followExamples(
  bucket: KV,
  listener: { upsert(examples: ToolExamples, key: string): void; remove(key: string): void },
): Promise<{ stop(): void }> {
  return followBucket(bucket, (bytes) => decodeToolExamples(bytes), listener);
}

/** Someone else wrote the entry since we read it. */
function isWriteConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}
