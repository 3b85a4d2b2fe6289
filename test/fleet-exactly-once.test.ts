import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { PACKETS_STREAM, packetSubject } from "@switchyard/bus";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";
import { reportFaultRun } from "./faults-report.js";

const skip = fleetSkipReason();
/** The tool sleeps this long before it appends: longer than the executors' ack wait (2 s). */
const TOOL_DELAY_MS = 8000;

describe("fleet exactly once - two executors, a tool slower than the ack wait, forced redelivery", { skip }, () => {
  let t: TestFleet;
  let dir: string;
  let sideEffects: string;
  let nc: NatsConnection;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-exactly-once-"));
    sideEffects = join(dir, "side-effects.txt");
    t = await startTestFleet({
      env: {
        SWITCHYARD_CONFIG: fileURLToPath(new URL("fixtures/side-effects.yaml", import.meta.url)),
        SIDE_EFFECT_FILE: sideEffects,
      },
      replicas: { executor: 2 },
      // The machine may be busy; a slow start is not what this test is about.
      readyTimeoutMs: 60_000,
      serviceEnv: {
        reviewer: { ALLOW_WRITE_TOOLS: "true", TRUSTED_TOOLS: "journal.append_line, journal.always_fail" },
        // A short ack wait and lease: without working() and the claim, every call would be redelivered and repeated.
        executor: { STAGE_ACK_WAIT_MS: "2000", EXECUTION_LEASE_MS: "3000", STAGE_RETRY_DELAY_MS: "500", STAGE_MAX_DELIVER: "10" },
      },
    });
    nc = await connect({ servers: t.nats.url });
  });

  after(async () => {
    await nc?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lines = (text: string) =>
    existsSync(sideEffects) ? readFileSync(sideEffects, "utf8").split("\n").filter((line) => line === text).length : 0;

  async function send(text: string, delayMs: number): Promise<string> {
    const waiting = delayMs > 0 ? `, waiting ${delayMs} ms` : "";
    const { status, json } = await t.post("/v1/packets", {
      message: `append the line '${text}' to the journal${waiting}`,
      tools: ["journal.append_line"],
      wait: false,
    });
    assert.equal(status, 202, JSON.stringify(json));
    return json.packetId as string;
  }

  async function finished(packetId: string): Promise<any> {
    return eventually(async () => {
      const r = await t.get(`/v1/packets/${packetId}`);
      return r.json?.state === "COMPLETED" || r.json?.state === "FAILED" ? r.json : undefined;
    }, 120_000, `packet ${packetId} to finish`);
  }

  it("fleet exactly once - redelivered, duplicated and orphaned calls append one line per packet", async () => {
    const jsm = await jetstreamManager(nc);
    const texts = Array.from({ length: 6 }, (_, i) => `eo-${i}`);
    const ids = await Promise.all(texts.map((text) => send(text, TOOL_DELAY_MS)));
    // The executors hold calls now (packets reach them at their own pace); the ack wait passes several times while the tool sleeps.
    await eventually(async () => ((await jsm.consumers.info(PACKETS_STREAM, "execute")).num_ack_pending >= ids.length / 2 ? true : undefined), 60_000, "the executors to hold half the packets");

    // A duplicate of a packet in flight, as a publisher retrying without its message id would make it.
    const inFlight = await jsm.streams.getMessage(PACKETS_STREAM, { last_by_subj: packetSubject("execute") });
    assert.ok(inFlight);
    await jetstream(nc).publish(packetSubject("execute"), inFlight.data);

    // One executor dies mid-call; its calls' claims are left behind. A new one takes its place.
    const [victim] = t.fleet.replicasOf("executor");
    await t.fleet.killProcess(victim!);
    await t.fleet.start("executor");

    const results = await Promise.all(ids.map(finished));
    const counts = texts.map(lines);
    for (const [index, packet] of results.entries()) {
      const count = counts[index]!;
      if (packet.state === "COMPLETED") {
        assert.equal(packet.toolRouting.executionStatus, "EXECUTED", JSON.stringify(packet.reasoning.reflectionLog));
        assert.equal(count, 1, `${texts[index]} appended once`);
      } else {
        // The dead executor's write call: its outcome is unknown, so it is not made again.
        assert.match(packet.stateReason, /outcome unknown: executor lost during the call/, packet.stateReason);
        assert.ok(count <= 1, `${texts[index]} appended at most once`);
      }
    }
    assert.ok(results.some((p) => p.state === "COMPLETED"), "the surviving executor's calls complete");
    // The duplicate is consumed too, without a second line.
    await eventually(async () => ((await jsm.streams.info(PACKETS_STREAM)).state.messages === 0 ? true : undefined), 60_000, "the packet stream to drain");
    assert.deepEqual(texts.map(lines), counts, "nothing appended after the packets finished");
    const duplicates = counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    assert.equal(duplicates, 0);
    reportFaultRun({
      test: "two executors, forced redelivery",
      sent: ids.length,
      completed: results.length,
      lost: ids.length - results.length,
      duplicateSideEffects: duplicates,
    });
  });

  it("fleet exactly once - with every executor down, packets wait in the stream and complete when one returns", async () => {
    await t.fleet.kill("executor");
    const jsm = await jetstreamManager(nc);
    const texts = Array.from({ length: 3 }, (_, i) => `wait-${i}`);
    const ids = await Promise.all(texts.map((text) => send(text, 0)));
    await eventually(async () => ((await jsm.consumers.info(PACKETS_STREAM, "execute")).num_pending === ids.length ? true : undefined), 60_000, "the packets to wait at the execute stage");
    await t.fleet.start("executor");
    const results = await Promise.all(ids.map(finished));
    for (const packet of results) assert.equal(packet.state, "COMPLETED", JSON.stringify(packet.reasoning.reflectionLog));
    const counts = texts.map(lines);
    assert.deepEqual(counts, [1, 1, 1]);
    reportFaultRun({
      test: "a stage with no consumers",
      sent: ids.length,
      completed: results.length,
      lost: ids.length - results.length,
      duplicateSideEffects: counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
    });
  });
});
