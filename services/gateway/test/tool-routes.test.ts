import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator, localAuthenticator } from "../src/shared/auth.js";
import { InMemoryGatewayDeps, PRIVATE_TENANT } from "./in-memory-deps.js";

const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth: localAuthenticator };
const KEY = "tool-approver-key-0001";

describe("gateway http - tool approval", () => {
  it("gateway http - approving a tool answers its pinned catalog entry as ToolDefinition JSON", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), LIMITS);
    const res = await app.inject({ method: "POST", url: "/v1/tools/filesystem.read_file/approve" });
    assert.equal(res.statusCode, 200, res.body);
    const tool = res.json();
    assert.equal(tool.name, "filesystem.read_file");
    assert.equal(tool.quarantined, false);
    assert.equal(tool.pinHash, "f".repeat(64));
    assert.deepEqual(tool.flags, [], "every field is emitted");
  });

  it("gateway http - approving a tool that is not an MCP tool is 404; a name too long is refused", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), LIMITS);
    const unknown = await app.inject({ method: "POST", url: "/v1/tools/no.such_tool/approve" });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().message, "no tool named no.such_tool");
    const long = await app.inject({ method: "POST", url: `/v1/tools/${"x".repeat(300)}/approve` });
    assert.equal(long.statusCode, 414, "fastify's limit on a path parameter (100 characters) applies");
  });

  it("gateway http - approving a tool needs an admin's API key: it lifts the quarantine for every tenant", async () => {
    const ADMIN_KEY = "tool-admin-key-000001";
    const keys = new Map([[KEY, "tenant-a"], [ADMIN_KEY, "tenant-a"]]);
    const app = buildApp(new InMemoryGatewayDeps(), { ...LIMITS, auth: apiKeyAuthenticator(keys, new Set([ADMIN_KEY])) });
    const approve = (key?: string) =>
      app.inject({ method: "POST", url: "/v1/tools/filesystem.read_file/approve", headers: key ? { authorization: `Bearer ${key}` } : {} });
    assert.equal((await approve()).statusCode, 401);
    const plain = await approve(KEY);
    assert.equal(plain.statusCode, 403, plain.body);
    assert.match(plain.json().message, /admin's API key/);
    const admin = await approve(ADMIN_KEY);
    assert.equal(admin.statusCode, 200, admin.body);
  });

  it("gateway http - a tenant sees, routes and (by an admin) approves its own and shared tools; another tenant's tool is 404", async () => {
    const OTHER_KEY = "other-tenant-key-0002";
    const deps = new InMemoryGatewayDeps();
    const keys = new Map([[KEY, PRIVATE_TENANT], [OTHER_KEY, "tenant-b"]]);
    const app = buildApp(deps, { ...LIMITS, auth: apiKeyAuthenticator(keys, new Set([KEY, OTHER_KEY])) });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    const listed = async (key: string) =>
      ((await app.inject({ method: "GET", url: "/v1/tools", headers: as(key) })).json().tools as { name: string }[]).map((t) => t.name);
    assert.ok((await listed(KEY)).includes("ledger.post_entry"));
    assert.ok((await listed(KEY)).includes("filesystem.read_file"), "shared tools are listed for every tenant");
    assert.deepEqual((await listed(OTHER_KEY)).includes("ledger.post_entry"), false);

    const route = await app.inject({ method: "POST", url: "/v1/route", headers: as(OTHER_KEY), payload: { message: "post an entry" } });
    assert.equal(route.statusCode, 200, route.body);
    assert.deepEqual(deps.routedTenants, ["tenant-b"], "the route request carries the caller's tenant");

    const foreign = await app.inject({ method: "POST", url: "/v1/tools/ledger.post_entry/approve", headers: as(OTHER_KEY) });
    assert.equal(foreign.statusCode, 404, foreign.body);
    const unknown = await app.inject({ method: "POST", url: "/v1/tools/ledger.no_such_entry/approve", headers: as(OTHER_KEY) });
    assert.deepEqual([unknown.statusCode, unknown.json().message], [404, "no tool named ledger.no_such_entry"]);
    assert.equal(foreign.json().message, "no tool named ledger.post_entry", "another tenant's tool in the same words as none");
    const own = await app.inject({ method: "POST", url: "/v1/tools/ledger.post_entry/approve", headers: as(KEY) });
    assert.equal(own.statusCode, 200, own.body);
  });
});

describe("gateway http - stored examples", () => {
  const ADMIN_KEY = "examples-admin-key-0001";
  const keys = new Map([[KEY, "tenant-a"], [ADMIN_KEY, "tenant-a"]]);
  const as = (key: string) => ({ authorization: `Bearer ${key}` });

  it("gateway http - GET lists a tool's examples with id, source and owner; DELETE removes the tenant's own, a shared one needs an admin", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), { ...LIMITS, auth: apiKeyAuthenticator(keys, new Set([ADMIN_KEY])) });
    const listed = await app.inject({ method: "GET", url: "/v1/tools/filesystem.read_file/examples", headers: as(KEY) });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().examples.map((e: { id: string; source: string; shared: boolean }) => [e.id, e.source, e.shared]),
      [["0123456789abcdef", "ADDED", true], ["fedcba9876543210", "LEARNED", false]],
    );
    const del = (id: string, key = KEY) => app.inject({ method: "DELETE", url: `/v1/tools/filesystem.read_file/examples/${id}`, headers: as(key) });
    assert.equal((await del("0123456789abcdef")).statusCode, 403, "a shared example: an admin's act");
    const own = await del("fedcba9876543210");
    assert.deepEqual([own.statusCode, own.json().text], [200, "show me my notes"]);
    assert.equal((await del("fedcba9876543210")).statusCode, 404, "gone");
    assert.equal((await del("0123456789abcdef", ADMIN_KEY)).statusCode, 200);
    const bad = await del("not-an-id");
    assert.deepEqual([bad.statusCode, bad.json().field], [400, "id"]);
    const unknown = await app.inject({ method: "GET", url: "/v1/tools/no.such_tool/examples", headers: as(KEY) });
    assert.deepEqual([unknown.statusCode, unknown.json().message], [404, "no tool named no.such_tool"]);
  });
});
