import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Svcm } from "@nats-io/services";
import type { ServiceInfo, ServiceStats } from "@nats-io/services";
import { connect } from "@nats-io/transport-node";
import { EXAMPLES_SUBJECT, FEEDBACK_SUBJECT, RANK_TOOLS_SUBJECT, ROUTE_SUBJECT, toolApprovalSubject } from "@switchyard/bus";
import type { AnswerStats } from "@switchyard/bus";
import { SERVICES } from "@switchyard/fleet";
import { createRouterClient } from "@switchyard/grpc";
import { Packet_State, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
if (skip) console.log(`# fleet tests skipped: ${skip}`);

/** Every reflection-log summary of a packet, one string, for "the log says why" checks. */
function reflections(packet: any): string {
  return packet.reasoning.reflectionLog.map((e: any) => `${e.step}: ${e.summary}`).join("\n");
}

describe("fleet - six services on a real nats-server with real MCP servers", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet();
  });

  after(async () => {
    await t?.close();
  });

  it("fleet - reading notes/todo.md runs the filesystem tool and reinjects the packet", async () => {
    const { status, json: packet } = await t.post("/v1/packets", { message: "please read the file notes/todo.md" });
    assert.equal(status, 200, JSON.stringify(packet));
    assert.equal(packet.state, "COMPLETED", reflections(packet));
    assert.equal(packet.toolRouting.executionStatus, "EXECUTED", reflections(packet));
    assert.equal(packet.stateReason, "done: filesystem.read_text_file ran");
    assert.match(packet.toolRouting.reviewReasoning, /^approved: /);
    assert.equal(packet.toolRouting.selectedTool.toolName, "filesystem.read_text_file");
    const content = readFileSync(join(t.workspace, "notes/todo.md"), "utf8");
    const result = packet.content.dataFields.find((f: any) => f.key === "tool_result");
    assert.ok(result, "a tool_result data field");
    assert.ok(JSON.stringify(result.value).includes(JSON.stringify(content).slice(1, -1)), "the file's real content");
    assert.ok(packet.toolRouting.reinjectionCount >= 1);
    assert.equal(packet.toolRouting.executionResult.output, undefined, "the output is stored once, in the data field");

    // Hops: the six services in order, each a different process, then intent again after reinjection.
    const services = packet.hops.map((h: any) => h.service);
    assert.deepEqual(services.slice(0, 6), [...SERVICES]);
    assert.equal(services[6], "intent");
    const instances = new Set(packet.hops.slice(0, 6).map((h: any) => h.instance));
    assert.equal(instances.size, 6);
    const pids = SERVICES.map((s) => t.fleet.processes.get(s)!.child.pid);
    for (const [i, hop] of packet.hops.slice(0, 6).entries()) {
      assert.equal(hop.instance.split(":").at(-1), String(pids[i]), `hop ${i + 1} ran in ${SERVICES[i]}'s process`);
      assert.equal(hop.hop, i + 1);
    }

    const stored = await t.get(`/v1/packets/${packet.header.packetId}`);
    assert.equal(stored.status, 200);
    assert.equal(stored.json.toolRouting.executionStatus, "EXECUTED");
  });

  it("fleet - small talk needs no tool and executes nothing", async () => {
    const { status, json: packet } = await t.post("/v1/packets", { message: "thanks, that was helpful!" });
    assert.equal(status, 200);
    assert.equal(packet.toolRouting.needsTool, false);
    assert.notEqual(packet.toolRouting.executionStatus, "EXECUTED");
    assert.equal(packet.content.dataFields.length, 0);
    assert.deepEqual(packet.hops.map((h: any) => h.service), ["gateway", "intent"]);
    assert.match(packet.stateReason, /^no tool needed: small talk/);
  });

  it("fleet - a later step inherits the folder an earlier step listed: \"list the notes folder, then read todo.md\"", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "list the notes folder, then read todo.md" });
    assert.equal(packet.stateReason, "done: all 2 steps ran", reflections(packet));
    const results = packet.content.dataFields.filter((f: any) => f.key === "tool_result").map((f: any) => f.value);
    assert.deepEqual(results.map((r: any) => [r.tool, r.params.path, r.success]), [
      ["filesystem.list_directory", "notes", true],
      ["filesystem.read_text_file", "notes/todo.md", true],
    ]);
  });

  it("fleet - a question the tool-need gate turns down says so, with the numbers and what to change", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "explain recursion like I'm five" });
    assert.equal(packet.state, "COMPLETED", reflections(packet));
    assert.equal(packet.toolRouting.executionStatus, "SKIPPED", reflections(packet));
    assert.equal(packet.toolRouting.toolNeed.needed, false);
    assert.match(
      packet.stateReason,
      /^no tool needed: tool-need probability \d\.\d\d < 0\.15 \(best match \S+ \d\.\d\d\); .*set SELECTOR_MODEL to let a model decide, or lower ROUTER_TOOL_NEED_THRESHOLD$/,
      reflections(packet),
    );
  });

  it("fleet - a paraphrase with no rule's word is not turned away: \"what's on my to-do list?\" reaches a tool", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "what's on my to-do list?" });
    assert.equal(packet.toolRouting.toolNeed.needed, true, reflections(packet));
    assert.ok(packet.toolRouting.selectedTool?.toolName.startsWith("filesystem."), reflections(packet));
  });

  it("fleet - \"and the other one?\" after \"read notes/todo.md\" does not read notes/todo.md again", async () => {
    const history = [{ role: "user", content: "read notes/todo.md" }];
    const { json: packet } = await t.post("/v1/packets", { message: "and the other one?", history });
    const reads = packet.content.dataFields.filter((f: any) => f.key === "tool_result").map((f: any) => f.value.params);
    assert.deepEqual(reads, [], reflections(packet));
    assert.notEqual(packet.toolRouting.executionStatus, "EXECUTED");
    assert.match(packet.stateReason, /is required/, "the call lacks the file the user has not named yet");
  });

  it("fleet - \"and the other one?\" after a listing and a read reads the file the listing showed and the read did not", async () => {
    writeFileSync(join(t.workspace, "notes/ideas.md"), "- a tool router\n");
    const history = [
      { role: "user", content: "list the notes folder" },
      { role: "tool", content: "[FILE] ideas.md\n[FILE] todo.md" },
      { role: "user", content: "read notes/todo.md" },
      { role: "assistant", content: "- buy milk" },
    ];
    const { json: packet } = await t.post("/v1/packets", { message: "and the other one?", history });
    const reads = packet.content.dataFields.filter((f: any) => f.key === "tool_result").map((f: any) => [f.value.tool, f.value.params.path]);
    assert.deepEqual(reads, [["filesystem.read_text_file", "notes/ideas.md"]], reflections(packet));
    assert.equal(packet.toolRouting.executionStatus, "EXECUTED", reflections(packet));
  });

  it("fleet - a message in a language the offline router cannot read says so, never \"no tool\"", async () => {
    const { status, json: packet } = await t.post("/v1/packets", { message: "lis los archivos en la carpeta notes" });
    assert.equal(status, 200);
    assert.equal(packet.toolRouting.toolNeed.unreadLanguage, "Spanish");
    assert.match(packet.stateReason, /^cannot route a message in Spanish offline: .*configure an embeddings endpoint \(EMBEDDINGS_BASE_URL\)/);
  });

  it("fleet - a write is not executed and the reflection log says why", async () => {
    const { json: packet } = await t.post("/v1/packets", {
      message: "write 'hello there' to the file notes/new.md",
    });
    assert.notEqual(packet.toolRouting.executionStatus, "EXECUTED", reflections(packet));
    assert.equal(existsSync(join(t.workspace, "notes/new.md")), false, "the file was not written");
    assert.match(reflections(packet), /dry-run|approval|ALLOW_WRITE_TOOLS/i);
    assert.equal(packet.state, "COMPLETED");
    assert.equal(packet.toolRouting.dryRun, true);
    assert.match(packet.stateReason, /^dry run: filesystem\.write_file is a write tool .*set ALLOW_WRITE_TOOLS=true/);
    assert.equal(packet.toolRouting.reviewReasoning, packet.stateReason, "the review says the same, not \"approved\"");
  });

  it("fleet - reading a missing file: COMPLETED with a failed step, the reason says so and names the path as the caller did", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "please read the file notes/missing.md" });
    assert.equal(packet.state, "COMPLETED", reflections(packet));
    assert.equal(packet.toolRouting.executionStatus, "FAILED", reflections(packet));
    assert.match(packet.stateReason, /^tool failed: filesystem\.read_text_file: .*ENOENT.*'notes\/missing\.md'/);
    assert.match(packet.toolRouting.executionResult.error, /'notes\/missing\.md'/);
    // No absolute path of the workspace anywhere in the answer: not in the reason, the error, the data fields or the log.
    const answer = JSON.stringify(packet);
    for (const root of new Set([t.workspace, realpathSync(t.workspace)])) assert.ok(!answer.includes(root), `${root} in ${answer}`);
  });

  it("fleet - a delete is not executed and the reflection log says why", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "delete the file notes/todo.md" });
    assert.notEqual(packet.toolRouting.executionStatus, "EXECUTED", reflections(packet));
    assert.ok(existsSync(join(t.workspace, "notes/todo.md")), "the file is still there");
    assert.ok(packet.reasoning.reflectionLog.length > 0);
    assert.match(reflections(packet), /not|skip|dry-run|approval/i);
    // Whatever stopped it, the reason starts with the outcome and names the delete.
    assert.match(packet.stateReason, /^(refused|skipped|dry run|no tool \w+): .*delete/i, reflections(packet));
  });

  it("fleet - route-only lists candidates with scores, core tools included, and executes nothing", async () => {
    const { status, json } = await t.post("/v1/route", { message: "list the files in the notes directory" });
    assert.equal(status, 200, JSON.stringify(json));
    assert.ok(json.candidates.length >= 2);
    const names = json.candidates.map((c: any) => c.tool.name);
    assert.ok(names.includes("filesystem.list_directory"), names.join(","));
    const core = json.candidates.filter((c: any) => c.source === "CORE");
    assert.ok(core.length >= 1, "core tools are included");
    for (const c of json.candidates) assert.equal(typeof c.score, "number");
    // The allow-list is never exceeded.
    const only = await t.post("/v1/route", { message: "list the files", tools: ["filesystem.list_directory"] });
    assert.deepEqual(only.json.candidates.map((c: any) => c.tool.name), ["filesystem.list_directory"]);
  });

  it("fleet - the tool catalog lists the MCP servers' tools", async () => {
    const { status, json } = await t.get("/v1/tools");
    assert.equal(status, 200);
    const names = json.tools.map((tool: any) => tool.name);
    assert.ok(names.includes("filesystem.read_text_file"));
    assert.ok(names.includes("memory.search_nodes"));
    assert.ok(!names.includes("filesystem.read_file"), "excluded by switchyard.yaml");
  });

  it("fleet - bad bodies get 400 or 413 naming the field, and the fleet keeps serving", async () => {
    const notJson = await t.post("/v1/packets", "{not json");
    assert.equal(notJson.status, 400);
    const missing = await t.post("/v1/packets", { sessionId: "s" });
    assert.equal(missing.status, 400);
    assert.match(missing.json.message, /message/);
    const wrongType = await t.post("/v1/packets", { message: 42 });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.json.message, /message/);
    const wrongWait = await t.post("/v1/packets", { message: "hi", wait: "soon" });
    assert.equal(wrongWait.status, 400);
    assert.match(wrongWait.json.message, /wait/);
    const huge = await t.post("/v1/packets", { message: "x".repeat(2 * 1024 * 1024) });
    assert.equal(huge.status, 413);
    const ok = await t.post("/v1/packets", { message: "hello" });
    assert.equal(ok.status, 200);
  });

  it("fleet - the reinjection cap ends a long request with SKIPPED and says why", async () => {
    const { json: packet } = await t.post("/v1/packets", {
      message:
        "read notes/todo.md, then list the directory notes, then read the knowledge graph, then list the directory notes, then read notes/todo.md",
    });
    assert.equal(packet.toolRouting.reinjectionCount, 3, reflections(packet));
    assert.equal(packet.toolRouting.executionStatus, "SKIPPED", reflections(packet));
    assert.match(reflections(packet), /reinjection cap/i);
    assert.match(packet.stateReason, /^reinjection cap reached \(3\): 2 of 5 steps not run/);
    const executions = packet.content.dataFields.filter((f: any) => f.key === "tool_result");
    assert.equal(executions.length, 3);
  });

  it("fleet - wait=false answers 202 and the packet can be fetched when done", async () => {
    const { status, json } = await t.post("/v1/packets", { message: "please read the file notes/todo.md", wait: false });
    assert.equal(status, 202);
    const id = json.packetId;
    const done = await eventually(async () => {
      const r = await t.get(`/v1/packets/${id}`);
      return r.json?.state === "COMPLETED" ? r.json : undefined;
    });
    assert.equal(done.toolRouting.executionStatus, "EXECUTED");
    assert.equal((await t.get("/v1/packets/00000000-0000-0000-0000-000000000000")).status, 404);
  });

  it("fleet - a stage killed and restarted mid-run loses no packet", async () => {
    await t.fleet.kill("selector");
    const { status, json } = await t.post("/v1/packets", { message: "please read the file notes/todo.md", wait: false });
    assert.equal(status, 202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const waiting = await t.get(`/v1/packets/${json.packetId}`);
    assert.notEqual(waiting.json.state, "COMPLETED", "nothing can finish without a selector");
    await t.fleet.start("selector");
    const done = await eventually(async () => {
      const r = await t.get(`/v1/packets/${json.packetId}`);
      return r.json?.state === "COMPLETED" ? r.json : undefined;
    });
    assert.equal(done.toolRouting.executionStatus, "EXECUTED");
    const selectorHops = done.hops.filter((h: any) => h.service === "selector");
    assert.equal(selectorHops.length, 1);
    assert.equal(selectorHops[0].instance.split(":").at(-1), String(t.fleet.processes.get("selector")!.child.pid));
  });

  it("fleet - the same API over gRPC: SubmitPacket, GetPacket, Route, ListTools", async () => {
    const port = t.fleet.processes.get("gateway")!.ready["grpcPort"];
    const client = createRouterClient(`127.0.0.1:${port}`);
    try {
      const submitted = await client.submitPacket({ message: "please read the file notes/todo.md" });
      assert.equal(submitted.finished, true);
      assert.equal(submitted.packet?.state, Packet_State.COMPLETED);
      assert.equal(submitted.packet?.toolRouting?.executionStatus, ToolRoutingState_ExecutionStatus.EXECUTED);
      const fetched = await client.getPacket({ packetId: submitted.packetId });
      assert.equal(fetched.header?.packetId, submitted.packetId);
      const routed = await client.route({ message: "list the files in notes" });
      assert.ok(routed.candidates.some((c) => c.tool?.name === "filesystem.list_directory"));
      const tools = await client.listTools({});
      assert.ok(tools.tools.length > 5);
      await assert.rejects(client.submitPacket({ message: "" }), /message/);
    } finally {
      client.close();
    }
  });

  it("fleet - every process is a NATS micro service: $SRV.INFO lists the six with their endpoints, $SRV.STATS counts their requests", async () => {
    const routed = await t.post("/v1/route", { message: "list the files in notes" });
    assert.equal(routed.status, 200);
    const nc = await connect({ servers: t.natsUrl });
    try {
      // The services library's client asks what `nats micro info` and `nats micro stats` ask.
      const client = new Svcm(nc).client();
      const infos: ServiceInfo[] = [];
      for await (const info of await client.info()) infos.push(info);
      assert.deepEqual(infos.map((info) => info.name).sort(), [...SERVICES].sort());
      const endpointsOf = (name: string) =>
        infos.find((info) => info.name === name)!.endpoints.map((e) => [e.name, e.subject, e.queue_group]).sort();
      assert.deepEqual(endpointsOf("embedding-router"), [
        ["examples", EXAMPLES_SUBJECT, "embedding-router"],
        ["feedback", FEEDBACK_SUBJECT, "embedding-router"],
        ["rank-tools", RANK_TOOLS_SUBJECT, "embedding-router"],
        ["route", ROUTE_SUBJECT, "embedding-router"],
      ]);
      const executor = endpointsOf("executor");
      assert.ok(executor.some(([name, subject]) => name === "approve-tool-filesystem" && subject === toolApprovalSubject("filesystem")), JSON.stringify(executor));
      for (const stage of ["intent", "selector", "reviewer", "gateway"]) assert.deepEqual(endpointsOf(stage), [], `${stage} serves no request/reply endpoint`);
      for (const info of infos) assert.match(info.description, /\w/, `${info.name} says what it does`);

      const stats: ServiceStats[] = [];
      for await (const stat of await client.stats("embedding-router")) stats.push(stat);
      const route = stats.flatMap((stat) => stat.endpoints ?? []).filter((e) => e.name === "route");
      assert.ok(route.reduce((n, e) => n + e.num_requests, 0) >= 1, `route requests counted: ${JSON.stringify(route)}`);
      assert.ok(route.reduce((ms, e) => ms + (e.data as AnswerStats).answeringMs, 0) > 0, "the time spent answering, in data");
    } finally {
      await nc.close();
    }
  });
});
