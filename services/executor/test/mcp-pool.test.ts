import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { serverUrlPolicy } from "@switchyard/config";
import { LOCAL_TENANT, ToolDefinition_SideEffect } from "@switchyard/packet";
import { processMetrics } from "@switchyard/telemetry";
import { promSample, recordSpans } from "@switchyard/test-fixtures";
import { isRetryableFailure, McpPool, PRIVATE_TOOL_LABEL, resolveCommand, sideEffectOf } from "../src/mcp-pool.js";
import { loadServersConfig } from "../src/servers-config.js";
import type { HttpServerConfig, ServerConfig } from "../src/servers-config.js";

const TODO = "# To do\n\n- [ ] read me through MCP\n";
const REPO_CONFIG = fileURLToPath(new URL("../../../switchyard.yaml", import.meta.url));
const REPO_TODO = fileURLToPath(new URL("../../../examples/workspace/notes/todo.md", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../node_modules/.bin/mcp-server-everything", import.meta.url));

// Spans are kept in memory for the tests to read.
const { takeSpans } = recordSpans();

/** A sample of this process's /metrics, 0 when the series does not exist yet. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return promSample((await processMetrics().exposition()).body, name, labels) ?? 0;
}

/** A temp dir holding `switchyard.yaml` (and whatever else the test writes), loaded through the real loader. */
async function configIn(dir: string, yaml: string): Promise<ServerConfig[]> {
  await writeFile(join(dir, "switchyard.yaml"), yaml);
  return (await loadServersConfig(join(dir, "switchyard.yaml"), {})).servers;
}

describe("mcp pool - side effects", () => {
  const { READ, WRITE, EXECUTE } = ToolDefinition_SideEffect;
  // One group per row of sideEffectOf's table, in its order.
  const cases: [string, Parameters<typeof sideEffectOf>[0]["annotations"], Parameters<typeof sideEffectOf>[1], ToolDefinition_SideEffect][] = [
    ["side_effect read on a destructive tool", { destructiveHint: true }, { sideEffect: "read" }, READ],
    ["side_effect write on a read-only tool", { readOnlyHint: true }, { sideEffect: "write" }, WRITE],
    ["side_effect write on an open-world destructive tool", { destructiveHint: true, openWorldHint: true }, { sideEffect: "write" }, WRITE],
    ["side_effect execute without annotations", undefined, { sideEffect: "execute" }, EXECUTE],
    ["side_effect wins over requires_approval", { readOnlyHint: true }, { sideEffect: "execute", requiresApproval: true }, EXECUTE],
    ["requires_approval false on a destructive tool", { destructiveHint: true }, { requiresApproval: false }, READ],
    ["requires_approval false on an open-world destructive tool", { destructiveHint: true, openWorldHint: true }, { requiresApproval: false }, READ],
    ["requires_approval false without annotations", undefined, { requiresApproval: false }, READ],
    ["requires_approval true on a read-only tool", { readOnlyHint: true }, { requiresApproval: true }, WRITE],
    ["requires_approval true without annotations", undefined, { requiresApproval: true }, WRITE],
    ["requires_approval true keeps execute hints", { destructiveHint: true, openWorldHint: true }, { requiresApproval: true }, EXECUTE],
    ["readOnlyHint true", { readOnlyHint: true }, undefined, READ],
    ["readOnlyHint true, destructiveHint false", { readOnlyHint: true, destructiveHint: false, openWorldHint: true }, {}, READ],
    ["readOnlyHint true contradicted by destructiveHint true", { readOnlyHint: true, destructiveHint: true }, undefined, WRITE],
    ["readOnlyHint true contradicted, and open-world", { readOnlyHint: true, destructiveHint: true, openWorldHint: true }, undefined, EXECUTE],
    ["destructiveHint and openWorldHint true", { destructiveHint: true, openWorldHint: true }, undefined, EXECUTE],
    ["readOnlyHint false, destructive, open-world", { readOnlyHint: false, destructiveHint: true, openWorldHint: true }, undefined, EXECUTE],
    ["destructiveHint true, openWorldHint unset", { destructiveHint: true }, undefined, WRITE],
    ["destructiveHint true, openWorldHint false", { destructiveHint: true, openWorldHint: false }, undefined, WRITE],
    ["openWorldHint true, destructiveHint unset", { openWorldHint: true }, undefined, WRITE],
    ["openWorldHint true, destructiveHint false", { readOnlyHint: false, destructiveHint: false, openWorldHint: true }, undefined, WRITE],
    ["readOnlyHint false", { readOnlyHint: false }, undefined, WRITE],
    ["no annotations (the safe default, not EXECUTE)", undefined, undefined, WRITE],
    ["annotations without hints", { title: "Thing" }, undefined, WRITE],
    ["idempotent but not read-only", { idempotentHint: true, openWorldHint: false }, undefined, WRITE],
  ];
  for (const [name, annotations, config, expected] of cases) {
    it(`mcp pool - side effect: ${name}`, () => {
      assert.equal(sideEffectOf(annotations === undefined ? {} : { annotations }, config), expected);
    });
  }
});

describe("mcp pool - filesystem server", () => {
  let dir = "";
  let pool: McpPool;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-fs-"));
    await mkdir(join(dir, "workspace/notes"), { recursive: true });
    await writeFile(join(dir, "workspace/notes/todo.md"), TODO);
    const servers = await configIn(
      dir,
      [
        "servers:",
        "  fs:",
        "    command: mcp-server-filesystem",
        '    args: ["./workspace"]',
        "    exclude: [read_file]",
        "    core: [list_directory]",
        "    sideEffects: { move_file: execute, get_file_info: write }",
        "    domains: [files]",
        "    tools:",
        "      move_file: { pool: admin, domains: [files, admin], side_effect: execute }",
        "      list_directory_with_sizes: { side_effect: execute }",
        "      edit_file: { requires_approval: false }",
        "      search_files: { requires_approval: true }",
      ].join("\n"),
    );
    pool = await McpPool.connect(servers);
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - lists tools under <server>.<tool> with side effects from annotations and config", () => {
    const tools = new Map(pool.listTools().map((tool) => [tool.name, tool]));
    const expected: [string, ToolDefinition_SideEffect, string][] = [
      ["fs.read_text_file", ToolDefinition_SideEffect.READ, "readOnlyHint: true"],
      ["fs.list_directory", ToolDefinition_SideEffect.READ, "readOnlyHint: true"],
      ["fs.write_file", ToolDefinition_SideEffect.WRITE, "destructiveHint: true"],
      ["fs.create_directory", ToolDefinition_SideEffect.WRITE, "readOnlyHint: false, not destructive"],
      ["fs.move_file", ToolDefinition_SideEffect.EXECUTE, "sideEffects and side_effect, agreeing"],
      ["fs.get_file_info", ToolDefinition_SideEffect.WRITE, "sideEffects override of a read-only tool"],
      ["fs.list_directory_with_sizes", ToolDefinition_SideEffect.EXECUTE, "side_effect override of a read-only tool"],
      ["fs.edit_file", ToolDefinition_SideEffect.READ, "requires_approval: false on a destructive tool"],
      ["fs.search_files", ToolDefinition_SideEffect.WRITE, "requires_approval: true on a read-only tool"],
    ];
    for (const [name, sideEffect, why] of expected) {
      assert.equal(tools.get(name)?.sideEffect, sideEffect, `${name} (${why})`);
    }
    assert.equal(tools.has("fs.read_file"), false, "excluded in the config");

    const read = tools.get("fs.read_text_file");
    assert.equal(read?.server, "fs");
    assert.equal(read?.serverToolName, "read_text_file");
    assert.match(read?.description ?? "", /file/i);
    assert.equal((read?.inputSchema?.["properties"] as Record<string, unknown>)["path"] !== undefined, true);
    assert.deepEqual(read?.examples, []);
    // the server's annotations, kept as given: the MCP door lists them again
    assert.deepEqual([read?.annotations?.readOnlyHint, read?.annotations?.openWorldHint, read?.annotations?.destructiveHint], [true, false, undefined]);
    assert.deepEqual(
      [...tools.values()].filter((tool) => tool.core).map((tool) => tool.name),
      ["fs.list_directory"],
    );
  });

  it("mcp pool - pool and domains come from the server (pool: its name by default), a tool's own settings win", () => {
    const tools = new Map(pool.listTools().map((tool) => [tool.name, tool]));
    assert.equal(tools.get("fs.read_text_file")?.pool, "fs");
    assert.deepEqual(tools.get("fs.read_text_file")?.domains, ["files"]);
    assert.equal(tools.get("fs.move_file")?.pool, "admin");
    assert.deepEqual(tools.get("fs.move_file")?.domains, ["files", "admin"]);
  });

  it("mcp pool - read_text_file returns the file's content, a relative path resolved against the allowed directory", async () => {
    const result = await pool.callTool("fs.read_text_file", { path: "notes/todo.md" });
    assert.equal(result.success, true, result.error);
    assert.deepEqual(result.output, { content: TODO });
    assert.equal(result.error, undefined);
    assert.ok(result.executionTimeMs >= 0);
  });

  it("mcp pool - write_file writes the file", async () => {
    const result = await pool.callTool("fs.write_file", { path: "written.txt", content: "hello from the pool\n" });
    assert.equal(result.success, true, result.error);
    assert.equal(await readFile(join(dir, "workspace/written.txt"), "utf8"), "hello from the pool\n");
  });

  it("mcp pool - a tool error comes back as success false with the server's message", async () => {
    const missing = await pool.callTool("fs.read_text_file", { path: "notes/missing.md" });
    assert.equal(missing.success, false);
    assert.equal(missing.output, null);
    assert.match(missing.error ?? "", /ENOENT.*missing\.md/);

    const outside = await pool.callTool("fs.read_text_file", { path: join(dir, "switchyard.yaml") });
    assert.equal(outside.success, false);
    assert.match(outside.error ?? "", /outside allowed directories/);
  });

  it("mcp pool - a call is a CLIENT span `tools/call <tool>` without arguments or output, and is measured", async () => {
    await takeSpans();
    const tool = { server: "fs", tool: "read_text_file" };
    const [calls, toolErrors] = [
      await metric("switchyard_mcp_call_duration_seconds_count", tool),
      await metric("switchyard_mcp_call_errors_total", { ...tool, kind: "tool_error" }),
    ];
    const read = await pool.callTool("fs.read_text_file", { path: "notes/todo.md" });
    assert.equal(read.success, true, read.error);
    const missing = await pool.callTool("fs.read_text_file", { path: "notes/secret-plans.md" });
    assert.equal(missing.success, false);

    const [ok, failed, ...more] = await takeSpans();
    assert.equal(more.length, 0);
    const attributes = {
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "read_text_file",
      "switchyard.tool.server": "fs",
      "network.transport": "pipe",
    };
    assert.equal(ok?.name, "tools/call read_text_file");
    assert.equal(ok?.kind, SpanKind.CLIENT);
    assert.deepEqual(ok?.attributes, attributes);
    assert.equal(ok?.status.code, SpanStatusCode.UNSET);
    assert.deepEqual(failed?.attributes, { ...attributes, "error.type": "tool_error" });
    assert.deepEqual(failed?.status, { code: SpanStatusCode.ERROR }, "the kind only: the tool's message names the path");
    const recorded = JSON.stringify([ok?.attributes, ok?.events, failed?.attributes, failed?.events, failed?.status]);
    for (const text of ["notes/todo.md", "secret-plans", "read me through MCP"]) assert.ok(!recorded.includes(text), `${text} is not on a span`);

    assert.equal(await metric("switchyard_mcp_call_duration_seconds_count", tool), calls + 2);
    assert.equal(await metric("switchyard_mcp_call_errors_total", { ...tool, kind: "tool_error" }), toolErrors + 1);
  });

  it("mcp pool - unknown and excluded tools are refused without a call (and without a span)", async () => {
    await takeSpans();
    for (const name of ["fs.read_file", "fs.no_such_tool", "nope.read_text_file"]) {
      const result = await pool.callTool(name, { path: "notes/todo.md" });
      assert.equal(result.success, false, name);
      assert.equal(result.error, `unknown tool ${name}`);
    }
    assert.deepEqual(await takeSpans(), []);
  });
});

describe("mcp pool - a tenant-private server on /metrics", () => {
  let dir = "";
  let pool: McpPool;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-private-"));
    await mkdir(join(dir, "workspace"), { recursive: true });
    const servers = await configIn(dir, 'servers:\n  ledger:\n    command: mcp-server-filesystem\n    args: ["./workspace"]\n    tenants: [tenant-a]\n');
    pool = await McpPool.connect(servers);
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - calls to a tenant-private server's tools are measured by server only: its tool names stay off /metrics", async () => {
    const labels = { server: "ledger", tool: PRIVATE_TOOL_LABEL };
    const before = await metric("switchyard_mcp_call_duration_seconds_count", labels);
    assert.equal((await pool.callTool("ledger.list_allowed_directories", {})).success, true);
    assert.equal((await pool.callTool("ledger.read_text_file", { path: "missing.md" })).success, false);
    assert.equal(await metric("switchyard_mcp_call_duration_seconds_count", labels), before + 2);
    assert.equal(await metric("switchyard_mcp_call_errors_total", { ...labels, kind: "tool_error" }), 1);
    const exposition = (await processMetrics().exposition()).body;
    const ledgerLines = exposition.split("\n").filter((line) => line.includes('server="ledger"'));
    assert.ok(ledgerLines.length > 0);
    for (const tool of ["list_allowed_directories", "read_text_file"]) assert.ok(!ledgerLines.join("\n").includes(tool), `${tool} is not on /metrics`);
  });
});

describe("mcp pool - memory server", () => {
  let dir = "";
  let pool: McpPool;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-memory-"));
    const servers = await configIn(
      dir,
      ["servers:", "  memory:", "    command: mcp-server-memory", "    env: { MEMORY_FILE_PATH: ./memory.jsonl }", "    core: [search_nodes]"].join("\n"),
    );
    pool = await McpPool.connect(servers);
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - create_entities then search_nodes finds the entity", async () => {
    const created = await pool.callTool("memory.create_entities", {
      entities: [{ name: "Switchyard", entityType: "project", observations: ["routes tool calls over NATS"] }],
    });
    assert.equal(created.success, true, created.error);

    const found = await pool.callTool("memory.search_nodes", { query: "Switchyard" });
    assert.equal(found.success, true, found.error);
    assert.deepEqual(found.output, {
      entities: [{ name: "Switchyard", entityType: "project", observations: ["routes tool calls over NATS"] }],
      relations: [],
    });
    // The relative MEMORY_FILE_PATH was made absolute against the config's folder.
    assert.match(await readFile(join(dir, "memory.jsonl"), "utf8"), /"name":"Switchyard"/);
  });

  it("mcp pool - memory tools: read-only ones READ, the rest WRITE, search_nodes core", () => {
    const tools = new Map(pool.listTools().map((tool) => [tool.name, tool]));
    assert.equal(tools.get("memory.search_nodes")?.sideEffect, ToolDefinition_SideEffect.READ);
    assert.equal(tools.get("memory.search_nodes")?.core, true);
    assert.equal(tools.get("memory.create_entities")?.sideEffect, ToolDefinition_SideEffect.WRITE);
    assert.equal(tools.get("memory.delete_entities")?.sideEffect, ToolDefinition_SideEffect.WRITE);
  });
});

describe("mcp pool - everything server", () => {
  let dir = "";
  let pool: McpPool;
  const changed: string[] = [];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-everything-"));
    const servers = await configIn(dir, "servers:\n  everything:\n    command: mcp-server-everything\n");
    pool = await McpPool.connect(servers, { onToolsChanged: (server) => changed.push(server) });
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - a call slower than its timeout fails cleanly and the server stays usable", async () => {
    const slow = await pool.callTool("everything.trigger-long-running-operation", { duration: 10, steps: 10 }, { timeoutMs: 300 });
    assert.equal(slow.success, false);
    assert.equal(slow.error, "everything.trigger-long-running-operation timed out after 300 ms");
    assert.ok(slow.executionTimeMs >= 300 && slow.executionTimeMs < 3000, `took ${slow.executionTimeMs} ms`);
    const timeouts = { server: "everything", tool: "trigger-long-running-operation", kind: "timeout" };
    assert.equal(await metric("switchyard_mcp_call_errors_total", timeouts), 1);

    const echo = await pool.callTool("everything.echo", { message: "still here" });
    assert.deepEqual({ success: echo.success, output: echo.output }, { success: true, output: "Echo: still here" });
  });

  it("mcp pool - structuredContent wins over text; non-text content stays as blocks", async () => {
    const weather = await pool.callTool("everything.get-structured-content", { location: "New York" });
    assert.equal(weather.success, true, weather.error);
    assert.deepEqual(Object.keys(weather.output as object).sort(), ["conditions", "humidity", "temperature"]);

    const image = await pool.callTool("everything.get-tiny-image", {});
    assert.equal(image.success, true, image.error);
    const blocks = image.output as { type: string }[];
    assert.ok(Array.isArray(blocks));
    assert.ok(blocks.some((block) => block.type === "image"));
  });

  it("mcp pool - a tools/list_changed notification re-reads the tools", async () => {
    // server-everything announces list_changed right after initialization (it registers client-dependent tools).
    for (let waited = 0; changed.length === 0 && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(changed.slice(0, 1), ["everything"]);
    assert.ok(pool.listTools().some((tool) => tool.name === "everything.echo"));
  });
});

describe("mcp pool - streamable HTTP", () => {
  let server: ChildProcess | undefined;
  let pool: McpPool | undefined;
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-http-"));
    const port = await freePort();
    server = spawn(EVERYTHING, ["streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    await waitForLine(server, /listening on port/);
    const servers = await configIn(dir, `servers:\n  remote:\n    url: http://127.0.0.1:${port}/mcp\n`);
    pool = await McpPool.connect(servers);
  });
  after(async () => {
    await pool?.close();
    server?.kill();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - lists and calls the tools of a url server", async () => {
    assert.ok(pool?.listTools().some((tool) => tool.name === "remote.echo" && tool.server === "remote"));
    const echo = await pool?.callTool("remote.echo", { message: "over http" });
    assert.deepEqual({ success: echo?.success, output: echo?.output }, { success: true, output: "Echo: over http" });
  });

  it("mcp pool - a registered server is reached only where SERVER_URL_ALLOW or local mode lets it: loopback is refused without a request", async () => {
    const remote = pool!.servers().find((server) => server.name === "remote") as HttpServerConfig;
    // A listener that counts what reaches it: a refused server must get nothing.
    let requests = 0;
    const counter = createHttpServer((_request, response) => {
      requests++;
      response.writeHead(500).end();
    });
    counter.listen(0, "127.0.0.1");
    await once(counter, "listening");
    const counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}/mcp`;
    try {
      const registered = (url: string, registeredBy: string): HttpServerConfig => ({ ...remote, name: "registered", url, registeredBy });
      for (const url of [counterUrl, counterUrl.replace("http:", "https:"), counterUrl.replace("127.0.0.1", "localhost")]) {
        await assert.rejects(McpPool.connect([registered(url, "ops")]), /registered: not connecting to a registered server whose URL (must be https|names (127\.0\.0\.1|localhost), a loopback address)/, url);
      }
      await assert.rejects(McpPool.connect([registered(counterUrl, "ops")], { serverUrls: serverUrlPolicy("10.0.0.0/8") }), /must be https/);
      assert.equal(requests, 0, "nothing was sent to a refused address");

      // Let through by the setting, or registered in local mode (localhost looked up for real): connected and called.
      const allowed = await McpPool.connect([registered(remote.url, "ops")], { serverUrls: serverUrlPolicy("127.0.0.1") });
      const local = await McpPool.connect([registered(remote.url.replace("127.0.0.1", "localhost"), LOCAL_TENANT)]);
      try {
        for (const each of [allowed, local]) {
          const echo = await each.callTool("registered.echo", { message: "vetted" });
          assert.deepEqual({ success: echo.success, output: echo.output }, { success: true, output: "Echo: vetted" });
        }
      } finally {
        await Promise.all([allowed.close(), local.close()]);
      }
    } finally {
      counter.close();
    }
  });
});

describe("mcp pool - servers that cannot start", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-fail-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - a missing command names the server", async () => {
    const servers = await configIn(dir, "servers:\n  ghost:\n    command: no-such-mcp-server-anywhere\n");
    await assert.rejects(McpPool.connect(servers), /cannot connect MCP servers: ghost: .*ENOENT/);
  });

  it("mcp pool - a server that exits at start names the server and shows its stderr", async () => {
    const servers = await configIn(
      dir,
      [
        "servers:",
        "  fine:",
        "    command: mcp-server-memory",
        "    env: { MEMORY_FILE_PATH: ./memory.jsonl }",
        "  broken:",
        "    command: node",
        `    args: ["-e", "console.error('boom: no config'); process.exit(3)"]`,
      ].join("\n"),
    );
    await assert.rejects(McpPool.connect(servers), (error: Error) => {
      assert.match(error.message, /cannot connect MCP servers: broken: .*boom: no config/);
      assert.doesNotMatch(error.message, /fine:/);
      return true;
    });
  });

  it("mcp pool - a bare command is found in PATH first, then in the executor's node_modules/.bin", () => {
    assert.match(resolveCommand("node", process.env["PATH"]), /\/node$/);
    assert.equal(resolveCommand("mcp-server-memory", "/nonexistent"), fileURLToPath(new URL("../node_modules/.bin/mcp-server-memory", import.meta.url)));
    assert.equal(resolveCommand("no-such-command-x", "/nonexistent"), "no-such-command-x");
    assert.equal(resolveCommand("./rel/cmd", "/nonexistent"), "./rel/cmd");
  });
});

describe("mcp pool - the repo's switchyard.yaml", () => {
  let dir = "";
  let pool: McpPool;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-default-"));
    const { servers } = await loadServersConfig(REPO_CONFIG, { SWITCHYARD_DATA_DIR: dir });
    // Started from an unrelated folder: "notes/todo.md" must not depend on the executor's cwd.
    pool = await McpPool.connect(servers.map((server) => (server.transport === "stdio" ? { ...server, cwd: dir } : server)));
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - filesystem.read_text_file reads examples/workspace/notes/todo.md as notes/todo.md", async () => {
    const result = await pool.callTool("filesystem.read_text_file", { path: "notes/todo.md" });
    assert.equal(result.success, true, result.error);
    assert.deepEqual(result.output, { content: await readFile(REPO_TODO, "utf8") });
    assert.equal(pool.listTools().some((tool) => tool.name === "filesystem.read_file"), false);
    assert.equal(pool.listTools().find((tool) => tool.name === "memory.search_nodes")?.core, true);
    const read = pool.listTools().find((tool) => tool.name === "filesystem.read_text_file");
    assert.equal(read?.pool, "filesystem");
    assert.deepEqual(read?.domains, ["files"]);
    assert.deepEqual(pool.listTools().find((tool) => tool.name === "memory.search_nodes")?.domains, ["memory"]);
  });
});

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function waitForLine(child: ChildProcess, pattern: RegExp): Promise<void> {
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within 10 s; stderr: ${seen}`)), 10_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}; stderr: ${seen}`)));
  });
}

describe("mcp pool - a server that dies or hangs is restarted", () => {
  const SIDE_EFFECT_SERVER = fileURLToPath(new URL("../../../packages/test-fixtures/dist/side-effect-mcp-server.js", import.meta.url));
  let dir = "";
  let pool: McpPool;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-restart-"));
    const servers = await configIn(dir, [
      "servers:",
      "  journal:",
      "    command: node",
      `    args: [${JSON.stringify(SIDE_EFFECT_SERVER)}]`,
      "    env:",
      `      SIDE_EFFECT_FILE: ${JSON.stringify(join(dir, "journal.txt"))}`,
    ].join("\n"));
    pool = await McpPool.connect(servers);
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - a server that dies mid-call fails the call as server_lost (retryable); the next call reaches a new server", async () => {
    const crashed = await pool.callTool("journal.always_fail", { report: "r1", mode: "crash" });
    assert.equal(crashed.success, false);
    assert.equal(crashed.failure, "server_lost");
    assert.equal(isRetryableFailure(crashed.failure), true);
    const next = await pool.callTool("journal.append_line", { text: "after the crash" });
    assert.equal(next.success, true, next.error);
    assert.equal(await readFile(join(dir, "journal.txt"), "utf8"), "attempt r1\nafter the crash\n");
  });

  it("mcp pool - a call that hangs past its timeout fails as timeout; the server is restarted, so the hung call never completes", async () => {
    const hung = await pool.callTool("journal.append_line", { text: "hung", delay_ms: 2000 }, { timeoutMs: 200 });
    assert.equal(hung.failure, "timeout");
    const next = await pool.callTool("journal.append_line", { text: "after the hang" });
    assert.equal(next.success, true, next.error);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const lines = (await readFile(join(dir, "journal.txt"), "utf8")).split("\n");
    assert.ok(lines.includes("after the hang"));
    assert.ok(!lines.includes("hung"), "the restarted server's predecessor was stopped before it appended");
  });

  it("mcp pool - a tool's own error is final, not retryable", async () => {
    const refused = await pool.callTool("journal.always_fail", { report: "r2", mode: "error" });
    assert.equal(refused.failure, "tool_error");
    assert.equal(isRetryableFailure(refused.failure), false);
  });
});

describe("mcp pool - apply: servers added, changed and removed while running", () => {
  const SIDE_EFFECT_SERVER = fileURLToPath(new URL("../../../packages/test-fixtures/dist/side-effect-mcp-server.js", import.meta.url));
  const MEMORY = fileURLToPath(new URL("../node_modules/.bin/mcp-server-memory", import.meta.url));
  let dir = "";
  let pool: McpPool;

  /**
   * A server entry started through sh, which appends its pid to `<dir>/<name>.pids` and
   * execs the server (keeping the pid): the file lists every process the server had.
   */
  const recorded = (name: string, command: string, settings: string[] = []) =>
    [
      `  ${name}:`,
      "    command: sh",
      // "$$$$" is "$$" once the loader has read it: the shell's pid.
      `    args: ["-c", ${JSON.stringify(`echo $$$$ >> ${join(dir, `${name}.pids`)}; exec ${command}`)}]`,
      ...settings.map((line) => `    ${line}`),
    ].join("\n");
  const memory = (settings: string[] = []) => recorded("memory", MEMORY, ["env: { MEMORY_FILE_PATH: ./memory.jsonl }", ...settings]);
  const journal = () => recorded("journal", `node ${SIDE_EFFECT_SERVER}`, [`env: { SIDE_EFFECT_FILE: ${JSON.stringify(join(dir, "journal.txt"))} }`]);
  const everything = "  everything:\n    command: mcp-server-everything";
  const config = (...servers: string[]) => configIn(dir, ["servers:", ...servers].join("\n"));
  const pids = async (name: string) => (await readFile(join(dir, `${name}.pids`), "utf8")).split("\n").filter(Boolean).map(Number);
  const toolNames = (server: string) => pool.listTools().filter((tool) => tool.server === server).map((tool) => tool.name);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchyard-pool-apply-"));
    pool = await McpPool.connect(await config(memory()));
  });
  after(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("mcp pool - apply: an added server is started and its tools are callable; the unchanged one is not restarted", async () => {
    const changes = await pool.apply(await config(memory(), everything));
    assert.deepEqual(changes.removed, []);
    assert.deepEqual(changes.changed, []);
    assert.deepEqual(changes.failed, []);
    assert.deepEqual(changes.added, [{ name: "everything", tools: toolNames("everything").length }]);
    assert.ok(toolNames("everything").includes("everything.echo"));
    const echo = await pool.callTool("everything.echo", { message: "added while running" });
    assert.deepEqual({ success: echo.success, output: echo.output }, { success: true, output: "Echo: added while running" });
    assert.equal((await pids("memory")).length, 1, "the memory server still runs as first started");
    assert.deepEqual(pool.servers().map((server) => server.name), ["memory", "everything"], "in config order");
  });

  it("mcp pool - apply: the same config again changes nothing", async () => {
    assert.deepEqual(await pool.apply(await config(memory(), everything)), { added: [], changed: [], removed: [], failed: [] });
    assert.equal((await pids("memory")).length, 1);
  });

  it("mcp pool - apply: a changed server is started afresh with its new settings, and the old process stops", async () => {
    assert.equal(pool.listTools().find((tool) => tool.name === "memory.search_nodes")?.core, false);
    const changes = await pool.apply(await config(memory(["core: [search_nodes]"]), everything));
    assert.deepEqual(changes.changed.map((server) => server.name), ["memory"]);
    assert.deepEqual(changes.added, []);
    assert.equal(pool.listTools().find((tool) => tool.name === "memory.search_nodes")?.core, true);
    const [old, started, ...more] = await pids("memory");
    assert.ok(started !== undefined && more.length === 0, "one new process");
    await eventuallyGone(old!);
    const found = await pool.callTool("memory.search_nodes", { query: "anything" });
    assert.equal(found.success, true, found.error);
  });

  it("mcp pool - apply: a removed server's tools are gone and its process stops", async () => {
    const echo = pool.listTools().filter((tool) => tool.server === "everything");
    assert.ok(echo.length > 0);
    const changes = await pool.apply(await config(memory(["core: [search_nodes]"])));
    assert.deepEqual(changes, { added: [], changed: [], removed: ["everything"], failed: [] });
    assert.deepEqual(toolNames("everything"), []);
    const gone = await pool.callTool("everything.echo", { message: "anyone?" });
    assert.equal(gone.error, "unknown tool everything.echo");
  });

  it("mcp pool - apply: a call in flight on a removed server finishes before the server is closed", async () => {
    await pool.apply(await config(memory(["core: [search_nodes]"]), journal()));
    const [journalPid] = await pids("journal");
    const slow = pool.callTool("journal.append_line", { text: "finished after removal", delay_ms: 1500 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const changes = await pool.apply(await config(memory(["core: [search_nodes]"])));
    assert.deepEqual(changes.removed, ["journal"]);
    assert.equal((await pool.callTool("journal.append_line", { text: "too late" })).error, "unknown tool journal.append_line");
    const result = await slow;
    assert.equal(result.success, true, result.error);
    assert.equal(await readFile(join(dir, "journal.txt"), "utf8"), "finished after removal\n");
    await eventuallyGone(journalPid!);
  });

  it("mcp pool - apply: a server that cannot start is reported; an added one is left out, a changed one keeps running as it was", async () => {
    const [running] = (await pids("memory")).slice(-1);
    const ghost = "  ghost:\n    command: no-such-mcp-server-anywhere";
    const broken = "  memory:\n    command: no-such-mcp-server-either";
    const changes = await pool.apply(await config(broken, ghost));
    assert.deepEqual(changes.added, []);
    assert.deepEqual(changes.changed, []);
    assert.deepEqual(changes.removed, []);
    assert.deepEqual(changes.failed.map(({ name, change }) => ({ name, change })), [
      { name: "ghost", change: "added" },
      { name: "memory", change: "changed" },
    ]);
    for (const failure of changes.failed) assert.match(failure.error, /ENOENT/);
    assert.deepEqual(pool.servers().map((server) => server.name), ["memory"]);
    assert.deepEqual(pool.servers().map((server) => server.transport === "stdio" && server.command), ["sh"], "the old settings");
    const found = await pool.callTool("memory.search_nodes", { query: "anything" });
    assert.equal(found.success, true, found.error);
    assert.deepEqual((await pids("memory")).slice(-1), [running]);
  });

  it("mcp pool - apply: applies run one at a time, each against what the one before left", async () => {
    const servers = await config(memory(["core: [search_nodes]"]), everything);
    const [first, second] = await Promise.all([pool.apply(servers), pool.apply(servers)]);
    assert.deepEqual(first.added.map((server) => server.name), ["everything"]);
    assert.deepEqual(second, { added: [], changed: [], removed: [], failed: [] });
  });
});

/** Waits until the process is gone (stopped and reaped), failing after 10 s. */
async function eventuallyGone(pid: number): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`process ${pid} still runs`);
}
