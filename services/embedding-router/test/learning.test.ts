import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { KV } from "@nats-io/kv";
import { EXAMPLES_BUCKET, openBucket, PENDING_LESSONS_BUCKET, putTool, ServiceError } from "@switchyard/bus";
import { addExamples, exampleId, exampleTexts, readToolExamples, SHARED, updateToolExamples } from "@switchyard/learning";
import {
  ApprovalSchema,
  decodePacketApprovalSummary,
  encodePacket,
  FeedbackRequestSchema,
  finish,
  newPacket,
  Packet_State,
  routingOf,
  SelectedToolSchema,
  ToolExecutionResultSchema,
  ToolRoutingState_ExecutionStatus as Status,
  Turn_Role,
  TurnSchema,
} from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { EmbeddedIndex, LocalEmbedder } from "@switchyard/retrieval";
import type { Embedder } from "@switchyard/retrieval";
import { catalogTool, suiteNats } from "@switchyard/test-fixtures";
import { createLogger } from "@switchyard/telemetry";
import { indexCatalog } from "../src/catalog-index.js";
import { defaultConfig } from "../src/config.js";
import { routeCandidates } from "../src/route.js";
import { addToolExamples, applyFeedback, learnFromPacket, lessonOf, mayTeach } from "../src/learning.js";
import type { LearningSettings } from "../src/learning.js";

const READ = "filesystem.read_text_file";
const LIST = "filesystem.list_directory";
const SETTINGS: LearningSettings = { LEARN_FROM_USE: true, LEARN_MAX_EXAMPLES_PER_TOOL: 20 };
const logger = createLogger("learning-test", "silent");

interface Outcome {
  state?: Packet_State;
  status?: Status;
  dryRun?: boolean;
  success?: boolean;
  tool?: string;
  query?: string;
  /** @default "tenant-a" */
  tenant?: string;
}

/** A packet as it ends after its last step, by default: completed, its read tool executed. */
function finished(outcome: Outcome = {}): Packet {
  // the request's own words: what is learned
  const packet = newPacket({ message: outcome.query || "please read the file notes/todo.md" });
  packet.header!.tenant = outcome.tenant ?? "tenant-a";
  packet.intent!.query = outcome.query ?? "please read the file notes/todo.md";
  const routing = routingOf(packet);
  if (outcome.tool !== "") routing.selectedTool = create(SelectedToolSchema, { toolName: outcome.tool ?? READ });
  routing.executionStatus = outcome.status ?? Status.EXECUTED;
  routing.dryRun = outcome.dryRun ?? false;
  routing.executionResult = create(ToolExecutionResultSchema, { success: outcome.success ?? true });
  finish(packet, outcome.state ?? Packet_State.COMPLETED, "done: as scripted");
  return packet;
}

/** The packet's call as the user approved it. */
const approved = (packet: Packet): Packet => {
  routingOf(packet).approval = create(ApprovalSchema, { grantedAt: timestampNow() });
  return packet;
};
/** The packet as a request of `session`. */
const inSession = (packet: Packet, session: string): Packet => {
  packet.header!.sessionId = session;
  return packet;
};

describe("learning - what a packet teaches", () => {
  const CASES: [string, Outcome, boolean][] = [
    ["a completed packet whose tool ran", {}, true],
    ["a dry run", { dryRun: true, status: Status.SKIPPED }, false],
    ["a dry run marked executed", { dryRun: true }, false],
    ["a denied call", { status: Status.USER_DENIED }, false],
    ["a failed call", { status: Status.FAILED, success: false }, false],
    ["a skipped call", { status: Status.SKIPPED }, false],
    ["a packet waiting for approval", { state: Packet_State.AWAITING_APPROVAL, status: Status.AWAITING_CONFIDENCE }, false],
    ["a failed packet", { state: Packet_State.FAILED }, false],
    ["no selected tool", { tool: "" }, false],
  ];
  for (const [name, outcome, teaches] of CASES) {
    it(`learning - ${name} ${teaches ? "teaches its query to its tool" : "teaches nothing"}`, () => {
      const lesson = lessonOf(finished(outcome));
      assert.deepEqual(lesson, teaches ? { tool: READ, query: "please read the file notes/todo.md" } : undefined);
    });
  }

  it("learning - a finished packet is read whole only with a session of its own or an approval given: without either it teaches nothing", () => {
    const summary = (packet: Packet) => decodePacketApprovalSummary(encodePacket(packet));
    assert.equal(mayTeach(summary(finished())), false);
    assert.equal(mayTeach(summary(inSession(finished(), "s1"))), true);
    assert.equal(mayTeach(summary(approved(finished()))), true);
    const asked = finished();
    routingOf(asked).approval = create(ApprovalSchema, { callHash: "h", requestedAt: timestampNow() });
    assert.equal(mayTeach(summary(asked)), false, "an approval asked for, not given");
  });

  it("learning - without an intent query the prompt is the query", () => {
    assert.equal(lessonOf(finished({ query: "" }))?.query, "please read the file notes/todo.md");
  });

  it("learning - a step's own words are learned, never the earlier turns its query points back at", () => {
    const followUp = newPacket({
      message: "the other one?",
      history: [create(TurnSchema, { role: Turn_Role.USER, content: "read notes/todo.md" })],
    });
    followUp.intent!.steps = ["the other one?"];
    followUp.intent!.query = "the other one?";
    followUp.intent!.queryContext = ["read notes/todo.md"];
    const routing = routingOf(followUp);
    routing.selectedTool = create(SelectedToolSchema, { toolName: READ });
    routing.executionStatus = Status.EXECUTED;
    routing.executionResult = create(ToolExecutionResultSchema, { success: true });
    finish(followUp, Packet_State.COMPLETED, "done: as scripted");
    assert.equal(lessonOf(followUp), undefined, "a step that only points back teaches nothing");

    const twoSteps = finished({ query: "list the notes folder, then read todo.md" });
    twoSteps.intent!.steps = ["list the notes folder", "read todo.md"];
    twoSteps.intent!.stepIndex = 1;
    assert.deepEqual(lessonOf(twoSteps), { tool: READ, query: "read todo.md" });
  });
});

describe("learning - the examples bucket and the index", () => {
  const nats = suiteNats();
  let bucket: KV;
  let pending: KV;
  let n = 0;

  /** Fresh buckets per test, so tests do not see each other's examples. */
  async function freshBucket(): Promise<KV> {
    bucket = await openBucket(nats.nc, `${EXAMPLES_BUCKET}-${++n}`);
    pending = await openBucket(nats.nc, `${PENDING_LESSONS_BUCKET}-${n}`);
    return bucket;
  }

  const learn = (packet: Packet, settings = SETTINGS) => learnFromPacket(bucket, pending, packet, settings);
  const examplesOf = async (tool: string, tenant = "tenant-a") => exampleTexts(await readToolExamples(bucket, tool, tenant));

  it("learning - an approved call's words become an example of its tool, capped and deduplicated", async () => {
    await freshBucket();
    const settings = { ...SETTINGS, LEARN_MAX_EXAMPLES_PER_TOOL: 2 };
    assert.equal(await learn(approved(finished()), settings), READ);
    assert.equal(await learn(approved(finished({ query: "Please read  the file notes/todo.md" })), settings), READ);
    assert.deepEqual(await examplesOf(READ), ["Please read the file notes/todo.md"]);
    await learn(approved(finished({ query: "show notes/a.md" })), settings);
    await learn(approved(finished({ query: "open notes/b.md" })), settings);
    assert.deepEqual(await examplesOf(READ), ["show notes/a.md", "open notes/b.md"]);
    assert.equal(await learn(approved(finished({ dryRun: true })), settings), undefined);
  });

  it("learning - a call nobody confirmed waits for its session: the next request confirms it, a correction drops it", async () => {
    await freshBucket();
    assert.equal(await learn(finished()), undefined, "without a session nothing can confirm it");
    assert.equal(await learn(inSession(finished(), "s1")), undefined, "it waits");
    assert.deepEqual(await examplesOf(READ), []);
    assert.equal(await learn(inSession(finished({ query: "thanks, now list notes/", tool: LIST }), "s1")), READ, "the next request confirms it");
    assert.deepEqual(await examplesOf(READ), ["please read the file notes/todo.md"]);
    assert.deepEqual(await examplesOf(LIST), [], "the new call waits in its turn");

    assert.equal(await learn(inSession(finished({ query: "no, I meant the other file", tool: READ }), "s1")), undefined);
    assert.deepEqual(await examplesOf(LIST), [], "a correction drops the waiting lesson");
    assert.equal(await learn(inSession(finished({ query: "show notes/c.md" }), "s2")), undefined, "another session confirms nothing");
    assert.deepEqual(await examplesOf(READ), ["please read the file notes/todo.md"]);
  });

  it("learning - lessons are the packet's tenant's: another tenant's packet in a session of the same id neither confirms nor sees them", async () => {
    await freshBucket();
    assert.equal(await learn(inSession(finished({ query: "TOPSECRET-ALPHA merger: read notes/todo.md" }), "shared-sess-1")), undefined, "tenant-a's lesson waits");
    assert.equal(await learn(inSession(finished({ query: "list notes/", tool: LIST, tenant: "tenant-b" }), "shared-sess-1")), undefined, "tenant-b's request confirms nothing of tenant-a's");
    assert.deepEqual(await examplesOf(READ, "tenant-b"), []);
    assert.deepEqual(await examplesOf(READ), [], "still waiting for tenant-a's own session");
    assert.equal(await learn(inSession(finished({ query: "thanks", tool: LIST }), "shared-sess-1")), READ, "tenant-a's next request confirms it");
    assert.deepEqual(await examplesOf(READ), ["TOPSECRET-ALPHA merger: read notes/todo.md"]);
    assert.deepEqual(await examplesOf(READ, "tenant-b"), [], "never tenant-b's");
    assert.deepEqual(await examplesOf(READ, SHARED), [], "never shared");
    assert.equal(await learn(approved(finished({ tenant: "" }))), undefined, "a packet without a tenant teaches nobody");
  });

  it("learning - LEARN_FROM_USE=false learns nothing", async () => {
    await freshBucket();
    assert.equal(await learn(approved(finished()), { ...SETTINGS, LEARN_FROM_USE: false }), undefined);
    assert.deepEqual(await examplesOf(READ), []);
  });

  it("learning - feedback correct=false moves the query to the right tool, and it is not learned for the wrong one again", async () => {
    await freshBucket();
    const packet = approved(finished());
    await learn(packet);
    const request = create(FeedbackRequestSchema, { packetId: packet.header!.packetId, correct: false, tool: LIST });
    const response = await applyFeedback(bucket, pending, packet, request, () => true, SETTINGS);
    assert.deepEqual(
      [response.query, response.removedFrom, response.addedTo],
      ["please read the file notes/todo.md", READ, LIST],
    );
    assert.deepEqual(await examplesOf(READ), []);
    assert.deepEqual(await examplesOf(LIST), ["please read the file notes/todo.md"]);
    assert.equal(await learn(approved(finished())), undefined, "rejected for the read tool");
  });

  it("learning - feedback correct=false takes back the tenant's example that made the wrong call, not only the request", async () => {
    await freshBucket();
    const INFO = "filesystem.get_file_info";
    const taught = "how big is notes/todo.md?";
    const index = new EmbeddedIndex(new LocalEmbedder());
    const catalog = await openBucket(nats.nc, "catalog-feedback-test");
    await putTool(catalog, catalogTool({ name: INFO, description: "Retrieve detailed metadata about a file or directory" }));
    await putTool(catalog, catalogTool({ name: READ, description: "Read the complete contents of a file as text" }));
    const indexed = await indexCatalog(catalog, index, logger, bucket);
    try {
      await updateToolExamples(bucket, INFO, "tenant-a", (current) => addExamples(current, [taught]).next);
      const query = "how big is my diary.txt, roughly?";
      const route = () => routeCandidates(index, [], { query, filter: { tenant: "tenant-a" } }, defaultConfig());
      for (let i = 0; i < 100 && (await route())[0]?.exampleId === ""; i++) await new Promise((r) => setTimeout(r, 20));
      const candidates = await route();
      assert.equal(candidates[0]?.tool?.name, INFO);
      assert.equal(candidates[0]?.exampleId, exampleId("tenant-a", taught), "the candidate names the example that scored it");

      const packet = approved(finished({ query, tool: INFO }));
      routingOf(packet).candidates = candidates;
      const request = create(FeedbackRequestSchema, { packetId: packet.header!.packetId, correct: false });
      const response = await applyFeedback(bucket, pending, packet, request, () => true, SETTINGS);
      assert.deepEqual([response.removedFrom, response.removedExample], [INFO, exampleId("tenant-a", taught)]);
      assert.deepEqual(await examplesOf(INFO), [], "the example that made the call is gone");
      assert.equal(await learn(approved(finished({ query: taught, tool: INFO }))), undefined, "nor learned again from use");
    } finally {
      indexed.stop();
    }
  });

  it("learning - feedback correct=false on a waiting call drops it: the session's next request no longer confirms it", async () => {
    await freshBucket();
    const packet = inSession(finished(), "s1");
    await learn(packet);
    await applyFeedback(bucket, pending, packet, create(FeedbackRequestSchema, { packetId: packet.header!.packetId, correct: false }), () => true, SETTINGS);
    assert.equal(await learn(inSession(finished({ query: "list notes/", tool: LIST }), "s1")), undefined);
    assert.deepEqual(await examplesOf(READ), []);
  });

  it("learning - feedback correct=true confirms the call: it is learned now; bad feedback is refused with its code", async () => {
    await freshBucket();
    const packet = inSession(finished(), "s1");
    await learn(packet);
    const feedback = (init: { correct?: boolean; tool?: string }, target: Packet | null = packet) =>
      applyFeedback(bucket, pending, target ?? undefined, create(FeedbackRequestSchema, { packetId: "p1", ...init }), (name) => name !== "no.such_tool", SETTINGS);
    const confirmed = await feedback({ correct: true });
    assert.deepEqual([confirmed.removedFrom, confirmed.addedTo], ["", READ]);
    assert.deepEqual(await examplesOf(READ), ["please read the file notes/todo.md"]);
    assert.equal(await learn(inSession(finished({ query: "list notes/", tool: LIST }), "s1")), undefined, "not pending any more");

    const running = newPacket({ message: "read a.md" });
    running.state = Packet_State.EXECUTING;
    const refusals: [() => Promise<unknown>, number][] = [
      [() => feedback({ correct: false }, null), 404],
      [() => feedback({ correct: false }, running), 409],
      [() => feedback({ correct: false, tool: "no.such_tool" }), 404],
      [() => feedback({ correct: false, tool: READ }), 400],
      [() => feedback({ correct: true, tool: LIST }), 400],
      [() => feedback({}), 400],
    ];
    for (const [call, code] of refusals) {
      await assert.rejects(call(), (error: unknown) => error instanceof ServiceError && error.code === code);
    }
    assert.deepEqual(await examplesOf(READ), ["please read the file notes/todo.md"], "untouched");
  });

  it("learning - examples added by hand: counted when new, refused for an unknown tool", async () => {
    await freshBucket();
    const first = await addToolExamples(bucket, READ, "tenant-a", ["show me my notes", "what's in todo.md"], () => true);
    assert.deepEqual([first.added, first.examples], [2, ["show me my notes", "what's in todo.md"]]);
    const again = await addToolExamples(bucket, READ, "tenant-a", ["Show me my notes", "cat notes/a.md"], () => true);
    assert.deepEqual([again.added, again.examples], [1, ["show me my notes", "what's in todo.md", "cat notes/a.md"]]);
    const shared = await addToolExamples(bucket, READ, SHARED, ["open a text file"], () => true);
    assert.deepEqual(shared.examples, ["open a text file"], "shared examples are a record of their own");
    assert.deepEqual(await examplesOf(READ, "tenant-b"), []);
    await assert.rejects(addToolExamples(bucket, "no.such_tool", "tenant-a", ["x"], () => false), (e: unknown) => e instanceof ServiceError && e.code === 404);
  });

  it("learning - a tool is indexed with its stored examples; a change re-embeds that tool alone", async () => {
    const embedded: string[][] = [];
    const local = new LocalEmbedder();
    const recording: Embedder = { id: local.id, dimensions: local.dimensions, embed: (texts) => (embedded.push(texts), local.embed(texts)) };
    const index = new EmbeddedIndex(recording);
    const catalog = await openBucket(nats.nc, "catalog-merge-test");
    const examples = await openBucket(nats.nc, "examples-merge-test");
    await putTool(catalog, catalogTool({ name: READ, description: "Read a text file", examples: ["read a file"] }));
    await putTool(catalog, catalogTool({ name: LIST, description: "List the entries of a directory" }));
    await updateToolExamples(examples, READ, SHARED, (current) => addExamples(current, ["show me the shopping list"]).next);

    const indexed = await indexCatalog(catalog, index, logger, examples);
    try {
      assert.ok(indexed.has(READ) && !indexed.has("no.such_tool"));
      assert.deepEqual(indexed.all().find((t) => t.name === READ)?.examples, ["read a file", "show me the shopping list"]);
      const [top] = await index.search("show me the shopping list", { limit: 1 });
      assert.equal(top?.tool.name, READ, "found by its stored example");

      const before = embedded.length;
      await updateToolExamples(examples, LIST, SHARED, (current) => addExamples(current, ["what is in my downloads"]).next);
      for (let i = 0; i < 100 && embedded.length === before; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(embedded.length, before + 1, "one embedding call");
      assert.ok(embedded.at(-1)!.includes("what is in my downloads"));
      assert.ok(!embedded.at(-1)!.some((text) => text.includes("shopping")), "the other tool was not re-embedded");
      const [found] = await index.search("what is in my downloads", { limit: 1 });
      assert.equal(found?.tool.name, LIST);
    } finally {
      indexed.stop();
    }
  });

  it("learning - a tenant's example lifts its tool for that tenant's searches alone, and no result or listing shows it", async () => {
    const index = new EmbeddedIndex(new LocalEmbedder());
    const catalog = await openBucket(nats.nc, "catalog-tenant-test");
    const examples = await openBucket(nats.nc, "examples-tenant-test");
    await putTool(catalog, catalogTool({ name: LIST, description: "List the entries of a directory" }));
    await putTool(catalog, catalogTool({ name: "evil.inject_note", description: "Adds a note" }));
    const indexed = await indexCatalog(catalog, index, logger, examples);
    try {
      const query = "what is on my to-do list";
      const before = await index.search(query, { limit: 1, filter: { tenant: "tenant-a" } });
      await updateToolExamples(examples, "evil.inject_note", "tenant-b", (current) => addExamples(current, [query, "TOPSECRET-B"]).next);
      const search = (tenant?: string) => index.search(query, { limit: 2, ...(tenant === undefined ? {} : { filter: { tenant } }) });
      for (let i = 0; i < 100 && (await search("tenant-b"))[0]?.tool.name !== "evil.inject_note"; i++) await new Promise((r) => setTimeout(r, 20));
      const [forB] = await search("tenant-b");
      assert.equal(forB?.tool.name, "evil.inject_note", "tenant-b's example steers tenant-b's routing");
      assert.ok(forB!.score > (before[0]?.score ?? 0), `${forB!.score} above tenant-a's best`);
      const forA = await search("tenant-a");
      assert.deepEqual(forA.map((r) => [r.tool.name, r.score]).slice(0, 1), before.map((r) => [r.tool.name, r.score]), "tenant-a's ranking is as it was");
      assert.notEqual((await search())[0]?.tool.name, "evil.inject_note", "nor a search for no tenant");
      for (const r of [...forA, forB!]) assert.deepEqual(r.tool.tenantExamples, [], "no result carries a tenant's examples");
      assert.ok(indexed.all().every((t) => t.tenantExamples.length === 0 && !t.examples.includes("TOPSECRET-B")));
    } finally {
      indexed.stop();
    }
  });
});
