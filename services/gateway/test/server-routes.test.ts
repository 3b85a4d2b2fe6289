import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InjectOptions } from "fastify";
import { serverUrlPolicy } from "@switchyard/config";
import { buildApp } from "../src/app.js";
import type { AppOptions } from "../src/app.js";
import { apiKeyAuthenticator, localAuthenticator } from "../src/shared/auth.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";

const KEY = "key-a-0123456789abcdef";
const ADMIN_KEY = "key-admin-0123456789abcdef";
const AS_USER = { authorization: `Bearer ${KEY}` };
const AS_ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

function setup(options: Partial<AppOptions> = {}) {
  const deps = new InMemoryGatewayDeps();
  const auth = apiKeyAuthenticator(new Map([[KEY, "tenant-a"], [ADMIN_KEY, "ops"]]), new Set([ADMIN_KEY]));
  return { deps, app: buildApp(deps, { bodyLimitBytes: 65536, maxMessageChars: 100, maxHistoryTurns: 3, auth, ...options }) };
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
    const res = await app.inject(request("POST", "/v1/servers", AS_ADMIN, { name: "weather", url: "https://weather.example.com/mcp" }));
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

  it("gateway - a URL that is not https, or names a private, link-local, loopback or metadata host, is a 400 naming url, and nothing is stored", async () => {
    const { deps, app } = setup();
    const refused: [string, RegExp][] = [
      ["http://tools.example.com/mcp", /^url must be https/],
      ["http://127.0.0.1:3001/mcp", /^url must be https/],
      ["https://127.0.0.1:3001/mcp", /^url names 127\.0\.0\.1, a loopback address; SERVER_URL_ALLOW may let it through$/],
      ["https://localhost/mcp", /a loopback address/],
      ["https://169.254.169.254/latest/meta-data/", /a cloud metadata address/],
      ["https://[fd00:ec2::254]/", /a cloud metadata address/],
      ["https://metadata.google.internal/computeMetadata/v1/", /a cloud metadata service/],
      ["https://169.254.1.1/mcp", /a link-local address/],
      ["https://[fe80::1]/mcp", /a link-local address/],
      ["https://10.0.0.8/mcp", /a private address/],
      ["https://172.20.1.1/mcp", /a private address/],
      ["https://192.168.0.10/mcp", /a private address/],
      ["https://100.64.1.1/mcp", /a private address/],
      ["https://[fc00::1]/mcp", /a private address/],
      ["https://0.0.0.0/mcp", /an unspecified address/],
      ["https://167772168/mcp", /names 10\.0\.0\.8, a private address/],
    ];
    for (const [url, reason] of refused) {
      const res = await app.inject(request("POST", "/v1/servers", AS_ADMIN, { name: "probe", url }));
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().field, "url", res.body);
      assert.match(res.json().message, reason, url);
    }
    assert.equal(deps.servers.size, 0);
  });

  it("gateway - SERVER_URL_ALLOW lets listed hosts through, http included; local mode may register http on loopback only", async () => {
    const allowed = setup({ serverUrls: serverUrlPolicy("127.0.0.1,10.0.0.0/8,tools.internal") });
    for (const [name, url] of [["a", "http://127.0.0.1:3001/mcp"], ["b", "https://10.2.3.4/mcp"], ["c", "http://tools.internal:8080/mcp"]]) {
      const res = await allowed.app.inject(request("POST", "/v1/servers", AS_ADMIN, { name, url }));
      assert.equal(res.statusCode, 202, `${url}: ${res.body}`);
    }
    assert.equal((await allowed.app.inject(request("POST", "/v1/servers", AS_ADMIN, { name: "d", url: "https://192.168.0.1/mcp" }))).statusCode, 400);

    const local = setup({ auth: localAuthenticator });
    for (const [name, url] of [["a", "http://127.0.0.1:3001/mcp"], ["b", "http://localhost:3001/mcp"], ["c", "http://[::1]:3001/mcp"]]) {
      const res = await local.app.inject(request("POST", "/v1/servers", {}, { name, url }));
      assert.equal(res.statusCode, 202, `${url}: ${res.body}`);
    }
    for (const url of ["http://tools.example.com/mcp", "http://10.0.0.1/mcp", "https://169.254.169.254/"]) {
      const res = await local.app.inject(request("POST", "/v1/servers", {}, { name: "z", url }));
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().field, "url");
    }
  });
});
