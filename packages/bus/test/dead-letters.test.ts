import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, headers } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { decodePacket, encodePacket, finish, newPacket, Packet_State, routingOf, SelectedToolSchema } from "@switchyard/packet";
import type { Packet, StageOutcome } from "@switchyard/packet";
import { trace } from "@opentelemetry/api";
import { createLogger } from "@switchyard/telemetry";
import { startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import {
  ATTEMPTS_BUCKET,
  DEAD_LETTERS_STREAM,
  doneSubject,
  ensureDeadLetters,
  ensurePacketStream,
  ensureStageConsumer,
  Headers,
  loadPacket,
  openBucket,
  PACKETS_BUCKET,
  PACKETS_STREAM,
  packetSubject,
  readAttempt,
  readStoredPacket,
  recordHop,
  RetryLater,
  startDeadLetterWorker,
  startHopClock,
  startStageWorker,
} from "../src/index.js";
import type { DeadLetterAdvisory, DeadLetterWorker } from "../src/index.js";

const tracer = trace.getTracer("dead-letters-test");
/** What the workers logged, one JSON line each: a record must be logged once, not on every retry. */
const logLines: string[] = [];
const logger = createLogger("dead-letters-test", "info", { write: (line: string) => void logLines.push(line) });
const TERMINATED_ROUTE = `$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.${PACKETS_STREAM}.route`;

describe("dead letters", () => {
  let server: LocalNats;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let packets: KV;
  let attempts: KV;
  let deadLetters: DeadLetterWorker;

  before(async () => {
    server = await startLocalNats();
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
    await ensurePacketStream(nc);
    await ensureStageConsumer(nc, "route");
    await ensureDeadLetters(nc);
    packets = await openBucket(nc, PACKETS_BUCKET);
    attempts = await openBucket(nc, ATTEMPTS_BUCKET);
    deadLetters = await startDeadLetterWorker({ nc, packets, attempts, logger });
  });

  after(async () => {
    await deadLetters?.stop();
    await nc?.close();
    await server?.stop();
  });

  /** Waits until the dead-letter worker has handled every record up to `seq` of its stream. */
  async function handled(seq: number): Promise<void> {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(50)) {
      if ((await jsm.consumers.info(DEAD_LETTERS_STREAM, "dead-letters")).ack_floor.stream_seq >= seq) return;
    }
    assert.fail(`dead-letter record ${seq} not handled`);
  }

  /** A packet as the gateway sends it, published to the route stage; its stream sequence. */
  async function publishToRoute(packet: Packet): Promise<number> {
    recordHop(packet, "gateway", startHopClock());
    const h = headers();
    h.set(Headers.PacketId, packet.header!.packetId);
    return (await jetstream(nc).publish(packetSubject("route"), encodePacket(packet), { headers: h })).seq;
  }

  it("dead letters - a terminated advisory for a message no stage terminated, still stored, ends no packet and leaves the message to its stage", async () => {
    const packet = newPacket({ message: "x" });
    const id = packet.header!.packetId;
    const seq = await publishToRoute(packet);
    const announced: Packet_State[] = [];
    const done = nc.subscribe(doneSubject(id));
    void (async () => {
      for await (const m of done) announced.push(decodePacket(m.data).state);
    })();
    // What a restarted server of a cluster sends for a message it had handed out: its own
    // replica drops it as the ack arrives, while the stream's leader may still hold it.
    const advisory: DeadLetterAdvisory = { type: "io.nats.jetstream.advisory.v1.terminated", stream: PACKETS_STREAM, consumer: "route", stream_seq: seq, deliveries: 1 };
    await handled((await jetstream(nc).publish(TERMINATED_ROUTE, JSON.stringify(advisory))).seq);
    assert.ok(await jsm.streams.getMessage(PACKETS_STREAM, { seq }), "the message is left in the stream");
    assert.equal(await loadPacket(packets, id), undefined, "the packet is not ended");

    const worker = await startStageWorker({
      nc, stage: "route", service: "embedding-router", packets, tracer, logger, attempts,
      handle: (p: Packet): StageOutcome => (finish(p, Packet_State.COMPLETED, "done: routed"), { done: true }),
    });
    for (const deadline = Date.now() + 10_000; announced.length === 0 && Date.now() < deadline; ) await sleep(50);
    await worker.stop();
    await sleep(200);
    done.unsubscribe();
    assert.deepEqual(announced, [Packet_State.COMPLETED], "the packet ends once, by its stage");
  });

  it("dead letters - JetStream's own terminated advisory (a message removed while a stage held it) is no stage's term, whatever attempt was kept", async () => {
    const packet = newPacket({ message: "y" });
    const id = packet.header!.packetId;
    const seq = await publishToRoute(packet);
    let given = false;
    const worker = await startStageWorker({
      nc, stage: "route", service: "embedding-router", packets, tracer, logger, attempts,
      handle: (): StageOutcome => {
        given = true;
        throw new RetryLater("not yet", 60_000);
      },
    });
    for (const deadline = Date.now() + 10_000; !(given && (await readAttempt(attempts, seq))) && Date.now() < deadline; ) await sleep(50);
    assert.equal((await readAttempt(attempts, seq))?.error, "not yet");
    // Removing the message while the consumer still holds it (given back, waiting for its next
    // delivery) makes JetStream publish a terminated advisory, as on a restarted cluster member.
    await jsm.streams.deleteMessage(PACKETS_STREAM, seq);
    let record: number | undefined;
    for (const deadline = Date.now() + 10_000; record === undefined && Date.now() < deadline; await sleep(50)) {
      const stored = await jsm.streams.getMessage(DEAD_LETTERS_STREAM, { last_by_subj: TERMINATED_ROUTE }).catch(() => null);
      if (stored?.json<DeadLetterAdvisory>().stream_seq === seq) record = stored.seq;
    }
    assert.ok(record, "JetStream published a terminated advisory");
    await handled(record);
    await worker.stop();
    assert.equal(await loadPacket(packets, id), undefined, "the packet is not ended FAILED with the give-back's error");
  });

  it("dead letters - a message that is no packet is terminated, and its packet id ends FAILED with the reason", async () => {
    const worker = await startStageWorker({
      nc, stage: "route", service: "embedding-router", packets, tracer, logger, attempts,
      handle: (): StageOutcome => assert.fail("not a packet"),
    });
    const h = headers();
    h.set(Headers.PacketId, "not-a-packet-2");
    const seq = (await jetstream(nc).publish(packetSubject("route"), new Uint8Array([0xff, 0xff, 0xff]), { headers: h })).seq;
    let failed: Packet | undefined;
    for (const deadline = Date.now() + 10_000; !failed && Date.now() < deadline; await sleep(50)) failed = await loadPacket(packets, "not-a-packet-2");
    await worker.stop();
    assert.equal(failed?.state, Packet_State.FAILED);
    assert.match(failed?.stateReason ?? "", /^terminated at stage route: invalid packet message/);
    await handled((await jsm.streams.info(DEAD_LETTERS_STREAM)).state.last_seq);
    assert.equal(await readAttempt(attempts, seq), undefined, "its attempt is forgotten once the packet ended");
  });

  it("dead letters - a packet stored and sent with a value nested past protobuf's limit ends FAILED once, readable before and after", async () => {
    // Issue 36: the gateway stored such a packet, then no stage and no dead-letter record could read it, for ever.
    let params: JsonObject = { path: "notes/todo.md" };
    for (let i = 0; i < 60; i++) params = { a: params };
    const packet = newPacket({ message: "read notes/todo.md" });
    packet.state = Packet_State.ROUTING;
    routingOf(packet).selectedTool = create(SelectedToolSchema, { toolName: "filesystem.read_text_file", params });
    const id = packet.header!.packetId;
    await packets.put(id, encodePacket(packet));
    assert.throws(() => decodePacket(encodePacket(packet)), /maximum recursion depth/);
    const before = await loadPacket(packets, id);
    assert.deepEqual([before?.header?.packetId, before?.state], [id, Packet_State.ROUTING]);
    assert.match(before?.stateReason ?? "", /^the stored packet cannot be read whole: .*maximum recursion depth/);

    const worker = await startStageWorker({
      nc, stage: "route", service: "embedding-router", packets, tracer, logger, attempts,
      handle: (): StageOutcome => assert.fail("not decodable"),
    });
    await publishToRoute(packet);
    let failed: Packet | undefined;
    for (const deadline = Date.now() + 10_000; failed?.state !== Packet_State.FAILED && Date.now() < deadline; await sleep(50)) failed = await loadPacket(packets, id);
    await handled((await jsm.streams.info(DEAD_LETTERS_STREAM)).state.last_seq);
    await worker.stop();
    assert.equal(failed?.state, Packet_State.FAILED);
    assert.match(failed?.stateReason ?? "", /^terminated at stage route: invalid packet message: .*maximum recursion depth/);
    const mine = logLines.filter((line) => line.includes(id));
    assert.equal(mine.filter((line) => line.includes('"msg":"invalid packet message"')).length, 1, mine.join(""));
    assert.equal(mine.filter((line) => line.includes('"msg":"packet dead-lettered"')).length, 1, mine.join(""));
    assert.ok(!logLines.some((line) => line.includes("dead-letter record not handled")), "no record was retried");
  });

  it("dead letters - a record that is no advisory is dropped once, not delivered again", async () => {
    const before = logLines.length;
    await handled((await jetstream(nc).publish(TERMINATED_ROUTE, "not an advisory")).seq);
    const lines = logLines.slice(before);
    assert.equal(lines.filter((line) => line.includes("no advisory: dropped")).length, 1, lines.join(""));
    assert.ok(!lines.some((line) => line.includes("dead-letter record not handled")), lines.join(""));
  });

  it("dead letters - stored bytes that are no packet read as a FAILED shell under their id, and record no ending", async () => {
    const garbage = new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f]);
    const shell = readStoredPacket(garbage, "garbage-1");
    assert.deepEqual([shell.header?.packetId, shell.state], ["garbage-1", Packet_State.FAILED]);
    assert.match(shell.stateReason, /^the stored packet cannot be read whole/);
    // The dead-letter worker ends a packet whose stored record is garbage, so GET has a reason to read.
    const worker = await startStageWorker({
      nc, stage: "route", service: "embedding-router", packets, tracer, logger, attempts,
      handle: (): StageOutcome => assert.fail("not a packet"),
    });
    await packets.put("garbage-2", garbage);
    const h = headers();
    h.set(Headers.PacketId, "garbage-2");
    await jetstream(nc).publish(packetSubject("route"), garbage, { headers: h });
    let failed: Packet | undefined;
    for (const deadline = Date.now() + 10_000; !failed?.stateReason.startsWith("terminated") && Date.now() < deadline; await sleep(50)) failed = await loadPacket(packets, "garbage-2");
    await worker.stop();
    assert.match(failed?.stateReason ?? "", /^terminated at stage route: invalid packet message/);
  });
});
