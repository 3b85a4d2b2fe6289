import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InjectOptions } from "fastify";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator } from "../src/auth.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";

const KEY = "key-a-0123456789abcdef";
const ADMIN_KEY = "key-admin-0123456789abcdef";
const AS_USER = { authorization: `Bearer ${KEY}` };
const AS_ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

function setup() {
  const deps = new InMemoryGatewayDeps();
  const auth = apiKeyAuthenticator(new Map([[KEY, "tenant-a"], [ADMIN_KEY, "ops"]]), new Set([ADMIN_KEY]));
  return { deps, app: buildApp(deps, { bodyLimitBytes: 65536, maxMessageChars: 100, maxHistoryTurns: 3, auth }) };
}

const request = (method: InjectOptions["method"], url: string, headers: Record<string, string>, body?: unknown): InjectOptions => ({
  method,
  url,
  headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
  ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
});

const REGISTRATION = {
  name: "filesystem",
  url: "https://tools.example.com/mcp",
  domains: ["files"],
  tenants: ["tenant-a"],
  trust: "review",
  headers: { Authorization: "Bearer downstream-secret" },
};

describe("gateway http - registered MCP servers", () => {
  it("gateway - an admin registers a server: 201 with its listed tools, the record stored with who and when, header values never answered", async () => {
    const { deps, app } = setup();
    const res = await app.inject(request("POST", "/v1/servers", AS_ADMIN, REGISTRATION));
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.server.name, "filesystem");
    assert.equal(body.server.trust, "REVIEW");
    assert.equal(body.server.registeredBy, "ops");
    assert.deepEqual(body.server.headers, { Authorization: "redacted" });
    assert.ok(body.tools.length > 0 && body.tools.every((t: { server: string }) => t.server === "filesystem"));
    assert.doesNotMatch(res.body, /downstream-secret/);
    const stored = deps.servers.get("filesystem");
    assert.equal(stored?.headers["Authorization"], "Bearer downstream-secret", "the executors get the real value");
    assert.ok(stored?.registeredAt);

    const listed = await app.inject(request("GET", "/v1/servers", AS_ADMIN));
    assert.deepEqual(listed.json().servers.map((s: { name: string; headers: object }) => [s.name, s.headers]), [["filesystem", { Authorization: "redacted" }]]);
    assert.equal((await app.inject(request("POST", "/v1/servers", AS_ADMIN, REGISTRATION))).statusCode, 409);
    assert.equal((await app.inject(request("DELETE", "/v1/servers/filesystem", AS_ADMIN))).statusCode, 204);
    assert.equal(deps.servers.size, 0);
    const again = await app.inject(request("DELETE", "/v1/servers/filesystem", AS_ADMIN));
    assert.equal(again.statusCode, 404);
  });

  it("gateway - a server none of whose tools is listed yet is accepted (202) with no tools", async () => {
    const { app } = setup();
    const res = await app.inject(request("POST", "/v1/servers", AS_ADMIN, { name: "weather", url: "http://127.0.0.1:9/mcp" }));
    assert.equal(res.statusCode, 202, res.body);
    assert.deepEqual([res.json().server.trust, res.json().tools], ["FIRST_USE", []]);
  });

  it("gateway - a key that is not an admin's is refused 403 on every server route, and nothing is stored", async () => {
    const { deps, app } = setup();
    for (const r of [
      request("POST", "/v1/servers", AS_USER, REGISTRATION),
      request("GET", "/v1/servers", AS_USER),
      request("DELETE", "/v1/servers/filesystem", AS_USER),
    ]) {
      const res = await app.inject(r);
      assert.equal(res.statusCode, 403, `${r.method} ${r.url}`);
      assert.match(res.json().message, /admin's API key \(ADMIN_API_KEYS\)/);
    }
    assert.equal(deps.servers.size, 0);
    assert.equal((await app.inject(request("GET", "/v1/servers", {}))).statusCode, 401);
  });

  it("gateway - a bad registration is a 400 naming the field", async () => {
    const { deps, app } = setup();
    const cases: [object, string][] = [
      [{ ...REGISTRATION, name: "file.system" }, "name"],
      [{ ...REGISTRATION, url: "ftp://example.com/mcp" }, "url"],
      [{ ...REGISTRATION, trust: "blind" }, "trust"],
      [{ ...REGISTRATION, tenants: ["no spaces"] }, "tenants/0"],
      [{ ...REGISTRATION, command: "rm" }, "command"],
      [{ url: REGISTRATION.url }, "name"],
    ];
    for (const [body, field] of cases) {
      const res = await app.inject(request("POST", "/v1/servers", AS_ADMIN, body));
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().field, field, res.body);
    }
    assert.equal(deps.servers.size, 0);
  });
});
