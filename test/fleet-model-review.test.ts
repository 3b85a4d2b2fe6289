import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// The scripted OpenAI-compatible server is the test double of a remote model API: it plays
// the selector and the reviewer models, both of which want the "rm -rf" to run.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { RecordedChatRequest, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const CONFIG = fileURLToPath(new URL("fixtures/memory-execute.yaml", import.meta.url));
const REQUEST = "rm -rf the build entity: delete it from the knowledge graph";
const DELETE_BUILD = { tool: "memory.delete_entities", arguments: { entityNames: ["build"] } };

/** The selector model picks delete_entities for the build entity; the reviewer model approves it, very sure. */
function eagerModels(request: RecordedChatRequest) {
  if (request.model === "scripted-selector") {
    return { content: JSON.stringify({ ...DELETE_BUILD, reasoning: "The user wants the entity gone.", confidence: 0.97, alternatives: [] }) };
  }
  return { content: JSON.stringify({ approved: true, confidence: 0.99, reasoning: "Exactly what the user asked for." }) };
}

async function startFleetWithModels(server: ScriptedOpenAIServer, allowExecute: boolean): Promise<TestFleet> {
  const models = { LLM_BASE_URL: server.url, LLM_API_KEY: "sk-scripted", LLM_TIMEOUT_MS: "5000" };
  return startTestFleet({
    env: { SWITCHYARD_CONFIG: CONFIG },
    serviceEnv: {
      selector: { ...models, SELECTOR_MODEL: "scripted-selector" },
      reviewer: { ...models, REVIEWER_MODEL: "scripted-reviewer", ALLOW_EXECUTE_TOOLS: String(allowExecute) },
    },
  });
}

/** The memory server's file, seeded with the entity the request wants gone. */
function seedMemory(t: TestFleet): string {
  const file = join(t.dataDir, "memory.jsonl");
  writeFileSync(file, `${JSON.stringify({ type: "entity", name: "build", entityType: "folder", observations: ["generated files"] })}\n`);
  return file;
}

const holdsBuild = (file: string) => readFileSync(file, "utf8").includes('"name":"build"');

describe("fleet model review - an approved rm -rf without ALLOW_EXECUTE_TOOLS", { skip }, () => {
  let t: TestFleet;
  let server: ScriptedOpenAIServer;

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: eagerModels });
    t = await startFleetWithModels(server, false);
  });
  after(async () => {
    await t?.close();
    await server?.close();
  });

  it("fleet model review - the models approve, policy makes it a dry run: nothing is deleted", async () => {
    const memory = seedMemory(t);
    const { status, json: packet } = await t.post("/v1/packets", { message: REQUEST });
    assert.equal(status, 200);
    const log = packet.reasoning.reflectionLog.map((e: { summary: string }) => e.summary).join("\n");
    assert.equal(packet.state, "COMPLETED", log);
    assert.equal(packet.toolRouting.selectedTool.toolName, "memory.delete_entities");
    assert.equal(packet.toolRouting.reviewConfidence, 0.99, "the reviewer model approved it");
    assert.equal(packet.toolRouting.dryRun, true);
    assert.equal(packet.toolRouting.executionStatus, "SKIPPED");
    assert.match(log, /model scripted-selector/);
    assert.match(log, /model scripted-reviewer review/);
    assert.match(log, /as a dry run .*ALLOW_EXECUTE_TOOLS is off/);
    assert.match(packet.stateReason, /^dry run: memory\.delete_entities is an execute tool and ALLOW_EXECUTE_TOOLS is off; set ALLOW_EXECUTE_TOOLS=true/);
    assert.ok(holdsBuild(memory), "the entity is still there");

    const temperatures = Object.fromEntries(server.chatRequests.map((r) => [r.model, r.temperature]));
    assert.deepEqual(temperatures, { "scripted-selector": 0.15, "scripted-reviewer": 0.3 });
    assert.ok(server.chatRequests.every((r) => r.authorization === "Bearer sk-scripted"));
  });
});

describe("fleet model review - ALLOW_EXECUTE_TOOLS on: the rm -rf runs only on an approval of its exact call", { skip }, () => {
  let t: TestFleet;
  let server: ScriptedOpenAIServer;

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: eagerModels });
    t = await startFleetWithModels(server, true);
  });
  after(async () => {
    await t?.close();
    await server?.close();
  });

  it("fleet model review - waits for approval; another call's hash is refused; the bound approval runs it (EXECUTED)", async () => {
    const memory = seedMemory(t);
    const { json: waiting } = await t.post("/v1/packets", { message: REQUEST });
    assert.equal(waiting.state, "AWAITING_APPROVAL", JSON.stringify(waiting.reasoning.reflectionLog));
    assert.ok(holdsBuild(memory), "nothing runs before the approval");
    const id = waiting.header.packetId;
    const { callHash } = waiting.toolRouting.approval;

    const wrong = await t.post(`/v1/packets/${id}/approve`, { callHash: "f".repeat(64) });
    assert.equal(wrong.status, 409);
    assert.match(wrong.json.message, /is not the call waiting for approval/);
    assert.ok(holdsBuild(memory));

    const { status, json: done } = await t.post(`/v1/packets/${id}/approve`, { callHash });
    assert.equal(status, 200);
    assert.equal(done.toolRouting.executionStatus, "EXECUTED", JSON.stringify(done.reasoning.reflectionLog));
    assert.equal(done.state, "COMPLETED");
    assert.equal(holdsBuild(memory), false, "the entity is deleted");
    assert.deepEqual(
      done.toolRouting.calls.map((c: { toolName: string; callHash: string }) => [c.toolName, c.callHash]),
      [["memory.delete_entities", callHash]],
      "the call that ran is the one approved",
    );
  });

  it("fleet model review - a denial ends the packet USER_DENIED and deletes nothing", async () => {
    const memory = seedMemory(t);
    const { json: waiting } = await t.post("/v1/packets", { message: REQUEST });
    assert.equal(waiting.state, "AWAITING_APPROVAL");
    const { status, json: denied } = await t.post(`/v1/packets/${waiting.header.packetId}/deny`, { reason: "keep the build" });
    assert.equal(status, 200);
    assert.equal(denied.toolRouting.executionStatus, "USER_DENIED");
    assert.ok(holdsBuild(memory));
    assert.equal((await t.get(`/v1/packets/${waiting.header.packetId}`)).json.toolRouting.executionStatus, "USER_DENIED");
  });
});
