import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const REPO_CONFIG = fileURLToPath(new URL("../switchyard.yaml", import.meta.url));
// A user's own server, added to their switchyard.yaml while the fleet runs; echo declared harmless so it runs at once.
const EVERYTHING = "\n  everything:\n    command: mcp-server-everything\n    sideEffects: { echo: read }\n";
const NOT_SERVED = "no longer served by its MCP server";

const logOf = (packet: any) => packet.reasoning.reflectionLog.map((e: { summary: string }) => e.summary).join("\n");

describe("fleet servers reload - MCP servers added to and removed from switchyard.yaml while the fleet runs", { skip }, () => {
  let t: TestFleet;
  // A copy of the repository's config, which the test edits.
  let dir = "";
  let config = "";
  let original = "";

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-reload-"));
    config = join(dir, "switchyard.yaml");
    copyFileSync(REPO_CONFIG, config);
    original = readFileSync(config, "utf8");
    t = await startTestFleet({ env: { SWITCHYARD_CONFIG: config } });
  });
  after(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tools = async () => (await t.get("/v1/tools")).json.tools as { name: string; quarantined: boolean; flags: string[] }[];
  const executorLog = (pattern: RegExp) => t.logs.find((line) => line.startsWith("executor |") && pattern.test(line));

  it("fleet servers reload - an added server's tools are listed and called; once removed they are retired, and a broken config changes nothing", async () => {
    writeFileSync(config, original + EVERYTHING);
    const echo = await eventually(async () => (await tools()).find((tool) => tool.name === "everything.echo" && !tool.quarantined), 30_000, "everything.echo in GET /v1/tools");
    assert.deepEqual(echo.flags, []);
    await eventually(async () => executorLog(/MCP server added: everything \(\d+ tools\)/), 10_000, "the executor to say so");
    assert.ok((await tools()).some((tool) => tool.name === "filesystem.read_text_file"), "the servers already there stay");

    const { json } = await t.post("/v1/packets", { message: "echo the message 'hello from a server added while running'", wait: false });
    const packet = await eventually(async () => {
      const r = await t.get(`/v1/packets/${json.packetId}`);
      return ["COMPLETED", "FAILED", "AWAITING_APPROVAL", "AWAITING_USER"].includes(r.json?.state) ? r.json : undefined;
    }, 60_000, "the packet to finish");
    assert.equal(packet.toolRouting.selectedTool?.toolName, "everything.echo", logOf(packet));
    assert.equal(packet.toolRouting.executionStatus, "EXECUTED", logOf(packet));
    const result = packet.content.dataFields.find((field: any) => field.key === "tool_result");
    assert.match(JSON.stringify(result?.value), /Echo: hello from a server added while running/);

    // A config that fails to load is one error line; the running servers stay.
    writeFileSync(config, `${original}${EVERYTHING}    colour: red\n`);
    await eventually(async () => executorLog(/cannot apply .*switchyard\.yaml: servers\.everything\.colour: is not a known setting/), 30_000, "the error line");
    assert.equal((await tools()).find((tool) => tool.name === "everything.echo")?.quarantined, false, "still served");

    writeFileSync(config, original);
    const retired = await eventually(async () => {
      const everything = (await tools()).filter((tool) => tool.name.startsWith("everything."));
      return everything.every((tool) => tool.quarantined && tool.flags.includes(NOT_SERVED)) ? everything : undefined;
    }, 30_000, "the everything tools to be retired");
    assert.ok(retired.some((tool) => tool.name === "everything.echo"), "retired, not deleted: the pins are kept");
    await eventually(async () => executorLog(/MCP server removed: everything/), 10_000, "the executor to say so");
    const routed = async () => (await t.post("/v1/route", { message: "echo the message 'hello again'" })).json.candidates.map((c: any) => c.tool.name) as string[];
    await eventually(async () => ((await routed()).some((name) => name.startsWith("everything.")) ? undefined : true), 30_000, "the router to drop them");
    assert.ok((await tools()).some((tool) => tool.name === "filesystem.read_text_file" && !tool.quarantined), "the others are left alone");
  });
});
