import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
// The filesystem server shared with every tenant, the memory server for tenant-a alone.
const CONFIG = fileURLToPath(new URL("fixtures/tenant-catalog.yaml", import.meta.url));
const KEYS = { a: "tenant-a-key-0123456789abcdef", b: "tenant-b-key-0123456789abcdef" };

type Text = { type: string; text: string };
/** The MCP Inspector's command line (@modelcontextprotocol/inspector --cli), as the README shows it. */
const INSPECTOR = fileURLToPath(new URL("node_modules/.bin/mcp-inspector", import.meta.url));
const run = promisify(execFile);

const textOf = (result: unknown) => ((result as { content?: Text[] }).content ?? []).map((c) => c.text).join("\n");

describe("fleet mcp - the official MCP client against /mcp on a running fleet", { skip }, () => {
  let t: TestFleet;
  const clients: Client[] = [];
  const connect = async (who: keyof typeof KEYS) => {
    const client = new Client({ name: "fleet-mcp-test", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEYS[who]}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const search = async (client: Client, query: string, k = 5) => {
    const found = await client.callTool({ name: "search_tools", arguments: { query, k } });
    return (found.structuredContent as { tools: { name: string; description: string; inputSchema: object }[] }).tools;
  };

  before(async () => {
    t = await startTestFleet({
      env: { API_KEYS: `${KEYS.a}:tenant-a,${KEYS.b}:tenant-b`, SWITCHYARD_CONFIG: CONFIG },
      // A catalog over five tools goes behind the meta-tools, as a large one would.
      serviceEnv: { gateway: { MCP_LIST_ALL_MAX_TOOLS: "5" }, reviewer: { ALLOW_WRITE_TOOLS: "true" } },
    });
    // Both servers' tools in the catalog before the first question.
    await eventually(async () => {
      const res = await t.get("/v1/tools", { authorization: `Bearer ${KEYS.a}` });
      const names = (res.json?.tools ?? []).map((tool: { name: string }) => tool.name) as string[];
      return names.some((n) => n.startsWith("memory.")) && names.includes("filesystem.write_file") ? true : undefined;
    }, 60_000, "the catalog");
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t?.close();
  });

  it("fleet mcp - tools/list is the meta-tools; search_tools finds read_text_file for a to-do question; call_tool reads the file", async () => {
    const client = await connect("b");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["call", "call_tool", "search_tools"]);
    assert.match(tools.find((tool) => tool.name === "call")!.description!, /^filesystem:$/m);

    const found = await search(client, "what's in my to-do note");
    const read = found.find((tool) => tool.name === "filesystem_read_text_file");
    assert.ok(read, found.map((tool) => tool.name).join(", "));
    assert.ok("properties" in read.inputSchema, "with its input schema");

    const result = await client.callTool({ name: "call_tool", arguments: { name: read.name, arguments: { path: "notes/todo.md" } } });
    assert.equal(result.isError, false, textOf(result));
    // read_text_file answers with structured content, passed on as such and as its JSON text
    const file = readFileSync(join(t.workspace, "notes/todo.md"), "utf8");
    assert.deepEqual(result.structuredContent, { content: file });
    assert.equal(textOf(result), JSON.stringify({ content: file }));
  });

  it("fleet mcp - a write answers that nothing ran yet; approved over HTTP it runs once", async () => {
    const client = await connect("b");
    const result = await client.callTool({
      name: "call",
      arguments: { pool: "filesystem", action: "write_file", params: { path: "notes/from-mcp.md", content: "written over MCP" } },
    });
    const { packetId, callHash } = result._meta as { packetId: string; callHash: string };
    assert.match(textOf(result), /^Nothing ran yet: filesystem\.write_file waits for a person's approval\. Approve or deny it at http:\/\/127\.0\.0\.1:\d+\/console\/approvals\//);
    assert.equal(existsSync(join(t.workspace, "notes/from-mcp.md")), false, "nothing is written before approval");

    const approved = await t.post(`/v1/packets/${packetId}/approve`, { callHash }, { authorization: `Bearer ${KEYS.b}` });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.toolRouting.executionStatus, "EXECUTED");
    assert.equal(readFileSync(join(t.workspace, "notes/from-mcp.md"), "utf8"), "written over MCP");
    const again = await t.post(`/v1/packets/${packetId}/approve`, {}, { authorization: `Bearer ${KEYS.b}` });
    assert.equal(again.status, 409, "it runs once");
  });

  it("fleet mcp - another tenant's tool is neither found nor called; its own tenant reaches it", async () => {
    const b = await connect("b");
    const memoryQuery = "search the knowledge graph memory for entities named build";
    assert.deepEqual((await search(b, memoryQuery, 20)).filter((tool) => tool.name.startsWith("memory")), []);
    for (const name of ["memory_search_nodes", "memory.search_nodes", "search_nodes"]) {
      await assert.rejects(b.callTool({ name: "call_tool", arguments: { name, arguments: { query: "build" } } }), (error: unknown) => {
        assert.ok(error instanceof McpError && error.code === -32602 && /no tool named/.test(error.message), String(error));
        return true;
      });
    }

    const a = await connect("a");
    assert.ok((await search(a, memoryQuery, 20)).some((tool) => tool.name === "memory_search_nodes"));
    const own = await a.callTool({ name: "call_tool", arguments: { name: "search_nodes", arguments: { query: "build" } } });
    assert.equal(own.isError, false, textOf(own));
  });

  it("fleet mcp - the MCP Inspector's command line lists the tools and calls search_tools, with the key in a header", async () => {
    const inspect = async (...args: string[]) => {
      const { stdout } = await run(INSPECTOR, ["--cli", `${t.url}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${KEYS.b}`, ...args], { timeout: 60_000 });
      return JSON.parse(stdout);
    };
    const listed = await inspect("--method", "tools/list");
    assert.deepEqual(listed.tools.map((tool: { name: string }) => tool.name).sort(), ["call", "call_tool", "search_tools"]);
    const found = await inspect("--method", "tools/call", "--tool-name", "search_tools", "--tool-arg", "query=what's in my to-do note");
    assert.ok(found.structuredContent.tools.some((tool: { name: string }) => tool.name === "filesystem_read_text_file"), JSON.stringify(found));
  });

  it("fleet mcp - a session's turns add their routed tools, kept in NATS KV: a new connection of the session lists them", async () => {
    const meta = { "io.switchyard/session": "fleet-session-1", "io.switchyard/turns": ["what's in my to-do note"] };
    const first = (await (await connect("b")).listTools({ _meta: meta })).tools.map((tool) => tool.name);
    assert.ok(first.includes("filesystem_read_text_file"), first.join(", "));
    const again = (await (await connect("b")).listTools({ _meta: { "io.switchyard/session": "fleet-session-1" } })).tools.map((tool) => tool.name);
    assert.deepEqual(again, first);
    const other = (await (await connect("b")).listTools()).tools.map((tool) => tool.name);
    assert.deepEqual(other.sort(), ["call", "call_tool", "search_tools"]);
  });
});
