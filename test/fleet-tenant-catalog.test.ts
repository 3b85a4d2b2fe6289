import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
// The filesystem server shared with every tenant, the memory server for tenant-a alone.
const CONFIG = fileURLToPath(new URL("fixtures/tenant-catalog.yaml", import.meta.url));
const KEYS = { a: "tenant-a-key-0123456789abcdef", b: "tenant-b-key-0123456789abcdef", adminA: "tenant-a-admin-0123456789abc" };
const as = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });
/** A request only the memory server's tools answer. */
const MEMORY_REQUEST = "search the knowledge graph memory for entities named build";

interface Candidate {
  tool: { name: string };
}
const isMemory = (name: string) => name.startsWith("memory.");

describe("fleet tenant catalog - a server configured for one tenant", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet({
      env: { API_KEYS: `${KEYS.a}:tenant-a,${KEYS.b}:tenant-b`, ADMIN_API_KEYS: `${KEYS.adminA}:tenant-a`, SWITCHYARD_CONFIG: CONFIG },
    });
  });
  after(async () => {
    await t?.close();
  });

  const listed = async (who: keyof typeof KEYS) => {
    const res = await t.get("/v1/tools", as(who));
    assert.equal(res.status, 200, res.text);
    return (res.json.tools as { name: string; tenants?: string[] }[]).map((tool) => tool.name);
  };

  it("fleet tenant catalog - GET /v1/tools shows tenant-a its own and the shared tools, tenant-b the shared ones alone", async () => {
    const a = await eventually(async () => {
      const names = await listed("a");
      return names.some(isMemory) && names.some((name) => name.startsWith("filesystem.")) ? names : undefined;
    }, 60_000, "tenant-a's catalog");
    assert.ok(a.includes("memory.search_nodes"), a.join(", "));
    const b = await listed("b");
    assert.ok(b.includes("filesystem.read_text_file"), b.join(", "));
    assert.deepEqual(b.filter(isMemory), [], "tenant-b sees none of tenant-a's tools");
  });

  it("fleet tenant catalog - route-only gives tenant-a the memory tools and never tenant-b, even allow-listed", async () => {
    const route = async (who: keyof typeof KEYS, body: object) => {
      const res = await t.post("/v1/route", body, as(who));
      assert.equal(res.status, 200, res.text);
      return (res.json.candidates as Candidate[]).map((c) => c.tool.name);
    };
    const forA = await eventually(async () => {
      const names = await route("a", { message: MEMORY_REQUEST, topK: 10 });
      return names.some(isMemory) ? names : undefined;
    }, 60_000, "memory tools routed for tenant-a");
    assert.ok(forA.includes("memory.search_nodes"), forA.join(", "));
    for (const body of [
      { message: MEMORY_REQUEST, topK: 50 },
      { message: MEMORY_REQUEST, tools: ["memory.search_nodes", "memory.read_graph"] },
      { message: MEMORY_REQUEST, pools: ["memory"] },
    ]) {
      assert.deepEqual((await route("b", body)).filter(isMemory), [], `tenant-b, ${JSON.stringify(body)}`);
    }
  });

  it("fleet tenant catalog - tenant-a's packet uses its memory tool; tenant-b's same request never selects one", async () => {
    const a = await t.post("/v1/packets", { message: MEMORY_REQUEST }, as("a"));
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.state, "COMPLETED", a.text);
    assert.ok(isMemory(a.json.toolRouting.selectedTool?.toolName ?? ""), a.text);
    assert.equal(a.json.toolRouting.executionStatus, "EXECUTED", a.text);

    const b = await t.post("/v1/packets", { message: MEMORY_REQUEST }, as("b"));
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.header.tenant, "tenant-b");
    const candidates = ((b.json.toolRouting.candidates ?? []) as Candidate[]).map((c) => c.tool.name);
    assert.deepEqual(candidates.filter(isMemory), [], `candidates: ${candidates.join(", ")}`);
    assert.ok(!isMemory(b.json.toolRouting.selectedTool?.toolName ?? ""), b.text);
  });

  it("fleet tenant catalog - approving tenant-a's tool as tenant-b is 404, as for a tool that does not exist; tenant-a's admin may", async () => {
    const foreign = await t.post("/v1/tools/memory.search_nodes/approve", {}, as("b"));
    assert.equal(foreign.status, 404, foreign.text);
    const unknown = await t.post("/v1/tools/memory.no_such_tool/approve", {}, as("b"));
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(foreign.json.message.replace("search_nodes", "no_such_tool"), unknown.json.message, "says no more than for an unknown tool");
    const plain = await t.post("/v1/tools/memory.search_nodes/approve", {}, as("a"));
    assert.equal(plain.status, 403, "tenant-a's plain key: approving is an admin's act");
    const own = await t.post("/v1/tools/memory.search_nodes/approve", {}, as("adminA"));
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(own.json.tenants, ["tenant-a"]);
  });

  it("fleet tenant catalog - tenant-b cannot teach tenant-a's tool examples: 404, as for a tool that does not exist", async () => {
    const foreign = await t.post("/v1/tools/memory.search_nodes/examples", { examples: ["find the build entity"] }, as("b"));
    assert.equal(foreign.status, 404, foreign.text);
    const unknown = await t.post("/v1/tools/memory.no_such_tool/examples", { examples: ["find the build entity"] }, as("b"));
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(foreign.json.message.replace("search_nodes", "no_such_tool"), unknown.json.message, "says no more than for an unknown tool");
    const own = await t.post("/v1/tools/memory.search_nodes/examples", { examples: ["find the build entity"] }, as("a"));
    assert.equal(own.status, 200, own.text);
    assert.ok(own.json.examples.includes("find the build entity"));
  });
});
