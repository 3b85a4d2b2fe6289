import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { GatewayError } from "../src/shared/deps.js";
import { DEFAULT_MCP_OPTIONS, TRY_AGAIN_LATER } from "../src/doors/mcp/mcp-door.js";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ToolDefinition_SideEffect, ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { InMemoryGatewayDeps, PRIVATE_TENANT } from "./in-memory-deps.js";

const KEY = "key-of-tenant-a-0123456789";
const PRIVATE_KEY = "key-of-the-private-tenant-0123";
const auth = apiKeyAuthenticator(new Map([[KEY, "a"], [PRIVATE_KEY, PRIVATE_TENANT]]));
const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth };

type Text = { type: string; text: string };

/** A gateway over the in-memory deps on a free port, and official MCP clients for it. */
async function serve(listAllMaxTools: number, tools?: ToolDefinition[], userDomains = new Map<string, string[]>()) {
  const deps = new InMemoryGatewayDeps(tools);
  const app = buildApp(deps, { ...LIMITS, mcp: { ...DEFAULT_MCP_OPTIONS, listAllMaxTools, sessionMaxTools: 3, userDomains } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const url = new URL(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`);
  const clients: Client[] = [];
  const connect = async (key: string, headers: Record<string, string> = {}) => {
    const client = new Client({ name: "mcp-door-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } } }));
    clients.push(client);
    return client;
  };
  const close = async () => {
    await Promise.all(clients.map((c) => c.close()));
    await app.close();
  };
  return { deps, url, connect, close };
}

const textOf = (result: unknown) => ((result as { content?: Text[] }).content ?? []).map((c) => c.text).join("\n");

describe("gateway mcp - a small catalog is listed whole", () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => (s = await serve(40)));
  after(async () => s.close());

  it("gateway mcp - tools/list: client-safe names, annotations from the side effect, another tenant's tool absent", async () => {
    const client = await s.connect(KEY);
    assert.equal(client.getServerVersion()?.name, "switchyard");
    assert.doesNotMatch(client.getInstructions() ?? "", /search_tools|call_tool/, "the instructions name no tool tools/list does not show");
    assert.match(client.getInstructions() ?? "", /approval/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["core_clarify", "filesystem_read_file", "filesystem_write_file"]);
    for (const tool of tools) assert.match(tool.name, /^[a-zA-Z0-9_-]{1,64}$/);
    const read = tools.find((t) => t.name === "filesystem_read_file")!;
    assert.equal(read.title, "filesystem.read_file");
    assert.equal(tools.find((t) => t.name === "filesystem_write_file")!.annotations?.destructiveHint, true);

    assert.deepEqual(read.annotations, { readOnlyHint: true, openWorldHint: false, idempotentHint: true }, "the server's annotations as given");
    assert.deepEqual(tools.find((t) => t.name === "core_clarify")!.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false }, "none given: its side effect's");

    const own = await (await s.connect(PRIVATE_KEY)).listTools();
    assert.ok(own.tools.some((t) => t.name === "ledger_post_entry"), "the private tenant sees its own tool");
  });

  it("gateway mcp - tools/call by the listed name runs the call through review, with the tenant of the key", async () => {
    const client = await s.connect(KEY);
    const result = await client.callTool({ name: "filesystem_read_file", arguments: { path: "notes/todo.md" } });
    assert.equal(result.isError, false);
    assert.equal(textOf(result), 'filesystem.read_file {"path":"notes/todo.md"}');
    const call = s.deps.calls.at(-1)!;
    assert.deepEqual([call.tenant, call.tool, call.arguments], ["a", "filesystem.read_file", { path: "notes/todo.md" }]);
  });

  it("gateway mcp - a write says nothing ran yet and links the console's approval, in the text and _meta", async () => {
    const client = await s.connect(KEY);
    const result = await client.callTool({ name: "filesystem_write_file", arguments: { path: "a.md", content: "x" } });
    assert.equal(result.isError, false);
    const meta = result._meta as { packetId: string; "switchyard/approval": { packetId: string; callHash: string; url: string; expiresAt: string } };
    const { packetId } = meta;
    const url = `http://127.0.0.1:8080/console/approvals/${packetId}`;
    assert.ok(
      textOf(result).startsWith(`Nothing ran yet: filesystem.write_file waits for a person's approval. Approve or deny it at ${url}`),
      textOf(result),
    );
    const packet = s.deps.packets.get(packetId)!;
    const approval = packet.toolRouting!.approval!;
    assert.deepEqual(meta["switchyard/approval"], { packetId, callHash: approval.callHash, url, expiresAt: timestampDate(approval.expiresAt!).toISOString() });
    assert.equal(packet.header?.tenant, "a");
  });

  it("gateway mcp - another tenant's tool cannot be called; an unknown name is a JSON-RPC invalid-params error", async () => {
    const client = await s.connect(KEY);
    for (const name of ["ledger_post_entry", "ledger.post_entry", "no_such_tool"]) {
      await assert.rejects(client.callTool({ name, arguments: {} }), (error: unknown) => {
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, -32602);
        assert.match(error.message, /no tool named/);
        return true;
      });
    }
  });

  it("gateway mcp - no key: 401 before any MCP; a body that is not JSON: JSON-RPC parse error", async () => {
    const anonymous = new Client({ name: "anonymous", version: "1.0.0" });
    await assert.rejects(anonymous.connect(new StreamableHTTPClientTransport(s.url)), /401|Unauthorized/i);

    const rawPost = (body: string) => fetch(s.url, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
    const bad = await rawPost("{not json");
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: number } }).error.code, -32700);

    const badParams = await rawPost(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 7 } }));
    const answer = (await badParams.json()) as { id: number; error: { code: number; message: string } };
    assert.deepEqual([answer.id, answer.error.code], [9, -32602]);
    assert.match(answer.error.message, /^params\.name: /);

    const empty = await rawPost("[]");
    assert.equal(empty.status, 400);
    assert.equal(((await empty.json()) as { error: { code: number } }).error.code, -32600);

    const get = await fetch(s.url, { headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(get.status, 405);
  });

  it("gateway mcp - the answers are JSON, so a client that accepts JSON alone is served (Swagger's Try it out, curl)", async () => {
    const list = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    const post = (accept: string) => fetch(s.url, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept }, body: list });
    for (const accept of ["application/json", "*/*", "application/*;q=0.5"]) {
      const answer = await post(accept);
      assert.equal(answer.status, 200, `Accept: ${accept}`);
      assert.match(answer.headers.get("content-type") ?? "", /^application\/json/);
      assert.ok(((await answer.json()) as { result: { tools: unknown[] } }).result.tools.length > 0);
    }
    // one that takes no JSON still gets the transport's 406
    for (const accept of ["text/html", "application/json;q=0, text/html"]) assert.equal((await post(accept)).status, 406, `Accept: ${accept}`);
  });
});

describe("gateway mcp - a large catalog behind the meta-tools", () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => (s = await serve(0)));
  after(async () => s.close());

  it("gateway mcp - tools/list is the core tools and search_tools, call_tool, call; call's description lists pools and actions", async () => {
    const client = await s.connect(KEY);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["core_clarify", "search_tools", "call_tool", "call"]);
    assert.match(client.getInstructions() ?? "", /search_tools \{query\}.*call_tool \{name, arguments\}/);
    const call = tools.find((t) => t.name === "call")!;
    assert.match(call.description!, /^filesystem:\n {2}- read_file: Read a file\n {2}- write_file: Write a file$/m);
    assert.doesNotMatch(call.description!, /post_entry/, "another tenant's pool is not described");
  });

  it("gateway mcp - search_tools returns the router's tools with names call_tool takes; call_tool takes a bare server name too", async () => {
    const client = await s.connect(KEY);
    const found = await client.callTool({ name: "search_tools", arguments: { query: "read a file", k: 2 } });
    const { tools } = found.structuredContent as { tools: { name: string; inputSchema: object }[] };
    assert.deepEqual(tools.map((t) => t.name), ["filesystem_read_file", "filesystem_write_file"]);
    assert.equal(s.deps.routed.at(-1)?.topK, 2);

    for (const name of [tools[0]!.name, "read_file"]) {
      const ran = await client.callTool({ name: "call_tool", arguments: { name, arguments: { path: "b.md" } } });
      assert.equal(textOf(ran), 'filesystem.read_file {"path":"b.md"}', name);
    }
    const pooled = await client.callTool({ name: "call", arguments: { pool: "filesystem", action: "read_file", params: { path: "c.md" } } });
    assert.equal(textOf(pooled), 'filesystem.read_file {"path":"c.md"}');
  });

  it("gateway mcp - bad meta-tool arguments are invalid-params errors that name the argument", async () => {
    const client = await s.connect(KEY);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["search_tools", {}, /query must be a non-empty string/],
      ["search_tools", { query: "x", k: 0 }, /k must be a whole number/],
      ["call_tool", { name: "filesystem_read_file", arguments: [1] }, /arguments must be an object/],
      ["call", { pool: "filesystem", action: "format_disk" }, /no action format_disk in pool filesystem/],
    ];
    for (const [name, args, message] of cases) {
      await assert.rejects(client.callTool({ name, arguments: args }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        assert.match(error.message, message);
        return true;
      });
    }
  });
});

/** Arguments nested `depth` levels of objects deep, the arguments object counted: { a: { a: … } }. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: "x" };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("gateway mcp - the bounds and limits of every door", () => {
  it("gateway mcp - arguments or _meta nested past 32 levels and lone surrogates are invalid params naming the field; 32 levels pass", async () => {
    const s = await serve(40);
    try {
      const client = await s.connect(KEY);
      assert.equal((await client.callTool({ name: "filesystem_read_file", arguments: nested(32) })).isError, false, "32 levels are accepted");
      for (const depth of [33, 48, 99, 200]) {
        await assert.rejects(client.callTool({ name: "filesystem_read_file", arguments: nested(depth) }), (error: unknown) => {
          assert.ok(error instanceof McpError, String(error));
          assert.equal(error.code, -32602);
          assert.match(error.message, /params\/arguments(\/a)+ is nested deeper than 32 levels/);
          assert.match(String((error.data as { field?: string }).field), /^params\/arguments\//);
          return true;
        });
      }
      await assert.rejects(client.callTool({ name: "filesystem_read_file", arguments: {}, _meta: nested(40) }), (e: unknown) => e instanceof McpError && e.code === -32602);
      const raw = await fetch(s.url, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"read \\ud800 notes"}}}',
      });
      const answer = (await raw.json()) as { id: number; error: { code: number; data: { field: string } } };
      assert.deepEqual([raw.status, answer.id, answer.error.code, answer.error.data.field], [200, 3, -32602, "params/arguments/query"]);
      const notUtf8 = await fetch(s.url, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: Buffer.from([0x7b, 0xff, 0x7d]) });
      assert.deepEqual([notUtf8.status, ((await notUtf8.json()) as { error: { code: number } }).error.code], [400, -32700]);
    } finally {
      await s.close();
    }
  });

  it("gateway mcp - a search_tools query longer than MAX_MESSAGE_CHARS is invalid params, as a message is on every door", async () => {
    const deps = new InMemoryGatewayDeps();
    const app = buildApp(deps, { ...LIMITS, maxMessageChars: 100, mcp: { ...DEFAULT_MCP_OPTIONS, listAllMaxTools: 0 } });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address();
      const client = new Client({ name: "limits", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
      await assert.rejects(client.callTool({ name: "search_tools", arguments: { query: "x".repeat(101) } }), (error: unknown) => {
        assert.ok(error instanceof McpError);
        assert.equal(error.code, -32602);
        // In the words of the HTTP door and gRPC ("message must not have more than 100 characters").
        assert.match(error.message, /arguments\/query must not have more than 100 characters$/);
        return true;
      });
      await client.close();
    } finally {
      await app.close();
    }
  });

  it("gateway mcp - limits refuse in JSON-RPC with the HTTP status and Retry-After: the rate limit, and packets in flight", async () => {
    const deps = new InMemoryGatewayDeps();
    const app = buildApp(deps, { ...LIMITS, rateLimit: { max: 2, windowMs: 60_000 } });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`;
      const post = (body: object) =>
        fetch(url, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(body) });
      const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "filesystem_read_file", arguments: {} } };
      deps.submitCall = async () => {
        throw new GatewayError("limited", "too many packets in flight for tenant a (64)");
      };
      const inFlight = await post(call);
      const limited = (await inFlight.json()) as { error: { code: number; message: string; data: { status: number; retryAfter: number } } };
      assert.equal(limited.error.code, TRY_AGAIN_LATER, JSON.stringify(limited));
      assert.match(limited.error.message, /too many packets in flight/);
      assert.deepEqual([limited.error.data.status, limited.error.data.retryAfter], [429, 2]);
      assert.equal(inFlight.headers.get("retry-after"), "2");

      await post(call);
      const rated = await post(call);
      const body = (await rated.json()) as { jsonrpc: string; error: { code: number; data: { status: number } } };
      assert.deepEqual([rated.status, body.jsonrpc, body.error.code, body.error.data.status], [429, "2.0", TRY_AGAIN_LATER, 429]);
      assert.ok(Number(rated.headers.get("retry-after")) > 0);
    } finally {
      await app.close();
    }
  });
});

/** Seed 004's shape: 130 tools in 7 pools, 25 of them core (the first few of each pool). */
function seed004Catalog(): ToolDefinition[] {
  const pools = ["github", "slack", "jira", "calendar", "drive", "crm", "billing"];
  return Array.from({ length: 130 }, (_, i) => {
    const pool = pools[i % pools.length]!;
    const action = `action_${Math.floor(i / pools.length)}`;
    return create(ToolDefinitionSchema, {
      name: `${pool}.${action}`,
      description: `Does ${action} in ${pool}. More detail follows here.`,
      server: pool,
      serverToolName: action,
      pool,
      domains: [pool],
      core: i < 25,
      sideEffect: ToolDefinition_SideEffect.READ,
      inputSchema: { type: "object", properties: { id: { type: "string" } } },
    });
  });
}

describe("gateway mcp - seed 004: 130 tools in 7 pools, 25 core", () => {
  let s: Awaited<ReturnType<typeof serve>>;
  const catalog = seed004Catalog();
  before(async () => (s = await serve(40, catalog)));
  after(async () => s.close());

  it("gateway mcp - tools/list stays under 30 entries, and every pooled tool is reachable through call", async () => {
    const client = await s.connect(KEY);
    const { tools } = await client.listTools();
    assert.equal(tools.length, 28, "25 core tools and 3 meta-tools");
    assert.ok(tools.length < 30);
    const description = tools.find((t) => t.name === "call")!.description!;
    for (const tool of catalog) {
      assert.ok(description.includes(`  - ${tool.serverToolName}: Does ${tool.serverToolName} in ${tool.pool}.`), `${tool.name} described`);
      const result = await client.callTool({ name: "call", arguments: { pool: tool.pool, action: tool.serverToolName, params: { id: "7" } } });
      assert.equal(textOf(result), `${tool.name} {"id":"7"}`);
    }
  });
});

describe("gateway mcp - seed 003: a session's tools, its turns and its user's domains", () => {
  let s: Awaited<ReturnType<typeof serve>>;
  before(async () => (s = await serve(0, undefined, new Map([["sales", ["crm"]]]))));
  after(async () => s.close());
  const session = (id: string, more: Record<string, unknown> = {}) => ({ _meta: { "io.switchyard/session": id, ...more } });
  const listed = async (client: Client, params?: Record<string, unknown>) => (await client.listTools(params)).tools.map((t) => t.name);

  it("gateway mcp - a session's turns add their routed tools; the session keeps them; without a session nothing is added", async () => {
    const client = await s.connect(KEY);
    const meta = ["core_clarify", "search_tools", "call_tool", "call"];
    assert.deepEqual(await listed(client), meta);
    const withTurns = await listed(client, session("s-1", { "io.switchyard/turns": ["hello", "read notes/todo.md"] }));
    assert.deepEqual(withTurns, ["core_clarify", "filesystem_read_file", "filesystem_write_file", "search_tools", "call_tool", "call"]);
    assert.deepEqual(s.deps.routed.at(-1)?.history.map((t) => t.content), ["hello"]);
    assert.equal(s.deps.routed.at(-1)?.message, "read notes/todo.md");
    assert.deepEqual(await listed(client, session("s-1")), withTurns, "the session remembers, on any replica (the bucket)");
    assert.deepEqual(await listed(client, session("s-2")), meta, "another session has its own");
    assert.deepEqual(await listed(await s.connect(PRIVATE_KEY), session("s-1")), meta, "another tenant's session of the same id is another session");
  });

  it("gateway mcp - a tool found with search_tools or called appears in the session's next tools/list (header session)", async () => {
    const client = await s.connect(KEY, { "x-switchyard-session": "s-3" });
    assert.ok(!(await listed(client)).includes("filesystem_read_file"));
    await client.callTool({ name: "search_tools", arguments: { query: "write a file", k: 1 } });
    assert.deepEqual(await listed(client), ["core_clarify", "filesystem_read_file", "search_tools", "call_tool", "call"]);
    await client.callTool({ name: "call_tool", arguments: { name: "write_file", arguments: { path: "a", content: "b" } } });
    assert.deepEqual(await listed(client), ["core_clarify", "filesystem_read_file", "filesystem_write_file", "search_tools", "call_tool", "call"]);
  });

  it("gateway mcp - the user's role maps to domains whose tools are listed (header or _meta)", async () => {
    const catalog = seed004Catalog();
    const domains = await serve(40, catalog, new Map([["sales", ["crm"]]]));
    try {
      const crm = catalog.filter((t) => t.pool === "crm" && !t.core).map((t) => t.name.replace(".", "_"));
      const byHeader = await listed(await domains.connect(KEY, { "x-switchyard-role": "Sales" }));
      assert.deepEqual(byHeader.filter((n) => n.startsWith("crm")).sort(), [...crm, ...catalog.filter((t) => t.pool === "crm" && t.core).map((t) => t.name.replace(".", "_"))].sort());
      const byMeta = await listed(await domains.connect(KEY), { _meta: { "io.switchyard/user": { role: "sales" } } });
      assert.deepEqual(byMeta, byHeader);
      const plain = await listed(await domains.connect(KEY));
      assert.equal(plain.length, 28, "no metadata: core and meta-tools only");
    } finally {
      await domains.close();
    }
  });
});
