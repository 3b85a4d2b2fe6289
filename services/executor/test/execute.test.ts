import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  callHash,
  fromValue,
  grantApproval,
  latestToolOutput,
  newPacket,
  Packet_State,
  packetToJson,
  RoutingCandidate_Source,
  RoutingCandidateSchema,
  requestApproval,
  routingOf,
  SelectedToolSchema,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { Packet } from "@switchyard/packet";
import { HIDDEN_SIZE } from "../src/directory-sizes.js";
import { executeStage } from "../src/execute.js";
import type { ExecuteDeps } from "../src/execute.js";
import { McpPool } from "../src/mcp-pool.js";
import { rootsByServer } from "../src/relative-paths.js";
import { loadServersConfig } from "../src/servers-config.js";
import type { ServerConfig } from "../src/servers-config.js";

const CONFIG = { MCP_CALL_TIMEOUT_MS: 10_000, TOOL_OUTPUT_MAX_BYTES: 65_536 };

describe("execute stage", () => {
  let dir = "";
  let pool: McpPool;
  let servers: ServerConfig[] = [];
  let calls: string[] = [];
  // The real pool, with a record of what was called so "never called" can be asserted as well as observed.
  const deps: ExecuteDeps = {
    config: CONFIG,
    callTool: (name, args, options) => {
      calls.push(name);
      return pool.callTool(name, args, options);
    },
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-execute-"));
    await mkdir(join(dir, "workspace/notes"), { recursive: true });
    await writeFile(join(dir, "workspace/notes/todo.md"), "- [ ] ship the executor\n");
    await writeFile(join(dir, "switchyard.yaml"), 'servers:\n  filesystem:\n    command: mcp-server-filesystem\n    args: ["./workspace"]\n');
    ({ servers } = await loadServersConfig(join(dir, "switchyard.yaml"), {}));
    pool = await McpPool.connect(servers);
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A packet as the reviewer hands it on: the router's candidates, the selector's choice. */
  function routedPacket(toolName: string, params: JsonObject, candidates: string[], dryRun = false): Packet {
    calls = [];
    const packet = newPacket({ message: "read notes/todo.md" });
    const routing = routingOf(packet);
    const tools = new Map(pool.listTools().map((tool) => [tool.name, tool]));
    routing.candidates = candidates.map((name) =>
      create(RoutingCandidateSchema, { tool: tools.get(name), score: 0.9, source: RoutingCandidate_Source.SEMANTIC }),
    );
    routing.selectedTool = create(SelectedToolSchema, { toolName, params, selectionConfidence: 0.9 });
    routing.executionStatus = ToolRoutingState_ExecutionStatus.APPROVED;
    routing.reviewConfidence = 0.85;
    routing.dryRun = dryRun;
    packet.state = Packet_State.EXECUTING;
    return packet;
  }

  const fieldOf = (packet: Packet) => packet.content?.dataFields.find((field) => field.key === "tool_result");

  it("execute - a successful call is injected as data field, result and reflection, then reinjected", async () => {
    const packet = routedPacket("filesystem.read_text_file", { path: "notes/todo.md" }, ["filesystem.read_text_file", "filesystem.list_directory"]);
    const outcome = await executeStage(packet, deps);

    assert.deepEqual(outcome, { next: "intent" });
    assert.deepEqual(calls, ["filesystem.read_text_file"]);
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, ToolRoutingState_ExecutionStatus.EXECUTED);
    assert.equal(routing.reinjectionCount, 1);
    assert.equal(packet.state, Packet_State.REINJECTED);

    const output = { content: "- [ ] ship the executor\n" };
    const field = fieldOf(packet);
    assert.equal(field?.type, "tool_execution_result");
    assert.equal(field?.source, "mcp:filesystem");
    assert.deepEqual(fromValue(field?.value), {
      tool: "filesystem.read_text_file",
      params: { path: "notes/todo.md" },
      success: true,
      output,
      error: null,
    });
    assert.deepEqual(latestToolOutput(packet), output);
    assert.equal(routing.executionResult?.success, true);
    const copies = JSON.stringify(packetToJson(packet)).split("ship the executor").length - 1;
    assert.equal(copies, 1, "the output is stored once, in the data field");
    assert.equal(routing.executionResult?.error, "");

    const entry = packet.reasoning?.reflectionLog.at(-1);
    assert.equal(entry?.step, "tool_execution");
    assert.match(entry?.summary ?? "", /^Executed filesystem\.read_text_file: success in \d+ ms$/);
    assert.equal(entry?.durationMs, routing.executionResult?.executionTimeMs);
    assert.equal(entry?.confidence, 0.85);
  });

  it("execute - the call joins the packet's calls, by hash and hop, for repetition detection", async () => {
    const packet = routedPacket("filesystem.read_text_file", { path: "notes/todo.md" }, ["filesystem.read_text_file"]);
    packet.header!.hop = 4;
    await executeStage(packet, deps);
    const [call] = routingOf(packet).calls;
    assert.deepEqual(
      { tool: call?.toolName, hash: call?.callHash, hop: call?.hop, success: call?.success, dryRun: call?.dryRun },
      { tool: "filesystem.read_text_file", hash: callHash("filesystem.read_text_file", { path: "notes/todo.md" }), hop: 4, success: true, dryRun: false },
    );
  });

  it("execute - a call waiting for approval, or approved with other arguments, is never made", async () => {
    const packet = routedPacket("filesystem.write_file", { path: "notes/new.md", content: "x" }, ["filesystem.write_file"]);
    requestApproval(packet, 60_000);
    assert.deepEqual(await executeStage(packet, deps), { done: true });
    assert.deepEqual(calls, [], "not called without the approval");
    assert.equal(packet.state, Packet_State.FAILED);
    assert.match(packet.stateReason, /needs the user's approval of this exact call/);

    const changed = routedPacket("filesystem.write_file", { path: "notes/new.md", content: "x" }, ["filesystem.write_file"]);
    requestApproval(changed, 60_000);
    grantApproval(changed);
    routingOf(changed).selectedTool!.params = { path: "notes/other.md", content: "x" };
    await executeStage(changed, deps);
    assert.deepEqual(calls, [], "an approval of other arguments does not count");
    await assert.rejects(stat(join(dir, "workspace/notes/other.md")));
  });

  it("execute - a failed call is injected with its error, status FAILED, and still reinjected", async () => {
    const packet = routedPacket("filesystem.read_text_file", { path: "notes/gone.md" }, ["filesystem.read_text_file"]);
    routingOf(packet).reinjectionCount = 1;
    const outcome = await executeStage(packet, deps);

    assert.deepEqual(outcome, { next: "intent" });
    const routing = routingOf(packet);
    assert.equal(routing.executionStatus, ToolRoutingState_ExecutionStatus.FAILED);
    assert.equal(routing.reinjectionCount, 2);
    const value = fromValue(fieldOf(packet)?.value) as { success: boolean; output: unknown; error: string };
    assert.equal(value.success, false);
    assert.equal(value.output, null);
    assert.match(value.error, /ENOENT/);
    assert.equal(routing.executionResult?.success, false);
    assert.match(routing.executionResult?.error ?? "", /ENOENT/);
    assert.match(packet.reasoning?.reflectionLog.at(-1)?.summary ?? "", /^Executed filesystem\.read_text_file: failed in \d+ ms: .*ENOENT/);
  });

  it("execute - a tool's error names the path relative to the served directory, not where it is on the server", async () => {
    const packet = routedPacket("filesystem.read_text_file", { path: "notes/gone.md" }, ["filesystem.read_text_file"]);
    await executeStage(packet, { ...deps, rootsOf: rootsByServer(() => servers) });
    const error = routingOf(packet).executionResult?.error ?? "";
    assert.match(error, /ENOENT: no such file or directory, open 'notes\/gone\.md'/);
    assert.ok(!error.includes(dir), error);
    assert.ok(!JSON.stringify(fieldOf(packet)?.value).includes(dir), "nor in the data field");
    assert.ok(!(packet.reasoning?.reflectionLog.at(-1)?.summary ?? "").includes(dir), "nor in the reflection log");

    const allowed = routedPacket("filesystem.list_allowed_directories", {}, ["filesystem.list_allowed_directories"]);
    await executeStage(allowed, { ...deps, rootsOf: rootsByServer(() => servers) });
    // Structured output: the strings inside it are rewritten too.
    assert.deepEqual(latestToolOutput(allowed), { content: "Allowed directories:\n." }, "the served directory itself is .");
  });

  it("execute - no text names a path outside the served directory: refusals, symlink targets, the sizes of links out of it", async () => {
    const rootsOf = rootsByServer(() => servers);
    // A folder beside the workspace, reached by links from inside it.
    await mkdir(join(dir, "outside"), { recursive: true });
    await writeFile(join(dir, "outside/secret.bin"), Buffer.alloc(12_345, 7));
    await mkdir(join(dir, "workspace/links"), { recursive: true });
    await writeFile(join(dir, "workspace/links/own.txt"), "0123456789");
    await symlink(join(dir, "outside/secret.bin"), join(dir, "workspace/links/secret.bin"));
    await symlink(join(dir, "outside"), join(dir, "workspace/links/elsewhere"));
    await symlink(join(dir, "workspace/links/own.txt"), join(dir, "workspace/links/own-link.txt"));
    const run = async (tool: string, params: JsonObject) => {
      const packet = routedPacket(`filesystem.${tool}`, params, [`filesystem.${tool}`]);
      await executeStage(packet, { ...deps, rootsOf });
      // The call's own arguments are the caller's words, shown back as they came.
      const { output, error } = fromValue(fieldOf(packet)?.value) as { output: unknown; error?: string };
      const texts = JSON.stringify([routingOf(packet).executionResult?.error, output, error, packet.reasoning?.reflectionLog.at(-1)?.summary]);
      assert.ok(!texts.includes(dir), `${tool} ${JSON.stringify(params)}: ${texts}`);
      assert.ok(!texts.includes("/root"), `${tool} ${JSON.stringify(params)}: ${texts}`);
      return { error: routingOf(packet).executionResult?.error ?? "", output: latestToolOutput(packet) };
    };

    for (const path of ["/root/.bashrc", join(dir, "outside/secret.bin"), "../outside/secret.bin"]) {
      assert.equal((await run("read_text_file", { path })).error, "Access denied - path outside allowed directories", path);
    }
    for (const path of ["links/secret.bin", "links/elsewhere/secret.bin"]) {
      assert.equal((await run("read_text_file", { path })).error, "Access denied - symlink target outside allowed directories", path);
    }
    assert.equal((await run("create_directory", { path: "links/elsewhere/new" })).error, "Access denied - symlink target outside allowed directories");
    const several = (await run("read_multiple_files", { paths: ["links/secret.bin", "notes/todo.md"] })).output as { content: string };
    assert.match(several.content, /^links\/secret\.bin: Error - Access denied - symlink target outside allowed directories$/m);
    assert.match(several.content, /ship the executor/, "the file read beside it is shown as it is");

    const hidden = HIDDEN_SIZE.replace(/[()]/g, "\\$&");
    const listing = ((await run("list_directory_with_sizes", { path: "links" })).output as { content: string }).content;
    assert.match(listing, new RegExp(`^\\[FILE\\] secret\\.bin +${hidden}$`, "m"));
    assert.match(listing, new RegExp(`^\\[FILE\\] elsewhere +${hidden}$`, "m"));
    assert.match(listing, /^\[FILE\] own\.txt +10 B$/m);
    assert.match(listing, /^\[FILE\] own-link\.txt +10 B$/m, "a link within the directory keeps its size");
    assert.match(listing, /\nTotal: 4 files, 0 directories\nCombined size: 20 B$/);
    assert.doesNotMatch(listing, /12\.06 KB|4\.00 KB/);
    const bySize = ((await run("list_directory_with_sizes", { path: join(dir, "workspace/links"), sortBy: "size" })).output as { content: string }).content;
    assert.deepEqual(bySize.split("\n").slice(0, 4).map((line) => line.split(/ +/)[1]).slice(2), ["elsewhere", "secret.bin"], "links out sort as no size");
  });

  it("execute - a second result adds a second data field, the latest output read from it", async () => {
    const packet = routedPacket("filesystem.read_text_file", { path: "notes/todo.md" }, ["filesystem.read_text_file", "filesystem.list_directory"]);
    await executeStage(packet, deps);
    routingOf(packet).selectedTool = create(SelectedToolSchema, { toolName: "filesystem.list_directory", params: { path: "notes" } });
    await executeStage(packet, deps);

    assert.equal(packet.content?.dataFields.filter((field) => field.key === "tool_result").length, 2);
    assert.deepEqual(latestToolOutput(packet), { content: "[FILE] todo.md" });
    assert.equal(routingOf(packet).reinjectionCount, 2);
  });

  it("execute - a dry run makes no call: the file is not written, the packet completes SKIPPED", async () => {
    const target = join(dir, "workspace/dry-run.txt");
    const params = { path: "dry-run.txt", content: "must not be written" };
    const packet = routedPacket("filesystem.write_file", params, ["filesystem.write_file"], true);
    const why = "dry run: filesystem.write_file is a write tool and ALLOW_WRITE_TOOLS is off; set ALLOW_WRITE_TOOLS=true to run write tools.";
    routingOf(packet).reviewReasoning = why;
    const outcome = await executeStage(packet, deps);

    assert.deepEqual(outcome, { done: true });
    assert.deepEqual(calls, []);
    await assert.rejects(stat(target), { code: "ENOENT" });
    const routing = routingOf(packet);
    assert.equal(packet.state, Packet_State.COMPLETED);
    assert.equal(packet.stateReason, why, "the reviewer's reasoning, which starts with the outcome");
    assert.equal(routing.executionStatus, ToolRoutingState_ExecutionStatus.SKIPPED);
    assert.equal(routing.reinjectionCount, 0);

    const output = { dryRun: true, tool: "filesystem.write_file", arguments: params };
    assert.deepEqual(fromValue(fieldOf(packet)?.value), {
      tool: "filesystem.write_file",
      params,
      success: true,
      output,
      error: null,
      dryRun: true,
    });
    assert.equal(fieldOf(packet)?.source, "mcp:filesystem");
    assert.deepEqual(latestToolOutput(packet), output);
    assert.equal(packet.reasoning?.reflectionLog.at(-1)?.summary, `filesystem.write_file not executed: ${why}`);
  });

  it("execute - a dry run without the reviewer's reasoning still ends with a reason", async () => {
    const packet = routedPacket("filesystem.write_file", { path: "dry-run.txt", content: "x" }, ["filesystem.write_file"], true);
    await executeStage(packet, deps);
    assert.equal(packet.stateReason, "dry run: the review asked for one; filesystem.write_file was not run");
  });

  it("execute - the same call without dry run writes the file (the dry-run check can fail)", async () => {
    const params = { path: "real-run.txt", content: "written" };
    const packet = routedPacket("filesystem.write_file", params, ["filesystem.write_file"]);
    await executeStage(packet, deps);
    assert.equal(await readFile(join(dir, "workspace/real-run.txt"), "utf8"), "written");
  });

  it("execute - a selected tool outside the candidates is never called and the packet fails", async () => {
    const target = join(dir, "workspace/sneaky.txt");
    const packet = routedPacket("filesystem.write_file", { path: "sneaky.txt", content: "x" }, ["filesystem.read_text_file"]);
    const outcome = await executeStage(packet, deps);

    assert.deepEqual(outcome, { done: true });
    assert.deepEqual(calls, []);
    await assert.rejects(stat(target), { code: "ENOENT" });
    assert.equal(packet.state, Packet_State.FAILED);
    assert.match(packet.stateReason, /filesystem\.write_file is not among the routed candidates/);
    assert.equal(routingOf(packet).executionStatus, ToolRoutingState_ExecutionStatus.FAILED);
    assert.equal(fieldOf(packet), undefined);
    assert.equal(packet.reasoning?.reflectionLog.at(-1)?.step, "tool_execution");
  });

  it("execute - a packet without a selected tool fails without a call", async () => {
    const packet = routedPacket("filesystem.read_text_file", {}, ["filesystem.read_text_file"]);
    routingOf(packet).selectedTool = undefined;
    assert.deepEqual(await executeStage(packet, deps), { done: true });
    assert.deepEqual(calls, []);
    assert.equal(packet.state, Packet_State.FAILED);
    assert.match(packet.stateReason, /no tool selected/);
  });

  it("execute - the configured timeout reaches the call", async () => {
    const packet = routedPacket("filesystem.read_text_file", { path: "notes/todo.md" }, ["filesystem.read_text_file"]);
    const seen: (number | undefined)[] = [];
    await executeStage(packet, { callTool: (name, args, options) => (seen.push(options?.timeoutMs), pool.callTool(name, args, options)), config: { ...CONFIG, MCP_CALL_TIMEOUT_MS: 1234 } });
    assert.deepEqual(seen, [1234]);
  });
});
