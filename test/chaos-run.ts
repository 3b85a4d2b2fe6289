/**
 * The common ground of the chaos fleet tests (issue 6, groups 1, 2 and 5): a fleet
 * whose every packet runs a side-effect tool (`journal.append_line`, one line per
 * call), packets sent through the HTTP API while a fault strikes, and the tally
 * afterwards: each accepted packet in exactly one terminal state, one line each.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { DONE_WILDCARD, Headers, PACKETS_BUCKET, PACKETS_STREAM } from "@switchyard/bus";
import { decodePacket, isFinal, Packet_State } from "@switchyard/packet";
import { reportFaultRun } from "./faults-report.js";
import type { FaultRun } from "./faults-report.js";
import { startTestFleet } from "./harness.js";
import type { TestFleet, TestFleetOptions } from "./harness.js";

export const JOURNAL_TOOL = "journal.append_line";
const SIDE_EFFECTS_CONFIG = fileURLToPath(new URL("fixtures/side-effects.yaml", import.meta.url));

/** The stages a packet passes through, in order: the ones a chaos test kills. */
export const STAGE_SERVICES = ["intent", "embedding-router", "selector", "reviewer", "executor"] as const;

export interface ChaosFleet {
  t: TestFleet;
  /** The file append_line writes to: one line per call. */
  journal: string;
  close(): Promise<void>;
}

export interface ChaosFleetOptions {
  /** Every stage's ack wait: how soon the packets a killed stage held are redelivered. */
  ackWaitMs: number;
  natsUrlForServices?: TestFleetOptions["natsUrlForServices"];
  natsCluster?: TestFleetOptions["natsCluster"];
}

/** A fleet that runs append_line without approval: write tools on, the tool trusted. */
export async function startChaosFleet(options: ChaosFleetOptions): Promise<ChaosFleet> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-chaos-"));
  const journal = join(dir, "journal.txt");
  writeFileSync(journal, "");
  const t = await startTestFleet({
    ...(options.natsUrlForServices ? { natsUrlForServices: options.natsUrlForServices } : {}),
    ...(options.natsCluster ? { natsCluster: options.natsCluster } : {}),
    // A cluster's replicated streams and buckets take a busy 2-core machine over 30 s to set up; a slow start is not what these tests are about.
    readyTimeoutMs: 90_000,
    env: {
      SWITCHYARD_CONFIG: SIDE_EFFECTS_CONFIG,
      SIDE_EFFECT_FILE: journal,
      STAGE_ACK_WAIT_MS: String(options.ackWaitMs),
    },
    serviceEnv: {
      reviewer: { ALLOW_WRITE_TOOLS: "true", TRUSTED_TOOLS: JOURNAL_TOOL },
      // The last packet is routed like the first, not by what the earlier ones taught.
      "embedding-router": { LEARN_FROM_USE: "false" },
    },
  });
  return {
    t,
    journal,
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Submission {
  /** The text the packet's append_line call writes: unique per packet. */
  token: string;
  /** The gateway's answer (202 accepted), or 0 when the request itself failed. */
  status: number;
  /** Its Retry-After header, when it had one. */
  retryAfter?: string;
  packetId?: string;
}

export interface SubmitOptions {
  /** How many to send; with `until`, at most this many. */
  count: number;
  /** Stops sending once it returns true (checked before each request). */
  until?: () => boolean;
  /** Starts each packet's token, so that several rounds in one journal stay apart. @default "chaos" */
  prefix?: string;
  /** Requests in flight at once. */
  concurrency: number;
  /** A pause after each answer, per request in flight: a steady flow instead of as fast as the gateway answers. */
  pauseMs?: number;
  /** Called after each answer, with how many have been answered. */
  onAnswered?: (answered: number) => void;
}

/** The request whose packet goes through every stage and appends `token` to the journal. */
export function journalRequest(token: string) {
  return { message: `append the line "${token}" to the journal`, tools: [JOURNAL_TOOL], wait: false };
}

/** Sends `count` packets (wait: false) through the HTTP API, `concurrency` at a time. */
export async function submitPackets(t: TestFleet, options: SubmitOptions): Promise<Submission[]> {
  const submissions: Submission[] = [];
  let next = 0;
  const worker = async () => {
    while (next < options.count && !options.until?.()) {
      const token = `${options.prefix ?? "chaos"}-${next++}`;
      const submission: Submission = { token, status: 0 };
      try {
        const { status, json, headers } = await t.post("/v1/packets", journalRequest(token));
        submission.status = status;
        submission.retryAfter = headers.get("retry-after") ?? undefined;
        if (status === 202) submission.packetId = json.packetId;
      } catch {
        // The gateway could not be reached at all: status 0, not accepted.
      }
      submissions.push(submission);
      options.onAnswered?.(submissions.length);
      if (options.pauseMs) await sleep(options.pauseMs);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return submissions;
}

export interface Announcements {
  /** Per packet id, the distinct terminal states announced on switchyard.done.<id>. */
  states: Map<string, Set<string>>;
  close(): Promise<void>;
}

/**
 * Listens to every packet's done announcement on the test's own connection
 * (which, like the services', reconnects after a NATS restart).
 */
export async function watchAnnouncements(natsUrl: string): Promise<Announcements> {
  const nc = await connect({ servers: natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const states = new Map<string, Set<string>>();
  const sub = nc.subscribe(DONE_WILDCARD);
  void (async () => {
    for await (const msg of sub) {
      const packet = decodePacket(msg.data);
      if (!isFinal(packet.state)) continue;
      const id = packet.header!.packetId;
      const seen = states.get(id) ?? new Set<string>();
      seen.add(Packet_State[packet.state]);
      states.set(id, seen);
    }
  })();
  await nc.flush();
  return { states, close: () => nc.close() };
}

const FINAL_STATES = new Set(["COMPLETED", "FAILED", "AWAITING_APPROVAL", "AWAITING_USER"]);

/**
 * Polls `GET /v1/packets/{id}` until every packet is in a terminal state or the
 * time is up; returns the terminal packets (JSON) by id. Errors (NATS down) only
 * mean "ask again".
 */
export async function awaitFinalPackets(t: TestFleet, packetIds: readonly string[], timeoutMs: number): Promise<Map<string, any>> {
  const finals = new Map<string, any>();
  const deadline = Date.now() + timeoutMs;
  while (finals.size < packetIds.length && Date.now() < deadline) {
    const pending = packetIds.filter((id) => !finals.has(id));
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const id = pending[next++]!;
        const { status, json } = await t.get(`/v1/packets/${id}`).catch(() => ({ status: 0, json: undefined }));
        if (status === 200 && FINAL_STATES.has(json?.state)) finals.set(id, json);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    if (finals.size < packetIds.length) await sleep(500);
  }
  return finals;
}

/** How many times each line occurs in the journal. */
export function journalLines(journal: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readFileSync(journal, "utf8").split("\n")) {
    if (line !== "") counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return counts;
}

export interface Tally {
  run: FaultRun;
  /** Packets the gateway did not accept (503 while NATS was down, or no answer). */
  refused: number;
  /** Packets that ended FAILED because their executor died mid-call (their line is there at most once). */
  unknownOutcomes: number;
  /** Everything that breaks the guarantees, one line per packet at fault. */
  problems: string[];
}

/**
 * Checks the guarantees over a run and reports it for `pnpm test:faults`:
 * every accepted packet has one terminal state (stored and announced alike),
 * COMPLETED with its append_line executed and its line in the journal once, or
 * FAILED as an unknown outcome (its executor was killed mid-call); no line twice.
 */
export function tallyRun(
  test: string,
  submissions: readonly Submission[],
  finals: ReadonlyMap<string, any>,
  announcements: ReadonlyMap<string, ReadonlySet<string>>,
  journal: string,
  /** The packets that never ended, as last stored, to say where they stopped. */
  stuck: ReadonlyMap<string, any> = new Map(),
): Tally {
  const problems: string[] = [];
  const lines = journalLines(journal);
  const accepted = submissions.filter((s) => s.packetId !== undefined);
  const submitted = new Set(submissions.map((s) => s.token));
  let completed = 0;
  let unknownOutcomes = 0;
  for (const { token, packetId } of accepted) {
    const packet = finals.get(packetId!);
    const announced = [...(announcements.get(packetId!) ?? [])];
    if (!packet) {
      const last = stuck.get(packetId!);
      const traces = `announced ${announced.join(" and ") || "never"}, its line ${lines.has(token) ? "in" : "not in"} the journal`;
      problems.push(`${packetId} (${token}) never reached a terminal state${last ? `: ${last.state}${describeRun(last)}; ${last.whereInTheStream}` : ""}; ${traces}`);
      continue;
    }
    if (announced.length > 1 || (announced.length === 1 && announced[0] !== packet.state)) {
      problems.push(`${packetId} (${token}) is stored ${packet.state} (${packet.stateReason ?? ""}) but was announced ${announced.join(" and ")}${describeRun(packet)}`);
      continue;
    }
    completed += 1;
    const routing = packet.toolRouting ?? {};
    if (packet.state === "FAILED" && /outcome unknown/.test(packet.stateReason ?? "")) {
      // The executor died during the call: by design the call is not made again (docs/reliability.md).
      unknownOutcomes += 1;
    } else if (packet.state !== "COMPLETED" || routing.executionStatus !== "EXECUTED" || routing.selectedTool?.params?.text !== token) {
      problems.push(`${packetId} (${token}) ended ${packet.state}/${routing.executionStatus}: ${packet.stateReason ?? ""}`);
    } else if (!lines.has(token)) {
      problems.push(`${packetId} (${token}) was executed but its line is not in the journal`);
    }
  }
  const byToken = new Map(accepted.map((s) => [s.token, finals.get(s.packetId!)]));
  let duplicateSideEffects = 0;
  for (const [line, count] of lines) {
    duplicateSideEffects += count - 1;
    if (count > 1) problems.push(`"${line}" was appended ${count} times${describeRun(byToken.get(line))}`);
    if (!submitted.has(line)) problems.push(`"${line}" is in the journal but was never sent`);
  }
  // Reported, not hidden: a packet JetStream stopped delivering that the reconciler resumed.
  const resumed = [...finals.values()].filter((packet) => (packet.header?.resumes ?? 0) > 0).length;
  const run: FaultRun = { test, sent: accepted.length, completed, lost: accepted.length - finals.size, duplicateSideEffects, resumed };
  reportFaultRun(run);
  return { run, refused: submissions.length - accepted.length, unknownOutcomes, problems };
}

export interface ChaosSuite {
  readonly chaos: ChaosFleet;
  readonly announcements: Announcements;
}

/** Registers the suite's hooks: a chaos fleet and a watch on its packets' announcements, both closed after. */
export function chaosSuite(options: ChaosFleetOptions): ChaosSuite {
  const suite = {} as { chaos: ChaosFleet; announcements: Announcements };
  before(async () => {
    suite.chaos = await startChaosFleet(options);
    // The test watches NATS directly: a fault between the services and NATS does not blind it.
    suite.announcements = await watchAnnouncements(suite.chaos.t.cluster?.url ?? suite.chaos.t.nats.url);
  });
  after(async () => {
    await suite.announcements?.close();
    await suite.chaos?.close();
  });
  return suite;
}

/** Waits for every accepted packet to end, lets late duplicates show, then tallies and reports the run. */
export async function finishRun(test: string, suite: ChaosSuite, submissions: readonly Submission[]): Promise<Tally> {
  const accepted = submissions.filter((s) => s.packetId !== undefined);
  const finals = await awaitFinalPackets(suite.chaos.t, accepted.map((s) => s.packetId!), 300_000);
  // Late redeliveries of packets already finished would show up as second announcements: let them.
  await sleep(4_000);
  const stuck = new Map<string, any>();
  for (const { packetId } of accepted.filter((s) => !finals.has(s.packetId!))) {
    const { json } = await suite.chaos.t.get(`/v1/packets/${packetId}`).catch(() => ({ json: undefined }));
    if (json) stuck.set(packetId!, json);
  }
  if (stuck.size > 0) {
    const where = await whereInTheStream(suite.chaos.t.cluster?.url ?? suite.chaos.t.nats.url, new Set(stuck.keys())).catch((error: unknown) => new Map([["", `the stream could not be read: ${String(error)}`]]));
    for (const [packetId, json] of stuck) json.whereInTheStream = where.get(packetId) ?? where.get("");
  }
  return tallyRun(test, submissions, finals, suite.announcements.states, suite.chaos.journal, stuck);
}

/**
 * Where each stuck packet's message is in the packet stream, beside its stage consumer's
 * state: a message at or below the ack floor was taken as acknowledged, one past the
 * delivered sequence never reached the stage, one between awaits its ack or redelivery;
 * and the packet's stored state as the bucket's leader holds it.
 */
async function whereInTheStream(url: string, packetIds: ReadonlySet<string>): Promise<Map<string, string>> {
  const nc = await connect({ servers: url.split(",") });
  try {
    const jsm = await jetstreamManager(nc);
    const consumers = new Map<string, string>();
    for await (const info of jsm.consumers.list(PACKETS_STREAM)) {
      consumers.set(
        info.config.filter_subject ?? info.name,
        `consumer ${info.name}: delivered ${info.delivered.stream_seq}, ack floor ${info.ack_floor.stream_seq}, ack pending ${info.num_ack_pending}, pending ${info.num_pending}, redelivered ${info.num_redelivered}, leader ${info.cluster?.leader ?? "-"}`,
      );
    }
    const where = new Map<string, string>();
    const { first_seq: first, last_seq: last } = (await jsm.streams.info(PACKETS_STREAM)).state;
    for (let seq = first; seq <= last; seq++) {
      // acknowledged messages are gone from a work queue: most sequences answer "no message"
      const message = await jsm.streams.getMessage(PACKETS_STREAM, { seq }).catch(() => null);
      const packetId = message?.header.get(Headers.PacketId) ?? "";
      if (message && packetIds.has(packetId)) where.set(packetId, `message ${seq} on ${message.subject} (${message.header.get(Headers.MsgId)}); ${consumers.get(message.subject) ?? "no consumer for its subject"}`);
    }
    // read through the stream's leader (the message API, not a direct get that any replica answers)
    for (const packetId of packetIds) {
      const stored = await jsm.streams.getMessage(`KV_${PACKETS_BUCKET}`, { last_by_subj: `$KV.${PACKETS_BUCKET}.${packetId}` }).catch(() => null);
      const state = stored ? Packet_State[decodePacket(stored.data).state] : "nothing";
      where.set(packetId, `${where.get(packetId) ?? "no message of it left in the stream"}; the bucket's leader holds ${state} (revision ${stored?.seq ?? "-"})`);
    }
    return where;
  } finally {
    await nc.close();
  }
}

/** A packet's hops and its tool-execution reflections, to tell how a side effect happened twice. */
function describeRun(packet: any): string {
  if (!packet) return "";
  const hops = (packet.hops ?? []).map((hop: any) => `${hop.service}#${hop.hop}@${hop.instance ?? ""}`).join(" ");
  // The reconciler's entries too: a packet it resumed may have run twice.
  const executions = (packet.reasoning?.reflectionLog ?? []).filter((entry: any) => ["tool_execution", "reconcile"].includes(entry.step)).map((entry: any) => entry.summary);
  return ` (packet ${packet.header?.packetId}: ${hops}; ${executions.join(" | ")})`;
}
