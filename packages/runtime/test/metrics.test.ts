import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import { create } from "@bufbuild/protobuf";
import { trace } from "@opentelemetry/api";
import { doneSubject, publishPacket } from "@switchyard/bus";
import { finish, newPacket, Packet_State, routingOf, SelectedToolSchema, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet, StageOutcome } from "@switchyard/packet";
import { freePort, startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import { promSample } from "@switchyard/test-fixtures";
import { runStage, startService } from "../src/index.js";
import type { ServiceContext } from "../src/index.js";

/** The stage under test, by the packet's message: hand on, fail, or complete (after `gate` for "hold"). */
function stageLogic(held: () => void, gate: Promise<void>) {
  return async (packet: Packet): Promise<StageOutcome> => {
    const message = packet.content?.originalPrompt;
    if (message === "hand on") return { next: "route" };
    if (message === "throw") throw new Error("stage bug");
    if (message === "hold") {
      held();
      await gate;
      const routing = routingOf(packet);
      routing.selectedTool = create(SelectedToolSchema, { toolName: "fs.read_text_file", selectionConfidence: 0.85 });
      routing.executionStatus = ToolRoutingState_ExecutionStatus.EXECUTED;
      routing.reinjectionCount = 1;
    }
    finish(packet, Packet_State.COMPLETED, "done: fs.read_text_file ran");
    return { done: true };
  };
}

describe("runtime - /metrics of a stage service", () => {
  let nats: LocalNats;
  let nc: NatsConnection;
  let service: ServiceContext;
  let metricsUrl = "";
  let release: () => void = () => undefined;
  let held: Promise<void>;

  before(async () => {
    nats = await startLocalNats();
    nc = await connect({ servers: nats.url });
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    service = await startService({
      name: "metrics-test",
      description: "a stage held by the test",
      // One packet at a time, so that a held packet keeps the next one waiting.
      env: { NATS_URL: nats.url, HEALTH_PORT: String(port), HEALTH_HOST: "127.0.0.1", LOG_LEVEL: "silent", STAGE_CONCURRENCY: "1" },
    });
    const gate = new Promise<void>((resolve) => (release = resolve));
    let signalHeld: () => void = () => undefined;
    held = new Promise<void>((resolve) => (signalHeld = resolve));
    await runStage(service, "intent", stageLogic(signalHeld, gate));
  });

  after(async () => {
    release();
    await service?.shutdown();
    await nc?.close();
    await nats?.stop();
  });

  /** Publishes a packet to the stage (resolves on JetStream's ack); `finished` resolves when the packet is done. */
  async function send(message: string): Promise<{ finished: Promise<unknown> }> {
    const packet = newPacket({ message });
    const done = nc.subscribe(doneSubject(packet.header!.packetId), { max: 1 });
    await publishPacket(jetstream(nc), trace.getTracer("test"), "intent", packet);
    return { finished: (async () => { for await (const msg of done) return msg; })() };
  }

  async function scrape(): Promise<{ contentType: string | null; body: string }> {
    const response = await fetch(metricsUrl);
    assert.equal(response.status, 200);
    return { contentType: response.headers.get("content-type"), body: await response.text() };
  }

  it("runtime - stage latency by outcome, finished packets, confidence, rounds and the consumer backlog are on /metrics", async () => {
    await send("hand on");
    await (await send("throw")).finished;

    const holding = await send("hold");
    await held;
    const behind = await send("complete");
    const during = await scrape();
    assert.match(during.contentType ?? "", /^text\/plain; version=0\.0\.4/);
    const stage = { service: "metrics-test", stage: "intent" };
    const waiting = promSample(during.body, "switchyard_consumer_pending_messages", stage);
    const inWork = promSample(during.body, "switchyard_consumer_ack_pending_messages", stage);
    assert.ok(inWork !== undefined && inWork >= 1, `the held packet is delivered and not acked: ${inWork}`);
    assert.equal((waiting ?? NaN) + inWork, 2, "the held packet and the one behind it");

    release();
    await holding.finished;
    await behind.finished;
    const { body } = await scrape();
    const runs = (outcome: string) => promSample(body, "switchyard_stage_duration_seconds_count", { ...stage, outcome });
    assert.equal(runs("route"), 1);
    assert.equal(runs("FAILED"), 1, "a stage that throws ends the packet FAILED");
    assert.equal(runs("COMPLETED"), 2);
    assert.ok((promSample(body, "switchyard_stage_duration_seconds_sum", { ...stage, outcome: "COMPLETED" }) ?? 0) > 0);

    const finished = (state: string, status: string) =>
      promSample(body, "switchyard_packets_finished_total", { service: "metrics-test", state, execution_status: status });
    assert.equal(finished("FAILED", "PENDING"), 1);
    assert.equal(finished("COMPLETED", "EXECUTED"), 1);
    assert.equal(finished("COMPLETED", "PENDING"), 1);
    assert.equal(promSample(body, "switchyard_packets_finished_total"), 3, "a packet handed on has not finished");

    assert.equal(promSample(body, "switchyard_selection_confidence_count"), 1, "only the packet with a selected tool");
    assert.equal(promSample(body, "switchyard_selection_confidence_sum"), 0.85);
    assert.equal(promSample(body, "switchyard_reinjection_rounds_count"), 3);
    assert.equal(promSample(body, "switchyard_reinjection_rounds_sum"), 1);
    assert.ok(promSample(body, "nodejs_eventloop_lag_seconds", { service: "metrics-test" }) !== undefined, "Node's default metrics");
  });
});
