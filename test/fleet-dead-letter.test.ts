import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, headers } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { DEAD_LETTERS_STREAM, Headers, PACKETS_STREAM, packetSubject } from "@switchyard/bus";
import type { DeadLetterAdvisory } from "@switchyard/bus";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";
import { reportFaultRun } from "./faults-report.js";

const skip = fleetSkipReason();
const MAX_DELIVER = 3;
/** Every packet's deadline: long enough for the other cases, shorter than the hanging call below. */
const DEADLINE_MS = 20_000;

/** Lines of the side-effect server's file that start with `prefix`. */
function linesOf(file: string, prefix: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, "utf8").split("\n").filter((line) => line.startsWith(prefix)).length;
}

describe("fleet dead letters - packets JetStream gives up on end FAILED with the reason", { skip }, () => {
  let t: TestFleet;
  let dir: string;
  let sideEffects: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-dead-letter-"));
    sideEffects = join(dir, "side-effects.txt");
    t = await startTestFleet({
      env: {
        SWITCHYARD_CONFIG: fileURLToPath(new URL("fixtures/side-effects.yaml", import.meta.url)),
        SIDE_EFFECT_FILE: sideEffects,
      },
      // The machine may be busy; a slow start is not what this test is about.
      readyTimeoutMs: 60_000,
      serviceEnv: {
        gateway: { PACKET_DEADLINE_MS: String(DEADLINE_MS) },
        reviewer: { ALLOW_WRITE_TOOLS: "true", TRUSTED_TOOLS: "journal.always_fail, journal.append_line" },
        // Few, quick deliveries, so the test need not wait JetStream's defaults.
        executor: { STAGE_MAX_DELIVER: String(MAX_DELIVER), STAGE_ACK_WAIT_MS: "2000", STAGE_RETRY_DELAY_MS: "200" },
      },
    });
  });

  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("fleet dead letters - a tool whose server always dies is tried exactly max_deliver times, dead-lettered, and the packet ends FAILED with the reason", async () => {
    const { status, json } = await t.post("/v1/packets", {
      message: "submit the report 'dl-1' in crash mode",
      tools: ["journal.always_fail"],
      wait: false,
    });
    assert.equal(status, 202, JSON.stringify(json));
    const failed = await eventually(async () => {
      const r = await t.get(`/v1/packets/${json.packetId}`);
      return r.json?.state === "FAILED" ? r.json : undefined;
    }, 90_000, "the packet to end FAILED");

    assert.match(failed.stateReason, new RegExp(`^gave up after ${MAX_DELIVER} deliveries at stage execute: `), failed.stateReason);
    assert.match(failed.stateReason, /journal\.always_fail/, "the reason names the last error");
    assert.equal(linesOf(sideEffects, "attempt dl-1"), MAX_DELIVER, "one attempt per delivery, no more");

    const nc = await connect({ servers: t.nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const record = await jsm.streams.getMessage(DEAD_LETTERS_STREAM, {
        last_by_subj: `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${PACKETS_STREAM}.execute`,
      });
      assert.ok(record, "a dead-letter record");
      const advisory = record.json<DeadLetterAdvisory>();
      assert.equal(advisory.deliveries, MAX_DELIVER);
      // The given-up message is removed from the work queue once its packet is FAILED.
      await eventually(async () => ((await jsm.streams.info(PACKETS_STREAM)).state.messages === 0 ? true : undefined), 30_000, "the packet stream to be empty");
    } finally {
      await nc.close();
    }
    // Another try after the dead letter changes nothing: the file holds exactly the attempts counted.
    const attempts = linesOf(sideEffects, "attempt dl-1");
    assert.equal(attempts, MAX_DELIVER);
    // Its side effects are its attempts: one per allowed delivery is the design, beyond that a duplicate.
    reportFaultRun({ test: "a tool that always fails", sent: 1, completed: failed ? 1 : 0, lost: failed ? 0 : 1, duplicateSideEffects: Math.max(0, attempts - MAX_DELIVER) });
  });

  it("fleet dead letters - a call that outlasts the packet's deadline is cut to it, its server killed, and the packet ends FAILED at the deadline", async () => {
    const { status, json } = await t.post("/v1/packets", {
      message: `append the line 'too-late' to the journal, waiting ${DEADLINE_MS + 10_000} ms`,
      tools: ["journal.append_line"],
      wait: false,
    });
    assert.equal(status, 202, JSON.stringify(json));
    const failed = await eventually(async () => {
      const r = await t.get(`/v1/packets/${json.packetId}`);
      return r.json?.state === "FAILED" ? r.json : undefined;
    }, 90_000, "the packet to end FAILED at its deadline");
    assert.equal(failed.stateReason, "deadline exceeded at execute", JSON.stringify(failed.reasoning.reflectionLog));
    // The hung server was killed when its call timed out, so the late append never happens.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    assert.equal(linesOf(sideEffects, "too-late"), 0);
  });

  it("fleet dead letters - a message that is no packet is terminated and its packet id ends FAILED with the reason", async () => {
    const nc = await connect({ servers: t.nats.url });
    try {
      const h = headers();
      h.set(Headers.PacketId, "not-a-packet-1");
      // The tenant the local-mode gateway reads packets as.
      h.set(Headers.Tenant, "local");
      await jetstream(nc).publish(packetSubject("intent"), new Uint8Array([0xff, 0xff, 0xff]), { headers: h });
    } finally {
      await nc.close();
    }
    const failed = await eventually(async () => {
      const r = await t.get("/v1/packets/not-a-packet-1");
      return r.json?.state === "FAILED" ? r.json : undefined;
    }, 60_000, "the terminated packet to end FAILED");
    assert.match(failed.stateReason, /^terminated at stage intent: invalid packet message/, failed.stateReason);
  });
});
