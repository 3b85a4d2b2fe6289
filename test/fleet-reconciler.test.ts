import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { Headers, PACKETS_STREAM, PACKETS_WILDCARD, packetSubject } from "@switchyard/bus";
import type { ServiceName } from "@switchyard/fleet";
import type { Stage } from "@switchyard/packet";
import { JOURNAL_TOOL, journalLines } from "./chaos-run.js";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";
import { reportFaultRun } from "./faults-report.js";

const skip = fleetSkipReason();
const HORIZON_MS = 5_000;
const INTERVAL_MS = 1_000;
/** A resume is due this long after the message was deleted at the latest: the horizon, one interval, and a pass's own time. */
const RESUMED_WITHIN_MS = HORIZON_MS + INTERVAL_MS + 2_000;

/** The stages a packet waits at before approval, each with the service that consumes it. */
const BEFORE_APPROVAL: [ServiceName, Stage][] = [
  ["reviewer", "review"],
  ["selector", "select"],
  ["embedding-router", "route"],
  ["intent", "intent"],
];

describe("fleet reconciler - packets whose messages JetStream lost are resumed once, by one of two gateways, and a write runs once", { skip }, () => {
  let t: TestFleet;
  let dir: string;
  let journal: string;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  /** Every packet message published (a core subscription sees each publish, duplicates too), by message id. */
  const published = new Map<string, number>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-reconciler-"));
    journal = join(dir, "journal.txt");
    writeFileSync(journal, "");
    t = await startTestFleet({
      env: { SWITCHYARD_CONFIG: fileURLToPath(new URL("fixtures/side-effects.yaml", import.meta.url)), SIDE_EFFECT_FILE: journal },
      replicas: { gateway: 2 },
      readyTimeoutMs: 60_000,
      serviceEnv: {
        gateway: { WAIT_TIMEOUT_MS: "3000", RECONCILE_HORIZON_MS: String(HORIZON_MS), RECONCILE_INTERVAL_MS: String(INTERVAL_MS) },
        // Writes on, none trusted: each call waits for the user's approval.
        reviewer: { ALLOW_WRITE_TOOLS: "true" },
        "embedding-router": { LEARN_FROM_USE: "false" },
        executor: { EXECUTION_LEASE_MS: "3000", STAGE_RETRY_DELAY_MS: "500" },
      },
    });
    nc = await connect({ servers: t.nats.url });
    jsm = await jetstreamManager(nc);
    const sub = nc.subscribe(PACKETS_WILDCARD);
    void (async () => {
      for await (const m of sub) {
        const id = m.headers?.get(Headers.MsgId) ?? "";
        published.set(id, (published.get(id) ?? 0) + 1);
      }
    })();
    await nc.flush();
  });

  after(async () => {
    await nc?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function send(token: string, delayMs = 0): Promise<string> {
    const waiting = delayMs > 0 ? `, waiting ${delayMs} ms` : "";
    const { status, json } = await t.post("/v1/packets", { message: `append the line "${token}" to the journal${waiting}`, tools: [JOURNAL_TOOL], wait: false });
    assert.equal(status, 202, JSON.stringify(json));
    return json.packetId as string;
  }

  /** The packets' messages in the stream, by packet id. */
  async function messagesOf(packetIds: readonly string[]): Promise<Map<string, { seq: number; subject: string }[]>> {
    const wanted = new Set(packetIds);
    const found = new Map<string, { seq: number; subject: string }[]>();
    for (let seq = 0; ; ) {
      // next_by_subj: the message API walks a work queue's few messages, not its gaps.
      const query: { seq: number; next_by_subj: string } = { seq, next_by_subj: PACKETS_WILDCARD };
      const stored = await jsm.streams.getMessage(PACKETS_STREAM, query);
      if (!stored) return found;
      seq = stored.seq + 1;
      const id = stored.header?.get(Headers.PacketId) ?? "";
      if (wanted.has(id)) found.set(id, [...(found.get(id) ?? []), { seq: stored.seq, subject: stored.subject }]);
    }
  }

  async function waitingAt(stage: Stage, packetIds: readonly string[]): Promise<void> {
    await eventually(
      async () => {
        const messages = await messagesOf(packetIds);
        const there = packetIds.filter((id) => messages.get(id)?.some((m) => m.subject === packetSubject(stage)));
        return there.length === packetIds.length ? true : undefined;
      },
      60_000,
      `${packetIds.length} packets waiting at ${stage}`,
    );
  }

  /** Deletes every message of the packets from the stream, behind the consumers' backs; returns when. */
  async function deleteMessages(packetIds: readonly string[]): Promise<number> {
    const messages = await messagesOf(packetIds);
    assert.equal(messages.size, packetIds.length, "each packet has a message to lose");
    for (const list of messages.values()) for (const { seq } of list) await jsm.streams.deleteMessage(PACKETS_STREAM, seq);
    return Date.now();
  }

  async function inState(packetId: string, states: readonly string[], timeoutMs = 120_000): Promise<any> {
    return eventually(async () => {
      const { json } = await t.get(`/v1/packets/${packetId}`);
      return states.includes(json?.state) ? json : undefined;
    }, timeoutMs, `${packetId} ${states.join(" or ")}`);
  }

  /** The reconciler's entries on the packet's reflection log. */
  function reconciled(packet: any): { summary: string; at: string }[] {
    return (packet.reasoning?.reflectionLog ?? []).filter((entry: any) => entry.step === "reconcile");
  }

  function assertResumedBy(packet: any, resumes: number, lostAt: number): void {
    assert.equal(packet.header.resumes, resumes, JSON.stringify(reconciled(packet)));
    const last = reconciled(packet).at(-1)!;
    assert.match(last.summary, new RegExp(`lost in transit at stage \\w+: resumed \\(${resumes} of at most 3\\)`));
    assert.ok(Date.parse(last.at) - lostAt <= RESUMED_WITHIN_MS, `resumed ${Date.parse(last.at) - lostAt} ms after the loss`);
  }

  it("fleet reconciler - messages deleted at every stage: each packet is resumed once, waits for approval, and once approved and lost again runs its write once", async () => {
    // Each stage is stopped in turn, from the last, so that two packets wait at each.
    const held = new Map<string, string>();
    for (const [service, stage] of BEFORE_APPROVAL) {
      await t.fleet.kill(service);
      const ids = [await send(`lost-at-${stage}-1`), await send(`lost-at-${stage}-2`)];
      await waitingAt(stage, ids);
      ids.forEach((id, i) => held.set(id, `lost-at-${stage}-${i + 1}`));
    }
    const ids = [...held.keys()];
    const lostAt = await deleteMessages(ids);
    for (const [service] of BEFORE_APPROVAL) await t.fleet.start(service);

    for (const id of ids) {
      const waiting = await inState(id, ["AWAITING_APPROVAL", "FAILED", "COMPLETED"]);
      assert.equal(waiting.state, "AWAITING_APPROVAL", `${held.get(id)}: ${waiting.stateReason}`);
      assertResumedBy(waiting, 1, lostAt);
    }

    // Approved while no executor runs: the approved calls wait at execute, and half of them are lost there.
    await t.fleet.kill("executor");
    for (const id of ids) assert.equal((await t.post(`/v1/packets/${id}/approve`, {})).status, 200);
    await waitingAt("execute", ids);
    const lostAgain = ids.slice(0, ids.length / 2);
    const lostAgainAt = await deleteMessages(lostAgain);
    await t.fleet.start("executor");

    const lines = () => journalLines(journal);
    for (const id of ids) {
      const done = await inState(id, ["COMPLETED", "FAILED"]);
      assert.equal(done.state, "COMPLETED", `${held.get(id)}: ${done.stateReason}`);
      assert.equal(done.toolRouting.executionStatus, "EXECUTED");
      if (lostAgain.includes(id)) assertResumedBy(done, 2, lostAgainAt);
      else assert.equal(done.header.resumes, 1);
    }
    const counts = lines();
    for (const token of held.values()) assert.equal(counts.get(token), 1, `${token} appended once`);
    assertEachResumePublishedOnce();
    reportFaultRun({ test: "messages deleted from the stream", sent: ids.length, completed: ids.length, lost: 0, duplicateSideEffects: [...counts.values()].reduce((n, c) => n + c - 1, 0), resumed: ids.length });
  });

  it("fleet reconciler - an approved write whose message is deleted while the executor runs it is resumed, and the executor's claim keeps it to one call", async () => {
    const token = "lost-mid-call";
    const id = await send(token, 8_000);
    await inState(id, ["AWAITING_APPROVAL"]);
    assert.equal((await t.post(`/v1/packets/${id}/approve`, {})).status, 200);
    await eventually(async () => ((await jsm.consumers.info(PACKETS_STREAM, "execute")).num_ack_pending > 0 ? true : undefined), 30_000, "the executor holding the call");
    const lostAt = await deleteMessages([id]);

    const done = await inState(id, ["COMPLETED", "FAILED"]);
    assert.equal(done.state, "COMPLETED", done.stateReason);
    // A packet ends once: whichever copy ends first is stored, the other is dropped at its end
    // (the resumed one reuses the first call's recorded result), so the resume shows as its message.
    await eventually(async () => ([...published.keys()].some((m) => m.startsWith(`${id}:`) && m.endsWith(":r1")) ? true : undefined), 30_000, "the resumed copy");
    const stored = (await t.get(`/v1/packets/${id}`)).json;
    if (stored.header.resumes === 1) assertResumedBy(stored, 1, lostAt);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.equal(journalLines(journal).get(token), 1, "the write ran once");
    assert.equal((await t.get(`/v1/packets/${id}`)).json.state, "COMPLETED", "and the packet ended once");
    assertEachResumePublishedOnce();
  });

  it("fleet reconciler - a stage's consumer deleted under its running workers is made again, and its packets go on without a resume", async () => {
    await jsm.consumers.delete(PACKETS_STREAM, "select");
    const ids = [await send("consumer-gone-1"), await send("consumer-gone-2")];
    await eventually(async () => (await jsm.consumers.info(PACKETS_STREAM, "select").catch(() => undefined)) ?? undefined, 30_000, "the select consumer made again");
    for (const id of ids) {
      // The selector's pulls resume after two missed heartbeats (nats.js), about 45 s.
      const waiting = await inState(id, ["AWAITING_APPROVAL", "FAILED", "COMPLETED"], 180_000);
      assert.equal(waiting.state, "AWAITING_APPROVAL", waiting.stateReason);
      assert.equal(waiting.header.resumes ?? 0, 0, "its message waited; nothing was lost");
    }
    assert.ok(t.logs.some((line) => line.startsWith("gateway") && line.includes("consumer was missing; made again")));
  });

  /** Two gateways reconcile: every message a resume published went out once (the compare-and-set let one of them act). */
  function assertEachResumePublishedOnce(): void {
    const resumes = [...published].filter(([id]) => /:r\d+$/.test(id));
    assert.ok(resumes.length > 0);
    assert.deepEqual(resumes.filter(([, count]) => count > 1), [], "no message published twice");
  }
});
