import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { PACKETS_STREAM } from "@switchyard/bus";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();

describe("fleet faults - a stage process dies while it holds a packet", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet({
      env: { SWITCHYARD_CONFIG: fileURLToPath(new URL("fixtures/everything.yaml", import.meta.url)) },
      // Redeliver soon after the crash, so the test need not wait the default 30 s.
      serviceEnv: { executor: { STAGE_ACK_WAIT_MS: "2000" } },
    });
  });

  after(async () => {
    await t?.close();
  });

  it("fleet faults - the executor is killed mid-call; its replacement gets the packet again and finishes it", async () => {
    const { status, json } = await t.post("/v1/packets", {
      message: "trigger the long running operation for 3 seconds",
      wait: false,
    });
    assert.equal(status, 202);
    const nc = await connect({ servers: t.nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      // The executor holds the packet (delivered, not acknowledged) while the tool runs.
      await eventually(async () => ((await jsm.consumers.info(PACKETS_STREAM, "execute")).num_ack_pending === 1 ? true : undefined), 10_000, "the executor to hold the packet");
      const killed = t.fleet.processes.get("executor")!.child.pid;
      await t.fleet.kill("executor");
      const replacement = await t.fleet.start("executor");

      const done = await eventually(async () => {
        const r = await t.get(`/v1/packets/${json.packetId}`);
        return r.json?.state === "COMPLETED" ? r.json : undefined;
      }, 20_000, "the packet to complete");
      assert.equal(done.toolRouting.executionStatus, "EXECUTED", JSON.stringify(done.reasoning.reflectionLog));
      assert.equal(done.toolRouting.selectedTool.toolName, "everything.trigger-long-running-operation");
      const executorHops = done.hops.filter((h: any) => h.service === "executor");
      assert.equal(executorHops.length, 1, "only the replacement's hop is recorded");
      assert.equal(executorHops[0].instance.split(":").at(-1), String(replacement.child.pid));
      assert.notEqual(replacement.child.pid, killed);
      const info = await jsm.consumers.info(PACKETS_STREAM, "execute");
      assert.equal(info.num_ack_pending, 0);
      assert.ok(info.delivered.consumer_seq >= 2, "the packet was delivered twice");
    } finally {
      await nc.close();
    }
  });
});
