/**
 * Exactly-once tool calls on top of at-least-once delivery. Before calling a tool the
 * executor claims the key `<packet id>.<hop>` in the executions bucket with `kv.create`
 * (first writer wins); the record says who holds it, until when (a lease the holder
 * renews while the call runs), and, once done, the result. A packet delivered again, or
 * published twice, finds that record:
 *
 * | record                          | what happens                                              |
 * | ------------------------------- | --------------------------------------------------------- |
 * | none                            | claim it, call the tool                                   |
 * | done                            | reuse the recorded result; the tool is not called         |
 * | claimed, lease alive            | another executor is calling it: retry after the lease     |
 * | claimed, lease over             | the holder died mid-call, the outcome is unknown: FAILED  |
 * | released (a retryable failure)  | claim it again, call the tool                             |
 * | claimed by this very process,   | the claim's answer was lost (NATS away), the call never   |
 * | which is not calling it         | started: take it over, call the tool                      |
 *
 * A result is stored before the packet moves on, retried while NATS is away: a call that
 * ran but whose result was never stored would later look abandoned.
 *
 * A tool that only reads (READ) keeps no record: calling it again on a redelivery does
 * nothing a second time, so the claim, its renewals and the stored result (two to three
 * KV round trips per call, and a second copy of the output) would buy nothing.
 */
import type { KV } from "@nats-io/kv";
import { setTimeout as sleep } from "node:timers/promises";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { isNatsFailure, RetryLater } from "@switchyard/bus";
import { ExecutionRecord_State, ExecutionRecordSchema, fromValue, ToolCallOutcomeSchema, toValue } from "@switchyard/packet";
import type { ExecutionRecord, ToolCallOutcome } from "@switchyard/packet";
import { INSTANCE } from "@switchyard/telemetry";
import { isRetryableFailure } from "./mcp-pool.js";
import type { McpFailure, ToolCallResult } from "./mcp-pool.js";

export const EXECUTIONS_BUCKET = "switchyard-executions";
/** Records outlive any redelivery or duplicate (JetStream's duplicate window is 2 minutes), then expire. */
export const EXECUTIONS_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The record kept per call (proto `ExecutionRecord`, records.proto). */
export type { ExecutionRecord };

export interface ExecutionLedger {
  kv: KV;
  /** How long a claim holds without renewal; the holder renews it every third of that. */
  leaseMs: number;
}

/** Keys this process is calling a tool for now; a claim of ours that is not here never started its call. */
const calling = new Set<string>();

export type OnceOutcome = { kind: "called" | "reused"; result: ToolCallResult } | { kind: "unknown"; reason: string };

export const UNKNOWN_OUTCOME_REASON =
  "outcome unknown: executor lost during the call; not retried to avoid a duplicate side effect";

/** The idempotency key of a tool call: the packet and the hop it arrived with. */
export function executionKey(packetId: string, hop: number): string {
  return `${packetId}.${hop}`;
}

/**
 * Calls the tool at most once for `key` (see the module table). `retrySafe`: the tool only
 * reads, so it is called with no record at all. A failure that another try may pass
 * (isRetryableFailure) releases the claim and throws RetryLater, so the packet is delivered
 * again until its deliveries are spent.
 */
export async function callOnce(
  ledger: ExecutionLedger,
  key: string,
  retrySafe: boolean,
  call: () => Promise<ToolCallResult>,
): Promise<OnceOutcome> {
  if (retrySafe) {
    const result = await call();
    if (!result.success && isRetryableFailure(result.failure)) throw new RetryLater(result.error ?? "the tool call failed");
    return { kind: "called", result };
  }
  const claim = await takeClaim(ledger, key);
  if (claim.kind !== "claimed") return claim;
  let revision = claim.revision;
  let record = claim.record;
  const renew = setInterval(() => {
    record = { ...record, leaseUntil: timestampFromMs(Date.now() + ledger.leaseMs) };
    // A failed renewal (NATS away) is retried on the next tick; the lease is three ticks long.
    ledger.kv.update(key, encodeRecord(record), revision).then((next) => (revision = next), () => undefined);
  }, Math.max(50, Math.floor(ledger.leaseMs / 3)));
  let result: ToolCallResult;
  calling.add(key);
  try {
    result = await call();
    if (!result.success && isRetryableFailure(result.failure)) {
      await storeUntilStored(ledger, key, { ...record, state: ExecutionRecord_State.RELEASED, error: result.error ?? "" });
      throw new RetryLater(result.error ?? "the tool call failed");
    }
    await storeUntilStored(ledger, key, { ...record, state: ExecutionRecord_State.DONE, result: outcomeOf(result) });
  } finally {
    clearInterval(renew);
    calling.delete(key);
  }
  return { kind: "called", result };
}

/** Writes the call's record, waiting out a NATS outage: once the tool ran, its record must not be lost. */
async function storeUntilStored(ledger: ExecutionLedger, key: string, record: ExecutionRecord): Promise<void> {
  for (;;) {
    try {
      await ledger.kv.put(key, encodeRecord(record));
      return;
    } catch (error) {
      if (!isNatsFailure(error)) throw error;
      await sleep(250);
    }
  }
}

type Claim = { kind: "claimed"; revision: number; record: ExecutionRecord } | Exclude<OnceOutcome, { kind: "called" }>;

async function takeClaim(ledger: ExecutionLedger, key: string): Promise<Claim> {
  const now = Date.now();
  const mine = create(ExecutionRecordSchema, {
    state: ExecutionRecord_State.CLAIMED,
    instance: INSTANCE,
    claimedAt: timestampFromMs(now),
    leaseUntil: timestampFromMs(now + ledger.leaseMs),
  });
  // Two rounds: a record can change between the failed create and the read.
  for (let round = 0; round < 2; round += 1) {
    try {
      return { kind: "claimed", revision: await ledger.kv.create(key, encodeRecord(mine)), record: mine };
    } catch (error) {
      const entry = await ledger.kv.get(key);
      if (!entry || entry.operation !== "PUT") {
        if (round === 0) continue;
        throw error;
      }
      const found = fromBinary(ExecutionRecordSchema, entry.value);
      if (found.state === ExecutionRecord_State.DONE && found.result) return { kind: "reused", result: resultOf(found.result) };
      const claimed = found.state === ExecutionRecord_State.CLAIMED;
      const lostClaim = claimed && found.instance === INSTANCE && !calling.has(key);
      const leaseLeftMs = (found.leaseUntil ? timestampMs(found.leaseUntil) : 0) - Date.now();
      if (claimed && !lostClaim && leaseLeftMs > 0) {
        throw new RetryLater(`the call is in progress at ${found.instance}`, leaseLeftMs + 100);
      }
      if (claimed && !lostClaim) return { kind: "unknown", reason: UNKNOWN_OUTCOME_REASON };
      try {
        return { kind: "claimed", revision: await ledger.kv.update(key, encodeRecord(mine), entry.revision), record: mine };
      } catch {
        // Another executor took it over first; look again.
      }
    }
  }
  throw new RetryLater(`the call's record at ${key} keeps changing`);
}

function encodeRecord(record: ExecutionRecord): Uint8Array {
  return toBinary(ExecutionRecordSchema, record);
}

/** A call's result as the record keeps it. */
function outcomeOf(result: ToolCallResult): ToolCallOutcome {
  return create(ToolCallOutcomeSchema, {
    success: result.success,
    output: toValue(result.output),
    error: result.error ?? "",
    failure: result.failure ?? "",
    executionTimeMs: result.executionTimeMs,
  });
}

/** The recorded result, as the call returned it. */
function resultOf(outcome: ToolCallOutcome): ToolCallResult {
  return {
    success: outcome.success,
    output: fromValue(outcome.output),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.failure ? { failure: outcome.failure as McpFailure } : {}),
    executionTimeMs: outcome.executionTimeMs,
  };
}
