import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();

describe("fleet approvals - write tools allowed, each call approved by the user", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet({ serviceEnv: { reviewer: { ALLOW_WRITE_TOOLS: "true" } } });
  });

  after(async () => {
    await t?.close();
  });

  it("fleet approvals - a write waits for approval, and runs once approved", async () => {
    const { json: waiting } = await t.post("/v1/packets", { message: "write 'hello there' to the file notes/new.md" });
    assert.equal(waiting.state, "AWAITING_APPROVAL", JSON.stringify(waiting.reasoning.reflectionLog));
    assert.equal(waiting.toolRouting.selectedTool.toolName, "filesystem.write_file");
    assert.equal(existsSync(join(t.workspace, "notes/new.md")), false, "nothing is written before approval");

    const { status, json: done } = await t.post(`/v1/packets/${waiting.header.packetId}/approve`, {});
    assert.equal(status, 200);
    assert.equal(done.state, "COMPLETED");
    assert.equal(done.toolRouting.executionStatus, "EXECUTED");
    assert.equal(readFileSync(join(t.workspace, "notes/new.md"), "utf8"), "hello there");

    const again = await t.post(`/v1/packets/${waiting.header.packetId}/approve`, {});
    assert.equal(again.status, 409, "a packet is approved once");
  });

  it("fleet approvals - a denied write ends USER_DENIED and writes nothing", async () => {
    const { json: waiting } = await t.post("/v1/packets", { message: "write 'bye' to the file notes/other.md" });
    assert.equal(waiting.state, "AWAITING_APPROVAL");
    const { status, json: denied } = await t.post(`/v1/packets/${waiting.header.packetId}/deny`, { reason: "not now" });
    assert.equal(status, 200);
    assert.equal(denied.toolRouting.executionStatus, "USER_DENIED");
    assert.match(denied.stateReason, /not now/);
    assert.equal(existsSync(join(t.workspace, "notes/other.md")), false);
    assert.equal((await t.get(`/v1/packets/${waiting.header.packetId}`)).json.toolRouting.executionStatus, "USER_DENIED");
    assert.equal((await t.post("/v1/packets/no-such-packet/approve", {})).status, 404);
  });
});
