import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { RetryLater } from "@switchyard/bus";
import { natsServerAvailable, startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import { ExecutionRecord_State, ExecutionRecordSchema } from "@switchyard/packet";
import { INSTANCE } from "@switchyard/telemetry";
import { callOnce, EXECUTIONS_BUCKET, UNKNOWN_OUTCOME_REASON } from "../src/idempotent-execution.js";
import type { ExecutionLedger } from "../src/idempotent-execution.js";
import type { ToolCallResult } from "../src/mcp-pool.js";

const skip = natsServerAvailable() ? undefined : "no nats-server on PATH";
const OK: ToolCallResult = { success: true, output: "appended", executionTimeMs: 1 };

describe("idempotent execution - a real JetStream KV bucket", { skip }, () => {
  let server: LocalNats;
  let nc: NatsConnection;
  let kv: KV;
  let ledger: ExecutionLedger;
  let key = 0;
  const nextKey = () => `packet-${(key += 1)}.5`;

  before(async () => {
    server = await startLocalNats();
    nc = await connect({ servers: server.url });
    kv = await new Kvm(nc).create(EXECUTIONS_BUCKET, { history: 1 });
    ledger = { kv, leaseMs: 600 };
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  /** A tool that counts its calls. */
  function counted(result: ToolCallResult = OK, delayMs = 0) {
    const tool = { calls: 0, call: async () => {
      tool.calls += 1;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return result;
    } };
    return tool;
  }

  it("idempotent execution - a second delivery reuses the recorded result without calling the tool", async () => {
    const k = nextKey();
    const tool = counted();
    assert.deepEqual(await callOnce(ledger, k, false, tool.call), { kind: "called", result: OK });
    assert.deepEqual(await callOnce(ledger, k, false, tool.call), { kind: "reused", result: OK });
    assert.equal(tool.calls, 1);
  });

  it("idempotent execution - while one caller holds the call (lease renewed past its length), another is told to retry later", async () => {
    const k = nextKey();
    const tool = counted(OK, 1500);
    const first = callOnce(ledger, k, false, tool.call);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const second = counted();
    await assert.rejects(callOnce(ledger, k, false, second.call), (error: unknown) => error instanceof RetryLater && (error.delayMs ?? 0) > 0);
    await first;
    assert.deepEqual(await callOnce(ledger, k, false, second.call), { kind: "reused", result: OK });
    assert.equal(tool.calls + second.calls, 1);
  });

  it("idempotent execution - a claim of this very process that no call holds (its answer was lost) is taken over and the write is made", async () => {
    const k = nextKey();
    // What a kv.create that reached the server, but whose answer NATS lost, leaves behind.
    await kv.create(k, claimRecord(INSTANCE, Date.now(), Date.now() + 60_000));
    const tool = counted();
    assert.deepEqual(await callOnce(ledger, k, false, tool.call), { kind: "called", result: OK });
    assert.equal(tool.calls, 1);
    assert.equal(stateOf(await kv.get(k)), ExecutionRecord_State.DONE);
  });

  it("idempotent execution - an abandoned claim: a write is not repeated (outcome unknown), a read is", async () => {
    const abandoned = claimRecord("gone:1", Date.now() - 5000, Date.now() - 1000);
    const write = nextKey();
    await kv.create(write, abandoned);
    const tool = counted();
    assert.deepEqual(await callOnce(ledger, write, false, tool.call), { kind: "unknown", reason: UNKNOWN_OUTCOME_REASON });
    const read = nextKey();
    await kv.create(read, abandoned);
    assert.deepEqual(await callOnce(ledger, read, true, tool.call), { kind: "called", result: OK });
    assert.equal(tool.calls, 1);
  });

  it("idempotent execution - a read keeps no record: each delivery calls it, and a retryable failure asks for a retry", async () => {
    const k = nextKey();
    const tool = counted();
    assert.deepEqual(await callOnce(ledger, k, true, tool.call), { kind: "called", result: OK });
    assert.deepEqual(await callOnce(ledger, k, true, tool.call), { kind: "called", result: OK });
    assert.equal(tool.calls, 2);
    assert.equal(await kv.get(k), null);
    const lost = counted({ success: false, output: null, error: "server gone", failure: "server_lost", executionTimeMs: 1 });
    await assert.rejects(callOnce(ledger, k, true, lost.call), RetryLater);
  });

  it("idempotent execution - a retryable failure releases the claim and asks for a retry; a tool's own error is final", async () => {
    const k = nextKey();
    const lost = counted({ success: false, output: null, error: "server gone", failure: "server_lost", executionTimeMs: 1 });
    await assert.rejects(callOnce(ledger, k, false, lost.call), RetryLater);
    assert.equal(stateOf(await kv.get(k)), ExecutionRecord_State.RELEASED);
    const refused: ToolCallResult = { success: false, output: null, error: "no such file", failure: "tool_error", executionTimeMs: 1 };
    const tool = counted(refused);
    assert.deepEqual(await callOnce(ledger, k, false, tool.call), { kind: "called", result: refused });
    assert.deepEqual(await callOnce(ledger, k, false, tool.call), { kind: "reused", result: refused });
    assert.equal(tool.calls, 1);
  });
});

/** A claim as an executor writes it, held by `instance` until `leaseUntil` (epoch ms). */
function claimRecord(instance: string, claimedAt: number, leaseUntil: number): Uint8Array {
  const record = { state: ExecutionRecord_State.CLAIMED, instance, claimedAt: timestampFromMs(claimedAt), leaseUntil: timestampFromMs(leaseUntil) };
  return toBinary(ExecutionRecordSchema, create(ExecutionRecordSchema, record));
}

function stateOf(entry: { value: Uint8Array } | null): ExecutionRecord_State | undefined {
  return entry ? fromBinary(ExecutionRecordSchema, entry.value).state : undefined;
}
