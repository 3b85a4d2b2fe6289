import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { freePort } from "@switchyard/local-nats";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const KEYS = { user: "tenant-a-key-0123456789abcdef", admin: "ops-admin-key-0123456789abcdef" };
const as = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });
/** The MCP "everything" reference server, run as a streamable HTTP server of its own (not by the executor). */
const EVERYTHING = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
/** Seed 004's shape: 7 pools of 19 actions, each pool at <url>/mcp/<pool> (packages/test-fixtures). */
const POOLED = fileURLToPath(new URL("../packages/test-fixtures/dist/pooled-mcp-server.js", import.meta.url));
const POOLS = ["github", "slack", "jira", "calendar", "drive", "crm", "billing"];

interface Tool {
  name: string;
  quarantined?: boolean;
  flags?: string[];
}

describe("fleet registered servers - an MCP server that arrives at run time", { skip }, () => {
  let t: TestFleet;
  let server: ChildProcess;
  let pooled: ChildProcess;
  let url = "";
  let pooledUrl = "";

  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    server = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
    // Up once its endpoint answers at all (a GET without a session is refused, which is enough).
    await eventually(() => fetch(url).then(() => true, () => undefined), 30_000, "the everything server on streamable HTTP");
    pooled = spawn(process.execPath, [POOLED], { env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
    const [listening] = (await once(pooled.stdout!, "data")) as [Buffer];
    pooledUrl = `http://127.0.0.1:${listening.toString().trim()}/mcp`;
    // With keys, a server on loopback over http is let through only by SERVER_URL_ALLOW (gateway and executor alike).
    t = await startTestFleet({ env: { API_KEYS: `${KEYS.user}:tenant-a`, ADMIN_API_KEYS: `${KEYS.admin}:ops`, SERVER_URL_ALLOW: "127.0.0.1" } });
  });
  after(async () => {
    server?.kill();
    pooled?.kill();
    await t?.close();
  });

  const routed = async (message: string) => {
    const res = await t.post("/v1/route", { message, topK: 10 }, as("user"));
    assert.equal(res.status, 200, res.text);
    return (res.json.candidates as { tool: Tool }[]).map((c) => c.tool.name);
  };

  it("fleet registered servers - an admin's key registers it; its tools are listed, routed and called through review", async () => {
    const refused = await t.post("/v1/servers", { name: "everything", url }, as("user"));
    assert.equal(refused.status, 403, refused.text);
    for (const forbidden of ["http://169.254.169.254/latest/meta-data/", url.replace("127.0.0.1", "127.0.0.2"), url.replace("http:", "https:").replace("127.0.0.1", "[::1]")]) {
      const res = await t.post("/v1/servers", { name: "everything", url: forbidden }, as("admin"));
      assert.equal(res.status, 400, `${forbidden}: ${res.text}`);
      assert.equal(res.json.field, "url", res.text);
    }

    const res = await t.post("/v1/servers", { name: "everything", url, domains: ["demo"] }, as("admin"));
    assert.equal(res.status, 201, res.text);
    const tools = res.json.tools as Tool[];
    assert.ok(tools.some((tool) => tool.name === "everything.echo" && !tool.quarantined), tools.map((tool) => tool.name).join(", "));

    const names = await eventually(async () => {
      const found = await routed("echo back the message hello switchyard");
      return found.includes("everything.echo") ? found : undefined;
    }, 30_000, "everything.echo routed");
    assert.ok(names.includes("everything.echo"));

    const call = await t.post("/v1/calls", { tool: "everything.echo", arguments: { message: "hello from a registered server" } }, as("user"));
    assert.equal(call.status, 200, call.text);
    assert.equal(call.json.toolRouting.executionStatus, "EXECUTED", call.text);
    assert.match(JSON.stringify(call.json.content.dataFields), /hello from a registered server/);

    const listed = await t.get("/v1/servers", as("admin"));
    assert.deepEqual((listed.json.servers as { name: string; registeredBy: string }[]).map((s) => [s.name, s.registeredBy]), [["everything", "ops"]]);
  });

  it("fleet registered servers - a name of switchyard.yaml, or one registered already, is refused 409", async () => {
    const fromFile = await t.post("/v1/servers", { name: "filesystem", url }, as("admin"));
    assert.equal(fromFile.status, 409, fromFile.text);
    assert.match(fromFile.json.message, /configured in switchyard\.yaml/);
    const twice = await t.post("/v1/servers", { name: "everything", url }, as("admin"));
    assert.equal(twice.status, 409, twice.text);
  });

  it("fleet registered servers - DELETE unregisters it: its tools leave routing and a call no longer runs", async () => {
    const res = await fetch(`${t.url}/v1/servers/everything`, { method: "DELETE", headers: as("admin") });
    assert.equal(res.status, 204);
    await eventually(async () => ((await routed("echo back the message hello switchyard")).some((name) => name.startsWith("everything.")) ? undefined : true), 30_000, "everything's tools unrouted");
    const call = await t.post("/v1/calls", { tool: "everything.echo", arguments: { message: "hi" } }, as("user"));
    assert.notEqual(call.json?.toolRouting?.executionStatus, "EXECUTED", call.text);
  });

  it("fleet registered servers - trust: review quarantines every new tool until approved", async () => {
    const res = await t.post("/v1/servers", { name: "reviewed", url, trust: "review" }, as("admin"));
    assert.equal(res.status, 201, res.text);
    const echo = (res.json.tools as Tool[]).find((tool) => tool.name === "reviewed.echo");
    assert.equal(echo?.quarantined, true, res.text);
    assert.match(echo?.flags?.join(" ") ?? "", /registered for review/);
    assert.ok(!(await routed("echo back the message hello switchyard")).includes("reviewed.echo"), "a tool waiting for review is not routed");

    const approved = await t.post("/v1/tools/reviewed.echo/approve", {}, as("admin"));
    assert.equal(approved.status, 200, approved.text);
    await eventually(async () => ((await routed("echo back the message hello switchyard")).includes("reviewed.echo") ? true : undefined), 30_000, "reviewed.echo routed once approved");
  });

  it("fleet registered servers - seed 004's shape (133 tools in 7 pools, 21 core): tools/list stays under 30, every pooled tool is reached through call", async () => {
    const registered: Tool[] = [];
    for (const pool of POOLS) {
      const thing = { github: "issue", slack: "message", jira: "ticket", calendar: "event", drive: "document", crm: "contact", billing: "invoice" }[pool]!;
      const res = await t.post("/v1/servers", { name: pool, url: `${pooledUrl}/${pool}`, core: ["list", "get", "search"].map((a) => `${a}_${thing}`) }, as("admin"));
      assert.equal(res.status, 201, res.text);
      registered.push(...(res.json.tools as Tool[]));
    }
    assert.equal(registered.length, 133);

    const client = new Client({ name: "fleet-seed-004", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: as("user") } }));
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      assert.ok(tools.length < 30, `${tools.length} listed: ${names.join(", ")}`);
      for (const pool of POOLS) assert.equal(names.filter((name) => name.startsWith(`${pool}_`)).length, 3, `${pool}'s core tools listed`);
      const description = tools.find((tool) => tool.name === "call")?.description ?? "";
      const outcomes = { ran: 0, held: 0 };
      for (const tool of registered) {
        const [pool, action] = tool.name.split(".") as [string, string];
        assert.match(description, new RegExp(`- ${action}: `), `${tool.name} is described under its pool`);
        const result = await client.callTool({ name: "call", arguments: { pool, action, params: { id: "7" } } });
        const text = ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("\n");
        // Tools that only read run; those whose names say they change things are held by the review policy, by name.
        const ran = text.includes(`ran ${tool.name} {"id":"7"}`);
        const held = text.startsWith(`dry run: ${tool.name} is a write tool`);
        assert.ok(ran || held, `${tool.name}: ${text}`);
        outcomes[ran ? "ran" : "held"]++;
      }
      assert.ok(outcomes.ran >= 7 * 5 && outcomes.held > 0, JSON.stringify(outcomes));
    } finally {
      await client.close();
    }
  });
});
