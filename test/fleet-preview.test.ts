import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createRouterClient } from "@switchyard/grpc";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();

/** Every reflection-log summary of a packet, one string, for messages. */
function reflections(packet: any): string {
  return packet.reasoning.reflectionLog.map((e: any) => `${e.step}: ${e.summary}`).join("\n");
}

describe("fleet preview - what the console's playground asks: route explanations and preview packets", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet({ serviceEnv: { reviewer: { ALLOW_WRITE_TOOLS: "true" } } });
  });

  after(async () => {
    await t?.close();
  });

  it("fleet preview - a preview of a write with approvals on says it would ask for approval; no packet waits, nothing is written", async () => {
    const message = "write 'hello there' to the file notes/preview.md";
    const { status, json: previewed } = await t.post("/v1/packets", { message, dryRun: true, wait: true });
    assert.equal(status, 200, JSON.stringify(previewed));
    assert.equal(previewed.state, "COMPLETED", reflections(previewed));
    assert.equal(previewed.header.preview, true);
    assert.equal(previewed.toolRouting.selectedTool.toolName, "filesystem.write_file");
    assert.equal(previewed.toolRouting.dryRun, true);
    assert.equal(previewed.toolRouting.executionStatus, "SKIPPED");
    assert.equal(previewed.toolRouting.approval, undefined, "no approval is asked for");
    assert.match(previewed.stateReason, /^dry run: a preview; would ask for approval before running filesystem\.write_file: /);
    assert.equal(previewed.toolRouting.calls.length, 1);
    assert.equal(previewed.toolRouting.calls[0].dryRun, true);
    assert.equal(existsSync(join(t.workspace, "notes/preview.md")), false, "nothing is written");
    const approve = await t.post(`/v1/packets/${previewed.header.packetId}/approve`, {});
    assert.equal(approve.status, 409, "the preview waits for no approval");

    // the same request without dryRun does wait for one: the preview said what would happen
    const { json: held } = await t.post("/v1/packets", { message });
    assert.equal(held.state, "AWAITING_APPROVAL", reflections(held));
    assert.equal(held.header.preview, false);
    await t.post(`/v1/packets/${held.header.packetId}/deny`, { reason: "only a test" });
    assert.equal(existsSync(join(t.workspace, "notes/preview.md")), false);
  });

  it("fleet preview - a preview of a read says it would run it, and runs nothing", async () => {
    const { json: previewed } = await t.post("/v1/packets", { message: "please read the file notes/todo.md", dryRun: true });
    assert.equal(previewed.state, "COMPLETED", reflections(previewed));
    assert.match(previewed.stateReason, /^dry run: a preview; would run filesystem\.read_text_file: /);
    const result = previewed.content.dataFields.find((f: any) => f.key === "tool_result");
    assert.equal(result?.value.dryRun, true, "the call described, not made");
    assert.deepEqual(result?.value.output, { dryRun: true, tool: "filesystem.read_text_file", arguments: { path: "notes/todo.md" } });
  });

  it("fleet preview - POST /v1/route and gRPC Route name each candidate's matched words and the tool-need verdict", async () => {
    const message = "show me the contents of the file notes/todo.md";
    const { status, json } = await t.post("/v1/route", { message });
    assert.equal(status, 200, JSON.stringify(json));
    const read = json.candidates.find((c: any) => c.tool.name === "filesystem.read_text_file");
    assert.ok(read, json.candidates.map((c: any) => c.tool.name).join(", "));
    assert.ok(read.matchedWords.includes("file"), read.matchedWords.join(", "));
    assert.ok(read.matchedWords.length <= 8);
    assert.equal(typeof read.example, "string");
    for (const c of json.candidates) assert.ok(Array.isArray(c.matchedWords), c.tool.name);
    assert.equal(typeof json.need.needed, "boolean");
    assert.match(json.need.reason, /tool-need probability \d\.\d\d/);

    const port = t.fleet.processes.get("gateway")!.ready["grpcPort"];
    const client = createRouterClient(`127.0.0.1:${port}`);
    try {
      const routed = await client.route({ message });
      const overGrpc = routed.candidates.find((c) => c.tool?.name === "filesystem.read_text_file");
      assert.deepEqual(overGrpc?.matchedWords, read.matchedWords);
      assert.equal(routed.need?.reason, json.need.reason);
    } finally {
      client.close();
    }
  });
});
