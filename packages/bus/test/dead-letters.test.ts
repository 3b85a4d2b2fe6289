import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { connect, headers } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { decodePacket, encodePacket, finish, newPacket, Packet_State } from "@switchyard/packet";
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
  recordHop,
  RetryLater,
  startDeadLetterWorker,
  startHopClock,
  startStageWorker,
} from "../src/index.js";
import type { DeadLetterAdvisory, DeadLetterWorker } from "../src/index.js";

const tracer = trace.getTracer("dead-letters-test");
const logger = createLogger("dead-letters-test", "silent");
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
});
