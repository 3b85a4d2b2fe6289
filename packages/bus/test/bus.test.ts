import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { context, trace } from "@opentelemetry/api";
import type { KV } from "@nats-io/kv";
import { create } from "@bufbuild/protobuf";
import { decodePacket, encodePacket, finish, newPacket, Packet_State, PacketSchema, ToolDefinitionSchema } from "@switchyard/packet";
import type { Stage, StageOutcome, Packet } from "@switchyard/packet";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { createLogger, initTracing } from "@switchyard/telemetry";
import { startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import {
  ATTEMPTS_BUCKET,
  CATALOG_BUCKET,
  catalogKey,
  consumerBackoffMs,
  heartbeatIntervalMs,
  readAttempt,
  RetryLater,
  setDeadline,
  doneSubject,
  ensurePacketStream,
  ensureStageConsumer,
  followCatalog,
  Headers,
  loadPacket,
  openBucket,
  PACKETS_BUCKET,
  PACKETS_STREAM,
  packetSubject,
  publishPacket,
  putTool,
  recordHop,
  removeTool,
  startHopClock,
  startStageWorker,
} from "../src/index.js";

// Spans recorded in memory, so that trace ids exist without an exporter.
const tracing = initTracing("bus-test", { spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });
const logger = createLogger("bus-test", "silent");

describe("bus", () => {
  let server: LocalNats;
  let nc: NatsConnection;
  let packets: KV;

  before(async () => {
    server = await startLocalNats();
    nc = await connect({ servers: server.url });
    await ensurePacketStream(nc);
    for (const stage of ["intent", "route"] as Stage[]) await ensureStageConsumer(nc, stage);
    packets = await openBucket(nc, PACKETS_BUCKET);
  });

  after(async () => {
    await nc?.close();
    await server?.stop();
    await tracing.shutdown();
  });

  it("bus - subjects are validated tokens", () => {
    assert.equal(packetSubject("select"), "switchyard.packets.select");
    assert.throws(() => doneSubject("a.b"), /invalid packet id/);
    assert.throws(() => doneSubject("*"), /invalid packet id/);
  });

  it("bus - creating the topology twice is idempotent", async () => {
    await ensurePacketStream(nc);
    await ensureStageConsumer(nc, "intent");
    const jsm = await jetstreamManager(nc);
    const consumers = [];
    for await (const info of jsm.consumers.list(PACKETS_STREAM)) consumers.push(info.name);
    assert.deepEqual(consumers.sort(), ["intent", "route"]);
  });

  it("bus - a bucket's expiry follows the ttl it is opened with, an existing bucket's too; without one it is left as it is", async () => {
    const maxAgeOf = async (kv: KV) => (await kv.status()).streamInfo.config.max_age;
    const first = await openBucket(nc, "ttl-test");
    assert.equal(await maxAgeOf(first), 0);
    await openBucket(nc, "ttl-test", {}, 3_600_000);
    assert.equal(await maxAgeOf(first), 3_600_000 * 1_000_000, "a ttl added later applies");
    await openBucket(nc, "ttl-test", {}, 7_200_000);
    assert.equal(await maxAgeOf(first), 7_200_000 * 1_000_000, "a changed ttl applies");
    await openBucket(nc, "ttl-test");
    assert.equal(await maxAgeOf(first), 7_200_000 * 1_000_000, "opened without one, the bucket keeps its expiry");
  });

  it("bus - a packet crosses two stages, is stored and announced, with traceparent on every message", async () => {
    const intent = await startStageWorker({
      nc, stage: "intent", service: "intent", packets, tracer: tracing.tracer, logger,
      handle: (): StageOutcome => ({ next: "route" }),
    });
    const route = await startStageWorker({
      nc, stage: "route", service: "embedding-router", packets, tracer: tracing.tracer, logger,
      handle: (p: Packet): StageOutcome => (finish(p, Packet_State.COMPLETED, "done: routed"), { done: true }),
    });
    // Watch the raw messages to check their headers.
    const js = jetstream(nc);
    const tap = nc.subscribe("switchyard.packets.>");
    const headersSeen: string[] = [];
    void (async () => {
      for await (const m of tap) headersSeen.push(`${m.subject} ${m.headers?.get(Headers.MsgId)} ${m.headers?.get(Headers.TraceParent)}`);
    })();

    const packet = newPacket({ message: "read notes/todo.md" });
    const id = packet.header!.packetId;
    const done = nc.subscribe(doneSubject(id), { max: 1 });
    const span = tracing.tracer.startSpan("test-root");
    const traceId = span.spanContext().traceId;
    recordHop(packet, "gateway", startHopClock());
    await context.with(trace.setSpan(context.active(), span), () => publishPacket(js, tracing.tracer, "intent", packet));
    span.end();

    let finished: Packet | undefined;
    for await (const m of done) finished = decodePacket(m.data);
    assert.ok(finished);
    assert.equal(finished.state, Packet_State.COMPLETED);
    assert.deepEqual(finished.hops.map((h) => [h.service, h.hop]), [["gateway", 1], ["intent", 2], ["embedding-router", 3]]);
    assert.equal(finished.header!.hop, 3);
    const stored = await loadPacket(packets, id);
    assert.equal(stored?.hops.length, 3);

    tap.unsubscribe();
    assert.equal(headersSeen.length, 2);
    for (const line of headersSeen) assert.match(line, new RegExp(`^switchyard\\.packets\\.\\w+ ${id}:\\d 00-${traceId}-[0-9a-f]{16}-01$`));
    await intent.stop();
    await route.stop();
  });

  it("bus - the same hop published twice is stored once (Nats-Msg-Id)", async () => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const packet = newPacket({ message: "x" });
    recordHop(packet, "gateway", startHopClock());
    const before = (await jsm.streams.info(PACKETS_STREAM)).state.messages;
    await publishPacket(js, tracing.tracer, "intent", packet);
    await publishPacket(js, tracing.tracer, "intent", packet);
    const afterCount = (await jsm.streams.info(PACKETS_STREAM)).state.messages;
    assert.equal(afterCount - before, 1);
    await jsm.streams.purge(PACKETS_STREAM);
  });

  it("bus - a stage that throws ends the packet FAILED with the reason, never loses it", async () => {
    const worker = await startStageWorker({
      nc, stage: "intent", service: "intent", packets, tracer: tracing.tracer, logger,
      handle: () => { throw new Error("boom"); },
    });
    const packet = newPacket({ message: "x" });
    recordHop(packet, "gateway", startHopClock());
    const done = nc.subscribe(doneSubject(packet.header!.packetId), { max: 1 });
    await publishPacket(jetstream(nc), tracing.tracer, "intent", packet);
    let finished: Packet | undefined;
    for await (const m of done) finished = decodePacket(m.data);
    assert.equal(finished?.state, Packet_State.FAILED);
    assert.match(finished?.stateReason ?? "", /intent failed: boom/);
    await worker.stop();
  });

  /** An intent worker that notes whether its stage ran, and a packet already past its deadline. */
  async function pastDeadline() {
    const stage = { ran: false };
    const worker = await startStageWorker({
      nc, stage: "intent", service: "intent", packets, tracer: tracing.tracer, logger,
      handle: (): StageOutcome => { stage.ran = true; return { next: "route" }; },
    });
    const packet = newPacket({ message: "x" });
    setDeadline(packet, 1);
    recordHop(packet, "gateway", startHopClock());
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { stage, worker, packet };
  }

  it("bus - a packet past its deadline ends FAILED at the stage that finds it, without running the stage", async () => {
    const { stage, worker, packet } = await pastDeadline();
    const done = nc.subscribe(doneSubject(packet.header!.packetId), { max: 1 });
    await publishPacket(jetstream(nc), tracing.tracer, "intent", packet);
    let finished: Packet | undefined;
    for await (const m of done) finished = decodePacket(m.data);
    assert.equal(finished?.state, Packet_State.FAILED);
    assert.equal(finished?.stateReason, "deadline exceeded at intent");
    assert.equal(stage.ran, false);
    await worker.stop();
  });

  /**
   * Stores `packet` as ended by another copy, sends this copy to intent, and checks the worker
   * took and acked it without storing or announcing another ending: the packet ends once.
   */
  async function assertCopyDropped(packet: Packet): Promise<void> {
    const ended = create(PacketSchema, packet);
    finish(ended, Packet_State.COMPLETED, "done by the copy before");
    await packets.put(packet.header!.packetId, encodePacket(ended));
    const announced: Packet[] = [];
    const done = nc.subscribe(doneSubject(packet.header!.packetId), { callback: (_error, m) => void announced.push(decodePacket(m.data)) });
    await publishPacket(jetstream(nc), tracing.tracer, "intent", packet);
    // Acked and gone from the stream once the worker dropped it.
    const jsm = await jetstreamManager(nc);
    const inConsumer = async () => {
      const info = await jsm.consumers.info(PACKETS_STREAM, "intent");
      return info.num_ack_pending + info.num_pending;
    };
    for (const until = Date.now() + 10_000; (await inConsumer()) > 0 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await inConsumer(), 0, "the copy was taken and acked");
    await new Promise((resolve) => setTimeout(resolve, 200));
    done.unsubscribe();
    assert.deepEqual(announced, [], "not announced again");
    assert.equal((await loadPacket(packets, packet.header!.packetId))?.state, Packet_State.COMPLETED, "still stored as it ended");
  }

  it("bus - a copy past its deadline whose packet has ended already is dropped: the packet ends once", async () => {
    const { stage, worker, packet } = await pastDeadline();
    await assertCopyDropped(packet);
    assert.equal(stage.ran, false);
    await worker.stop();
  });

  it("bus - a copy within its deadline whose packet has ended already is dropped, not ended again (chaos run: COMPLETED, then FAILED)", async () => {
    const stage = { ran: false };
    const worker = await startStageWorker({
      nc, stage: "intent", service: "intent", packets, tracer: tracing.tracer, logger,
      handle: (packet): StageOutcome => {
        stage.ran = true;
        finish(packet, Packet_State.FAILED, "reinjected with execution status PENDING");
        return { done: true };
      },
    });
    const packet = newPacket({ message: "x" });
    recordHop(packet, "gateway", startHopClock());
    await assertCopyDropped(packet);
    assert.ok(stage.ran, "the stage ran on the copy");
    await worker.stop();
  });

  it("bus - RetryLater gives the packet back: it is delivered again, and the failure is kept for the dead-letter record", async () => {
    // Short waits: JetStream adds the consumer's backoff to a nak's delay from the second redelivery on.
    await ensureStageConsumer(nc, "intent", { ackWaitMs: 1000, maxDeliver: 5 });
    const attempts = await openBucket(nc, ATTEMPTS_BUCKET);
    const deliveries: number[] = [];
    const worker = await startStageWorker({
      nc, stage: "intent", service: "intent", packets, tracer: tracing.tracer, logger, attempts, retryDelayMs: 10,
      handle: (packet): StageOutcome => {
        deliveries.push(Date.now());
        if (deliveries.length < 3) throw new RetryLater(`not yet (${deliveries.length})`);
        finish(packet, Packet_State.COMPLETED, "done: third delivery");
        return { done: true };
      },
    });
    const packet = newPacket({ message: "x" });
    recordHop(packet, "gateway", startHopClock());
    const done = nc.subscribe(doneSubject(packet.header!.packetId), { max: 1 });
    const ack = await jetstream(nc).publish(packetSubject("intent"), encodePacket(packet));
    let finished: Packet | undefined;
    for await (const m of done) finished = decodePacket(m.data);
    assert.equal(finished?.state, Packet_State.COMPLETED);
    assert.equal(deliveries.length, 3);
    const attempt = await readAttempt(attempts, ack.seq);
    assert.equal(attempt?.error, "not yet (2)");
    assert.equal(attempt?.deliveries, 2);
    assert.equal(attempt?.stage, "intent");
    await worker.stop();
  });

  it("bus - the consumer backoff starts with the ack wait, doubles by default, and stays shorter than max_deliver", () => {
    assert.deepEqual(consumerBackoffMs({ ackWaitMs: 1000, maxDeliver: 5 }), [1000, 2000, 4000, 8000]);
    assert.deepEqual(consumerBackoffMs({ ackWaitMs: 1000, maxDeliver: 3, backoffMs: [5000, 9000, 20000] }), [1000, 5000]);
    assert.deepEqual(consumerBackoffMs({ maxDeliver: 1 }), []);
    assert.equal(heartbeatIntervalMs({ ackWaitMs: 3000, backoffMs: [1500] }), 500);
  });

  it("bus - catalog changes reach a follower; odd tool names get safe keys", async () => {
    const catalog = await openBucket(nc, CATALOG_BUCKET);
    assert.equal(catalogKey("PDF&URLTool"), "PDF=26URLTool");
    await putTool(catalog, create(ToolDefinitionSchema, { name: "a.first", description: "one" }));
    const tools = new Map<string, string>();
    const follower = await followCatalog(catalog, {
      upsert: (tool) => tools.set(catalogKey(tool.name), tool.description),
      remove: (key) => tools.delete(key),
    });
    assert.equal(tools.get("a.first"), "one");
    await putTool(catalog, create(ToolDefinitionSchema, { name: "PDF&URLTool", description: "two" }));
    await removeTool(catalog, "a.first");
    const deadline = Date.now() + 5000;
    while ((tools.has("a.first") || !tools.has("PDF=26URLTool")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual([...tools.entries()], [["PDF=26URLTool", "two"]]);
    follower.stop();
  });
});
