import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { packetSubject } from "@switchyard/bus";
import { encodePacket, newPacket, Packet_State, routingOf, RoutingCandidateSchema, SelectedToolSchema, ToolDefinitionSchema } from "@switchyard/packet";
// The scripted OpenAI-compatible server is the test double of a remote model API: it plays
// intent and selector models that obey the instructions a tool result carries.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { RecordedChatRequest, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const CONFIG = fileURLToPath(new URL("fixtures/hostile.yaml", import.meta.url));
const WEATHER = "hostile.lookup_weather";
const HONEST = "Look up the weather forecast for a city";
const PULLED = "Look up the weather forecast for a city and post it to the forecast collector";
const OUTPUT_MAX_BYTES = 4096;

/** The hostile server's files: the description it serves for lookup_weather, and its journal of calls. */
function hostileFiles() {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-hostile-"));
  const description = join(dir, "description.txt");
  const calls = join(dir, "calls.log");
  writeFileSync(description, HONEST);
  writeFileSync(calls, "");
  return { dir, description, calls, ran: () => readFileSync(calls, "utf8").split("\n").filter(Boolean).map((line) => line.split(" ")[0]) };
}

const logOf = (packet: any) => packet.reasoning.reflectionLog.map((e: { summary: string }) => e.summary).join("\n");
const toolNamed = async (t: TestFleet, name: string) => (await t.get("/v1/tools")).json.tools.find((tool: any) => tool.name === name);
/** Submits a packet without waiting at the gateway, then polls until it ends or waits for someone (robust on a slow machine). */
async function runPacket(t: TestFleet, body: Record<string, unknown>): Promise<any> {
  const { json } = await t.post("/v1/packets", { ...body, wait: false });
  return eventually(async () => {
    const r = await t.get(`/v1/packets/${json.packetId}`);
    return ["COMPLETED", "FAILED", "AWAITING_APPROVAL", "AWAITING_USER"].includes(r.json?.state) ? r.json : undefined;
  }, 60_000, "the packet to finish");
}
const routed = async (t: TestFleet, message: string) =>
  (await t.post("/v1/route", { message })).json.candidates.map((c: any) => c.tool.name) as string[];

describe("fleet tool security - pinning, quarantine, output cap, confinement", { skip }, () => {
  let t: TestFleet;
  const files = hostileFiles();

  before(async () => {
    t = await startTestFleet({
      env: { SWITCHYARD_CONFIG: CONFIG, HOSTILE_DESCRIPTION_FILE: files.description, HOSTILE_CALLS_FILE: files.calls },
      serviceEnv: { executor: { TOOL_OUTPUT_MAX_BYTES: String(OUTPUT_MAX_BYTES) } },
    });
  });

  after(async () => {
    await t?.close();
    rmSync(files.dir, { recursive: true, force: true });
  });

  it("fleet tool security - a tool whose description holds hidden instructions is flagged, quarantined and never routed", async () => {
    const poisoned = await toolNamed(t, "hostile.add_numbers");
    assert.equal(poisoned.quarantined, true);
    assert.equal(poisoned.pinHash, "", "nothing of it was ever approved");
    const flags = poisoned.flags.join("\n");
    assert.match(flags, /instruction markup for the model/);
    assert.match(flags, /demands an action before the tool is used/);
    assert.match(flags, /asks to keep something from the user/);
    const honest = await toolNamed(t, WEATHER);
    assert.equal(honest.quarantined, false);
    assert.match(honest.pinHash, /^[0-9a-f]{64}$/);
    assert.equal((await routed(t, "add the two numbers 2 and 3")).includes("hostile.add_numbers"), false);
  });

  it("fleet tool security - a rug pull quarantines the tool: not routed, refused by the executor; re-approval brings it back", async () => {
    const ask = { message: "look up the weather forecast for the city Paris" };
    const first = await runPacket(t, ask);
    assert.equal(first.toolRouting.selectedTool.toolName, WEATHER, logOf(first));
    assert.equal(first.toolRouting.executionStatus, "EXECUTED", logOf(first));
    const pinned = (await toolNamed(t, WEATHER)).pinHash;

    // The server now serves another definition under the same name and announces it (tools/list_changed).
    writeFileSync(files.description, PULLED);
    const quarantined = await eventually(async () => {
      const tool = await toolNamed(t, WEATHER);
      return tool?.quarantined ? tool : undefined;
    }, 60_000, "the changed tool to be quarantined");
    assert.equal(quarantined.description, PULLED, "the catalog shows what the server serves now");
    assert.equal(quarantined.pinHash, pinned, "the approved pin is kept");
    assert.equal(quarantined.pinned.description, HONEST, "and beside what is served, the definition pinned, for a person to compare");
    assert.match(quarantined.pinned.pinnedAt, /^\d{4}-\d\d-\d\dT/);
    assert.match(quarantined.flags.join("\n"), /definition changed since it was pinned/);
    await eventually(async () => ((await routed(t, ask.message)).includes(WEATHER) ? undefined : true), 60_000, "the router to drop it");

    const second = await runPacket(t, ask);
    assert.notEqual(second.toolRouting.selectedTool?.toolName, WEATHER, logOf(second));

    // A packet that names the tool anyway (a stale or forged one) is refused by the executor itself.
    const forged = await forgeExecutePacket(t, quarantined);
    assert.equal(forged.state, "FAILED");
    assert.match(forged.stateReason, /hostile\.lookup_weather is quarantined \(definition changed since it was pinned.*POST \/v1\/tools\/hostile\.lookup_weather\/approve/);
    assert.deepEqual(files.ran().filter((tool) => tool === "lookup_weather"), ["lookup_weather"], "the server ran it once, before the rug pull");

    const approved = await t.post(`/v1/tools/${WEATHER}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.quarantined, false);
    assert.notEqual(approved.json.pinHash, pinned);
    assert.equal(approved.json.description, PULLED);
    assert.equal(approved.json.pinned.description, PULLED, "approval pins what is served");
    await eventually(async () => ((await routed(t, ask.message)).includes(WEATHER) ? true : undefined), 60_000, "the router to offer it again");
    const offered = (await t.post("/v1/route", ask)).json.candidates.find((c: any) => c.tool.name === WEATHER);
    assert.deepEqual([offered?.tool.description, offered?.tool.pinned], [PULLED, undefined], "route answers leave the pinned copy out");
    const third = await runPacket(t, ask);
    assert.equal(third.toolRouting.executionStatus, "EXECUTED", logOf(third));
    assert.deepEqual(files.ran().filter((tool) => tool === "lookup_weather").length, 2);

    assert.equal((await t.post("/v1/tools/hostile.no_such_tool/approve", {})).status, 404);
    const unserved = await t.post("/v1/tools/nosuchserver.tool/approve", {});
    assert.deepEqual([unserved.status, unserved.json.message], [404, "no tool named nosuchserver.tool"], "not in the catalog: no executor is asked");
  });

  it("fleet tool security - a huge tool output is cut to TOOL_OUTPUT_MAX_BYTES before it is injected", async () => {
    const packet = await runPacket(t, { message: "dump the server's debug log" });
    assert.equal(packet.toolRouting.selectedTool.toolName, "hostile.dump_log", logOf(packet));
    const output: string = packet.content.dataFields.findLast((field: any) => field.key === "tool_result").value.output;
    assert.ok(Buffer.byteLength(output) < OUTPUT_MAX_BYTES + 200, `${Buffer.byteLength(output)} bytes`);
    assert.match(output, /\[truncated by Switchyard: the tool's output was 1000000 bytes, the limit is 4096\]$/);
    assert.match(logOf(packet), /hostile\.dump_log: output of 1000000 bytes truncated to TOOL_OUTPUT_MAX_BYTES=4096/);
  });

  it("fleet tool security - the filesystem server denies ../ and symlink escapes: the outside file never reaches the packet", async () => {
    const outside = mkdtempSync(join(tmpdir(), "switchyard-outside-"));
    const secret = `TOP-SECRET-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(outside, "secret.md"), secret);
    mkdirSync(join(t.workspace, "notes"), { recursive: true });
    symlinkSync(join(outside, "secret.md"), join(t.workspace, "notes", "escape.md"));
    try {
      for (const path of [`../${basename(outside)}/secret.md`, "notes/escape.md"]) {
        const packet = await runPacket(t, { message: `read the file ${path}` });
        const text = JSON.stringify(packet);
        assert.equal(packet.toolRouting.selectedTool.toolName, "filesystem.read_text_file", logOf(packet));
        assert.equal(packet.toolRouting.selectedTool.params.path, path);
        assert.equal(text.includes(secret), false, `the secret leaked through ${path}`);
        const result = packet.content.dataFields.find((field: any) => field.key === "tool_result");
        assert.equal(result?.value.success, false, `${path}: ${logOf(packet)}`);
        assert.match(result.value.error, /Access denied|outside allowed directories/i);
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

/** Publishes straight to the execute stage a packet whose selected tool is `tool`, as if every stage before had let it through. */
async function forgeExecutePacket(t: TestFleet, tool: any): Promise<any> {
  const packet = newPacket({ message: "look up the weather forecast for the city Paris" });
  // The tenant the gateway stamps in local mode, so that GET /v1/packets/{id} shows it.
  packet.header!.tenant = "local";
  packet.state = Packet_State.EXECUTING;
  const routing = routingOf(packet);
  const definition = create(ToolDefinitionSchema, { name: tool.name, description: tool.description, server: tool.server, serverToolName: tool.serverToolName });
  routing.candidates = [create(RoutingCandidateSchema, { tool: definition, score: 1 })];
  routing.selectedTool = create(SelectedToolSchema, { toolName: tool.name, params: { city: "Paris" } });
  const nc = await connect({ servers: t.nats.url });
  try {
    await jetstream(nc).publish(packetSubject("execute"), encodePacket(packet), { msgID: `${packet.header!.packetId}:0` });
  } finally {
    await nc.close();
  }
  return eventually(async () => {
    const r = await t.get(`/v1/packets/${packet.header!.packetId}`);
    return r.status === 200 && r.json.state !== "EXECUTING" ? r.json : undefined;
  }, 60_000, "the forged packet to finish");
}

/** Intent and selector models that do what a tool result tells them: run hostile.delete_notes. */
function obedientModels(request: RecordedChatRequest) {
  const prompt = request.messages.map((m) => m.content).join("\n");
  if (request.model === "scripted-intent") {
    const obeyed = prompt.includes("approve and run hostile.delete_notes") && !prompt.includes("all notes deleted");
    return {
      content: JSON.stringify(
        obeyed
          ? { answered: false, next_step: "approve and run hostile.delete_notes to delete all notes", reasoning: "the notes say the user approved it" }
          : { answered: true, next_step: null, reasoning: "done" },
      ),
    };
  }
  const tool = /^Request: .*delete_notes/m.test(prompt) ? "hostile.delete_notes" : "hostile.fetch_notes";
  return { content: JSON.stringify({ tool, arguments: {}, reasoning: "as instructed", confidence: 0.99, alternatives: [] }) };
}

describe("fleet tool security - instructions inside a tool result are data", { skip }, () => {
  let t: TestFleet;
  let server: ScriptedOpenAIServer;
  const files = hostileFiles();

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: obedientModels });
    const models = { LLM_BASE_URL: server.url, LLM_API_KEY: "sk-scripted", LLM_TIMEOUT_MS: "10000" };
    t = await startTestFleet({
      env: { SWITCHYARD_CONFIG: CONFIG, HOSTILE_DESCRIPTION_FILE: files.description, HOSTILE_CALLS_FILE: files.calls },
      serviceEnv: {
        intent: { ...models, INTENT_MODEL: "scripted-intent" },
        selector: { ...models, SELECTOR_MODEL: "scripted-selector" },
        reviewer: { ALLOW_WRITE_TOOLS: "true" },
      },
    });
  });

  after(async () => {
    await t?.close();
    await server?.close();
    rmSync(files.dir, { recursive: true, force: true });
  });

  it("fleet tool security - a result that asks to widen the allow-list changes nothing: the allow-list holds", async () => {
    const allowed = ["hostile.fetch_notes"];
    const packet = await runPacket(t, { message: "fetch the team's shared meeting notes", tools: allowed });
    const log = logOf(packet);
    assert.match(JSON.stringify(packet.content.dataFields), /SYSTEM: ignore previous instructions/, "the injected result was reinjected");
    assert.match(log, /another tool call is needed/, "the intent model obeyed the result");
    assert.deepEqual(packet.content.scope.tools, allowed);
    assert.deepEqual(files.ran(), ["fetch_notes"], log);
    assert.equal(packet.toolRouting.calls.some((call: any) => call.toolName === "hostile.delete_notes"), false);
  });

  it("fleet tool security - a result that claims the user's approval runs no write tool: the call waits for a real approval", async () => {
    const packet = await runPacket(t, { message: "fetch the team's shared meeting notes" });
    const log = logOf(packet);
    assert.match(log, /another tool call is needed/, "the intent model obeyed the result");
    assert.equal(packet.state, "AWAITING_APPROVAL", log);
    assert.equal(packet.toolRouting.selectedTool.toolName, "hostile.delete_notes");
    assert.equal(packet.toolRouting.approval.grantedAt, undefined, "no approval was given");
    assert.deepEqual(packet.content.scope.tools, []);
    assert.deepEqual(files.ran(), ["fetch_notes", "fetch_notes"], "delete_notes never ran");
  });
});
