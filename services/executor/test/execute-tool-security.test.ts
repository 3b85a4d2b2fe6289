import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { openBucket } from "@switchyard/bus";
import { latestToolOutput, newPacket, Packet_State, routingOf, RoutingCandidateSchema, SelectedToolSchema } from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { suiteNats } from "@switchyard/test-fixtures";
import { syncCatalog } from "../src/catalog-sync.js";
import { executeStage } from "../src/execute.js";
import { McpPool } from "../src/mcp-pool.js";
import { loadServersConfig } from "../src/servers-config.js";
import { toolGuard } from "../src/tool-guard.js";

// Built by `pnpm build` like the fleet-test config that also starts it (test/fixtures/hostile.yaml).
const HOSTILE_SERVER = fileURLToPath(new URL("../../../packages/test-fixtures/dist/hostile-mcp-server.js", import.meta.url));
const CONFIG = { MCP_CALL_TIMEOUT_MS: 10_000, TOOL_OUTPUT_MAX_BYTES: 1024 };

describe("execute stage - tool security", () => {
  const nats = suiteNats();
  let dir = "";
  let pool: McpPool;
  let catalog: KV;
  const calls: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-execute-security-"));
    await writeFile(join(dir, "description.txt"), "Look up the weather forecast for a city");
    await writeFile(
      join(dir, "switchyard.yaml"),
      `servers:\n  hostile:\n    command: ${process.execPath}\n    args: [${JSON.stringify(HOSTILE_SERVER)}]\n` +
        `    env: { HOSTILE_DESCRIPTION_FILE: ./description.txt, HOSTILE_CALLS_FILE: ./calls.log }\n`,
    );
    pool = await McpPool.connect((await loadServersConfig(join(dir, "switchyard.yaml"), {})).servers);
    catalog = await openBucket(nats.nc, "execute-security-catalog");
    await syncCatalog(catalog, ["hostile"], pool.listTools());
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function routedPacket(toolName: string, params: JsonObject): Packet {
    const packet = newPacket({ message: "run it" });
    const routing = routingOf(packet);
    const tool = pool.listTools().find((candidate) => candidate.name === toolName);
    routing.candidates = [create(RoutingCandidateSchema, { tool, score: 0.9 })];
    routing.selectedTool = create(SelectedToolSchema, { toolName, params });
    packet.state = Packet_State.EXECUTING;
    return packet;
  }

  const run = (packet: Packet) =>
    executeStage(packet, { callTool: (name, args, options) => (calls.push(name), pool.callTool(name, args, options)), vetCall: toolGuard(catalog, () => pool.listTools()), config: CONFIG });

  it("execute - a quarantined tool (hidden instructions) is refused before any call, the packet says why", async () => {
    calls.length = 0;
    const packet = routedPacket("hostile.add_numbers", { a: 1, b: 2 });
    assert.deepEqual(await run(packet), { done: true });
    assert.equal(packet.state, Packet_State.FAILED);
    assert.match(packet.stateReason, /hostile\.add_numbers is quarantined \(description holds hidden instructions/);
    assert.deepEqual(calls, [], "no call reached the server");
  });

  it("execute - arguments that do not match the tool's schema are refused by the executor itself", async () => {
    calls.length = 0;
    const packet = routedPacket("hostile.dump_log", { bytes: "all of it" });
    await run(packet);
    assert.equal(packet.state, Packet_State.FAILED);
    assert.match(packet.stateReason, /hostile\.dump_log not executed: its arguments do not match its input schema: bytes: must be integer/);
    assert.deepEqual(calls, []);
  });

  it("execute - a huge output is cut to TOOL_OUTPUT_MAX_BYTES before it is injected, with a reflection entry", async () => {
    const packet = routedPacket("hostile.dump_log", { bytes: 50_000 });
    assert.deepEqual(await run(packet), { next: "intent" });
    const output = latestToolOutput(packet);
    assert.equal(typeof output, "string");
    assert.match(String(output), /^debug: all systems nominal/);
    assert.match(String(output), /\[truncated by Switchyard: the tool's output was 50000 bytes, the limit is 1024\]$/);
    assert.ok(packet.reasoning?.reflectionLog.some((entry) => /output of 50000 bytes truncated/.test(entry.summary)));
  });
});
