import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { trace } from "@opentelemetry/api";
import { decodePacket, encodePacket, finish, newPacket, Packet_State } from "@switchyard/packet";
import type { Packet, Stage } from "@switchyard/packet";
import { suiteNats } from "@switchyard/test-fixtures";
import { createLogger } from "@switchyard/telemetry";
import {
  doneSubject,
  ensurePacketStream,
  ensureStageConsumer,
  Headers,
  loadPacket,
  openBucket,
  PACKETS_BUCKET,
  PACKETS_STREAM,
  PACKETS_WILDCARD,
  publishPacket,
  recordHop,
  setDeadline,
  startHopClock,
  startReconciler,
} from "../src/index.js";
import type { ReconcileAction, Reconciler } from "../src/index.js";

const tracer = trace.getTracer("reconciler-test");
const logLines: string[] = [];
const logger = createLogger("reconciler-test", "info", { write: (line: string) => void logLines.push(line) });
const HORIZON_MS = 1_000;
const INTERVAL_MS = 200;

describe("reconciler", () => {
  const nats = suiteNats();
  let packets: KV;
  /** Every packet message published, as message ids by packet id (a core subscription sees each publish). */
  const published = new Map<string, string[]>();

  async function setUp(): Promise<void> {
    if (packets) return;
    await ensurePacketStream(nats.nc);
    for (const stage of ["intent", "execute"] as const) await ensureStageConsumer(nats.nc, stage);
    packets = await openBucket(nats.nc, PACKETS_BUCKET);
    const sub = nats.nc.subscribe(PACKETS_WILDCARD);
    void (async () => {
      for await (const m of sub) {
        const id = m.headers?.get(Headers.PacketId) ?? "";
        published.set(id, [...(published.get(id) ?? []), m.headers?.get(Headers.MsgId) ?? ""]);
      }
    })();
    await nats.nc.flush();
  }

  function reconciler(actions: ReconcileAction[] = [], maxResumes = 3): Promise<Reconciler> {
    return startReconciler({
      nc: nats.nc, packets, tracer, logger, horizonMs: HORIZON_MS, intervalMs: INTERVAL_MS, maxResumes, topology: {},
      onAction: (action) => actions.push(action),
    });
  }

  /** A packet as the gateway sends it: stored, then published to `stage`; returns it and its stream sequence. */
  async function dispatch(stage: Stage, deadlineMs = 0): Promise<{ packet: Packet; seq: number }> {
    const packet = newPacket({ message: "append a line" });
    packet.state = stage === "execute" ? Packet_State.EXECUTING : Packet_State.DETECTING_INTENT;
    setDeadline(packet, deadlineMs);
    recordHop(packet, "gateway", startHopClock());
    await packets.put(packet.header!.packetId, encodePacket(packet));
    await publishPacket(jetstream(nats.nc), tracer, stage, packet);
    const last = (await (await jetstreamManager(nats.nc)).streams.info(PACKETS_STREAM)).state.last_seq;
    return { packet, seq: last };
  }

  async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) {
      const value = await check();
      if (value !== undefined) return value;
    }
    assert.fail(`timed out waiting for ${what}`);
  }

  it("reconciler - a packet whose message was deleted from the stream is published again, under a new message id, once the horizon passed", async () => {
    await setUp();
    const actions: ReconcileAction[] = [];
    const running = await reconciler(actions);
    try {
      const { packet, seq } = await dispatch("intent");
      const id = packet.header!.packetId;
      const jsm = await jetstreamManager(nats.nc);
      await jsm.streams.deleteMessage(PACKETS_STREAM, seq);
      const started = Date.now();
      const resumed = await until("the packet resumed", async () => {
        const stored = await loadPacket(packets, id);
        return stored?.header?.resumes === 1 ? stored : undefined;
      });
      assert.ok(Date.now() - started >= HORIZON_MS - 200, "not before the horizon");
      assert.deepEqual(published.get(id), [`${id}:1`, `${id}:1:r1`], "published again under a new id, the hop kept");
      assert.equal(resumed.state, Packet_State.DETECTING_INTENT);
      assert.match(resumed.reasoning!.reflectionLog.at(-1)!.summary, /lost in transit at stage intent: resumed \(1 of at most 3\)/);
      const message = await jsm.streams.getMessage(PACKETS_STREAM, { last_by_subj: "switchyard.packets.intent" });
      assert.equal(decodePacket(message!.data).header!.resumes, 1, "the stream holds the resumed packet");
      await sleep(HORIZON_MS + 3 * INTERVAL_MS);
      assert.deepEqual(actions, ["resumed"], "a packet whose message is in the stream is left alone");
      // Ended, as its stage would end it, so that the later tests' reconcilers leave it be.
      await jsm.streams.deleteMessage(PACKETS_STREAM, message!.seq);
      await packets.put(id, encodePacket(finish(resumed, Packet_State.COMPLETED, "done")));
    } finally {
      await running.stop();
    }
  });

  it("reconciler - a lost packet past its deadline ends FAILED with a reason a person can read, announced to the waiting gateway", async () => {
    await setUp();
    const actions: ReconcileAction[] = [];
    const running = await reconciler(actions);
    try {
      const { packet, seq } = await dispatch("execute", 500);
      const id = packet.header!.packetId;
      const announced = nats.nc.subscribe(doneSubject(id), { max: 1 });
      await (await jetstreamManager(nats.nc)).streams.deleteMessage(PACKETS_STREAM, seq);
      let state: Packet_State | undefined;
      for await (const m of announced) state = decodePacket(m.data).state;
      assert.equal(state, Packet_State.FAILED);
      const stored = await loadPacket(packets, id);
      assert.equal(stored!.stateReason, "lost in transit at stage execute; resumed 0 times, and its deadline has passed");
      assert.deepEqual(actions, ["failed"]);
      assert.equal(logLines.filter((line) => line.includes(id)).length, 1, "logged once");
    } finally {
      await running.stop();
    }
  });

  it("reconciler - a packet resumed as often as allowed ends FAILED at the next loss", async () => {
    await setUp();
    const running = await reconciler([], 1);
    try {
      const { packet, seq } = await dispatch("intent");
      const id = packet.header!.packetId;
      const jsm = await jetstreamManager(nats.nc);
      await jsm.streams.deleteMessage(PACKETS_STREAM, seq);
      await until("the first resume", async () => ((await loadPacket(packets, id))?.header?.resumes === 1 ? true : undefined));
      const again = await jsm.streams.getMessage(PACKETS_STREAM, { last_by_subj: "switchyard.packets.intent" });
      await jsm.streams.deleteMessage(PACKETS_STREAM, again!.seq);
      const ended = await until("the end", async () => {
        const stored = await loadPacket(packets, id);
        return stored?.state === Packet_State.FAILED ? stored : undefined;
      });
      assert.equal(ended.stateReason, "lost in transit at stage intent; resumed 1 time, the most allowed");
    } finally {
      await running.stop();
    }
  });

  it("reconciler - two replicas resume a lost packet once between them", async () => {
    await setUp();
    const actions: ReconcileAction[] = [];
    const replicas = [await reconciler(actions), await reconciler(actions)];
    try {
      const lost: { packet: Packet; seq: number }[] = [];
      for (let i = 0; i < 10; i++) lost.push(await dispatch("execute"));
      const jsm = await jetstreamManager(nats.nc);
      for (const { seq } of lost) await jsm.streams.deleteMessage(PACKETS_STREAM, seq);
      await until("every packet resumed", async () => (actions.length >= lost.length ? true : undefined));
      await sleep(3 * INTERVAL_MS);
      assert.equal(actions.length, lost.length, "one action per lost packet");
      for (const { packet } of lost) {
        const id = packet.header!.packetId;
        assert.deepEqual(published.get(id), [`${id}:1`, `${id}:1:r1`], `${id} published again once`);
      }
    } finally {
      for (const replica of replicas) await replica.stop();
    }
  });

  it("reconciler - a packet waiting in the stream for a stage nobody runs is not lost; a deleted consumer is made again", async () => {
    await setUp();
    const actions: ReconcileAction[] = [];
    const jsm = await jetstreamManager(nats.nc);
    await jsm.consumers.delete(PACKETS_STREAM, "execute");
    const running = await reconciler(actions);
    try {
      const { packet } = await dispatch("execute");
      await until("the consumer made again", async () => (await jsm.consumers.info(PACKETS_STREAM, "execute").catch(() => undefined)) ?? undefined, 5_000);
      await sleep(HORIZON_MS + 3 * INTERVAL_MS);
      assert.deepEqual(actions, [], "its message waits: nothing to resume");
      assert.deepEqual(published.get(packet.header!.packetId), [`${packet.header!.packetId}:1`]);
      const waiting = (await jsm.streams.info(PACKETS_STREAM)).state.messages;
      assert.equal((await jsm.consumers.info(PACKETS_STREAM, "execute")).num_pending, waiting, "the consumer made again will deliver every message waiting, this one included");
    } finally {
      await running.stop();
    }
  });
});
