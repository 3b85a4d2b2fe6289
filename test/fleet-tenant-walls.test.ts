import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { grpcServiceDefinition } from "@switchyard/grpc";
import { Router } from "@switchyard/packet";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { Reply, TestFleet } from "./harness.js";

/**
 * Issue 36's probes of what one tenant leaves behind, replayed with two tenants' keys and an
 * admin's on one fleet: examples taught by hand, by feedback and by use; learning sessions;
 * quarantine approvals; and what an approval of an unknown tool gives away.
 */
const skip = fleetSkipReason();
const CONFIG = fileURLToPath(new URL("fixtures/hostile.yaml", import.meta.url));
const KEYS = { a: "walls-tenant-a-key-0123456789", b: "walls-tenant-b-key-0123456789", admin: "walls-admin-a-key-0123456789" };
const as = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });
const SECRET = "TOPSECRET-ALPHA";
const PASSWORD = "hunter2-correct-horse";
const TODO = "what is on my to-do list";

interface Tool {
  name: string;
  examples: string[];
  quarantined?: boolean;
}

describe("fleet tenant walls - what a tenant teaches, approves or leaves behind stays its own", { skip }, () => {
  let t: TestFleet;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-walls-"));
  let grpcClient: grpc.Client & Record<string, (request: unknown, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response: unknown) => void) => void>;

  before(async () => {
    const description = join(dir, "description.txt");
    const calls = join(dir, "calls.log");
    writeFileSync(description, "Look up the weather forecast for a city");
    writeFileSync(calls, "");
    t = await startTestFleet({
      env: {
        API_KEYS: `${KEYS.a}:tenant-a,${KEYS.b}:tenant-b`,
        ADMIN_API_KEYS: `${KEYS.admin}:tenant-a`,
        SWITCHYARD_CONFIG: CONFIG,
        HOSTILE_DESCRIPTION_FILE: description,
        HOSTILE_CALLS_FILE: calls,
      },
    });
    const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Router), "Router");
    grpcClient = new Client(`127.0.0.1:${t.fleet.processes.get("gateway")!.ready["grpcPort"]}`, grpc.credentials.createInsecure()) as typeof grpcClient;
  });

  after(async () => {
    grpcClient?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tools = async (who: keyof typeof KEYS): Promise<Tool[]> => {
    const res = await t.get("/v1/tools", as(who));
    assert.equal(res.status, 200, res.text);
    return res.json.tools as Tool[];
  };
  const grpcTools = (who: keyof typeof KEYS): Promise<Tool[]> => {
    const request = create(Router.method.listTools.input as DescMessage, {});
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${KEYS[who]}`);
    return new Promise((resolve, reject) =>
      grpcClient["listTools"]!(request, metadata, (error, response) => (error ? reject(error) : resolve((response as { tools: Tool[] }).tools))),
    );
  };
  /** Every example text a tenant is shown, over HTTP and gRPC. */
  const shownTo = async (who: keyof typeof KEYS): Promise<string> =>
    JSON.stringify([(await tools(who)).map((tool) => tool.examples), (await grpcTools(who)).map((tool) => tool.examples)]);
  const examplesOf = async (who: keyof typeof KEYS, name: string) => (await tools(who)).find((tool) => tool.name === name)?.examples ?? [];
  const top = async (who: keyof typeof KEYS, message: string) => {
    const res = await t.post("/v1/route", { message }, as(who));
    assert.equal(res.status, 200, res.text);
    const [best] = res.json.candidates as { tool: { name: string }; score: number }[];
    return { name: best?.tool.name, score: best?.score };
  };

  it("fleet tenant walls - an example learned from tenant-a's confirmed call is tenant-a's alone, its secrets masked", async () => {
    const message = `${SECRET} merger with Acme, password=${PASSWORD}: read notes/todo.md`;
    const call = await t.post(
      "/v1/calls",
      { tool: "filesystem.read_text_file", arguments: { path: "notes/todo.md" }, message },
      as("a"),
    );
    assert.equal(call.status, 200, call.text);
    assert.equal(call.json.toolRouting.executionStatus, "EXECUTED", call.text);
    const feedback = await t.post(`/v1/packets/${call.json.header.packetId}/feedback`, { correct: true }, as("a"));
    assert.equal(feedback.status, 200, feedback.text);
    assert.equal(feedback.json.addedTo, "filesystem.read_text_file");

    const learned = await eventually(async () => {
      const examples = await examplesOf("a", "filesystem.read_text_file");
      return examples.find((e) => e.includes(SECRET));
    }, 15_000, "tenant-a's learned example");
    assert.ok(!learned.includes(PASSWORD), `the password is masked: ${learned}`);
    const b = await shownTo("b");
    assert.ok(!b.includes(SECRET) && !b.includes("merger"), `tenant-b sees none of it over HTTP or gRPC: ${b}`);
  });

  it("fleet tenant walls - examples tenant-b teaches by hand steer tenant-b's routing alone; shared ones need an admin", async () => {
    const before = await top("a", TODO);
    const taught = await t.post("/v1/tools/hostile.lookup_weather/examples", { examples: [TODO] }, as("b"));
    assert.equal(taught.status, 200, taught.text);
    await eventually(async () => ((await top("b", TODO)).name === "hostile.lookup_weather" ? true : undefined), 15_000, "tenant-b's example in its own routing");
    assert.deepEqual(await top("a", TODO), before, "tenant-a's route is as it was");
    assert.ok(!(await examplesOf("a", "hostile.lookup_weather")).includes(TODO), "nor does tenant-a see the example");
    const packet = await t.post("/v1/packets", { message: TODO }, as("a"));
    assert.notEqual(packet.json.toolRouting?.selectedTool?.toolName, "hostile.lookup_weather", packet.text);
    // And over /mcp, with the MCP SDK client: tenant-a's search is not steered either; tenant-b's is.
    const searchOver = async (who: keyof typeof KEYS) => {
      const client = new Client({ name: `walls-${who}`, version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: as(who) } }));
      try {
        const result = await client.callTool({ name: "search_tools", arguments: { query: TODO, k: 3 } });
        return ((result.structuredContent as { tools: { name: string }[] }).tools ?? []).map((tool) => tool.name);
      } finally {
        await client.close();
      }
    };
    assert.equal((await searchOver("b"))[0], "hostile_lookup_weather");
    assert.notEqual((await searchOver("a"))[0], "hostile_lookup_weather");

    const shared = await t.post("/v1/tools/hostile.lookup_weather/examples", { examples: ["forecast for the picnic"], shared: true }, as("b"));
    assert.equal(shared.status, 403, shared.text);
    assert.equal(shared.json.statusCode, 403);
    const byAdmin = await t.post("/v1/tools/hostile.lookup_weather/examples", { examples: ["forecast for the picnic"], shared: true }, as("admin"));
    assert.equal(byAdmin.status, 200, byAdmin.text);
    await eventually(async () => ((await examplesOf("b", "hostile.lookup_weather")).includes("forecast for the picnic") ? true : undefined), 15_000, "an admin's shared example, shown to tenant-b");
  });

  it("fleet tenant walls - examples are listed with ids and deleted by their owner alone; a deleted one stops steering", async () => {
    const path = "/v1/tools/hostile.lookup_weather/examples";
    type Listed = { id: string; text: string; shared: boolean; source: string };
    const listed = async (who: keyof typeof KEYS): Promise<Listed[]> => {
      const res = await t.get(path, as(who));
      assert.equal(res.status, 200, res.text);
      return res.json.examples as Listed[];
    };
    const ofB = await listed("b");
    const mine = ofB.find((e) => e.text === TODO);
    const shared = ofB.find((e) => e.text === "forecast for the picnic");
    assert.deepEqual([mine?.shared, mine?.source, shared?.shared], [false, "ADDED", true], JSON.stringify(ofB));
    assert.deepEqual((await listed("a")).map((e) => e.text), ["forecast for the picnic"], "tenant-a is shown the shared one alone");
    const request = create(Router.method.listExamples.input as DescMessage, { tool: "hostile.lookup_weather" });
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${KEYS.a}`);
    const overGrpc = await new Promise<{ examples: Listed[] }>((resolve, reject) =>
      grpcClient["listExamples"]!(request, metadata, (error, response) => (error ? reject(error) : resolve(response as { examples: Listed[] }))),
    );
    assert.deepEqual(overGrpc.examples.map((e) => e.text), ["forecast for the picnic"], "gRPC ListExamples shows the same");

    assert.equal((await t.delete(`${path}/${mine!.id}`, as("a"))).status, 404, "tenant-b's example is no id of tenant-a's");
    assert.equal((await t.delete(`${path}/${shared!.id}`, as("b"))).status, 403, "a shared one is an admin's to remove");
    const removed = await t.delete(`${path}/${mine!.id}`, as("b"));
    assert.deepEqual([removed.status, removed.json.text], [200, TODO], removed.text);
    await eventually(async () => ((await top("b", TODO)).name !== "hostile.lookup_weather" ? true : undefined), 15_000, "tenant-b's routing without it");
    assert.ok(!(await listed("b")).some((e) => e.text === TODO));
  });

  it("fleet tenant walls - tenant-b's packet in tenant-a's session id neither confirms nor sees tenant-a's lesson", async () => {
    const sessionId = "shared-sess-1";
    const query = "please read the file notes/todo.md";
    const first = await t.post("/v1/packets", { message: query, sessionId }, as("a"));
    assert.equal(first.json.toolRouting.executionStatus, "EXECUTED", first.text);
    const other = await t.post("/v1/packets", { message: "list the files in notes", sessionId }, as("b"));
    assert.equal(other.status, 200, other.text);
    // tenant-b's packet was announced; had it confirmed the lesson, it would show by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(!(await examplesOf("a", "filesystem.read_text_file")).includes(query), "tenant-b's request confirmed nothing");
    await t.post("/v1/packets", { message: "thanks!", sessionId }, as("a"));
    await eventually(async () => ((await examplesOf("a", "filesystem.read_text_file")).includes(query) ? true : undefined), 15_000, "tenant-a's own next request confirms it");
    assert.ok(!(await examplesOf("b", "filesystem.read_text_file")).includes(query), "and it is tenant-a's alone");
  });

  it("fleet tenant walls - only an admin lifts a quarantine; an unknown tool answers as another tenant's would", async () => {
    const poisoned = (await tools("b")).find((tool) => tool.name === "hostile.add_numbers");
    assert.equal(poisoned?.quarantined, true, "hidden instructions quarantine it");
    for (const who of ["a", "b"] as const) {
      const refused: Reply = await t.post("/v1/tools/hostile.add_numbers/approve", {}, as(who));
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.message, /admin's API key/);
    }
    assert.equal((await tools("a")).find((tool) => tool.name === "hostile.add_numbers")?.quarantined, true, "still quarantined");
    const unknown = await t.post("/v1/tools/nosuchserver.tool/approve", {}, as("b"));
    assert.deepEqual([unknown.status, unknown.json.message], [404, "no tool named nosuchserver.tool"], "no executor is asked: no 503 tells a server apart");
    const approved = await t.post("/v1/tools/hostile.add_numbers/approve", {}, as("admin"));
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.quarantined, false);
  });
});
