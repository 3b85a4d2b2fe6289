import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InjectOptions } from "fastify";
import { buildApp } from "../src/app.js";
import type { AppOptions } from "../src/app.js";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { GatewayError } from "../src/shared/deps.js";
import { InMemoryGatewayDeps, NEEDS_APPROVAL } from "./in-memory-deps.js";

const KEY_A = "key-a-0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef";
const LIMITS = { bodyLimitBytes: 4096, maxMessageChars: 100, maxHistoryTurns: 3 };
const AS_A = { authorization: `Bearer ${KEY_A}` };
const AS_B = { authorization: `Bearer ${KEY_B}` };

function setup(options: Partial<AppOptions> = {}) {
  const deps = new InMemoryGatewayDeps();
  const auth = apiKeyAuthenticator(new Map([[KEY_A, "tenant-a"], [KEY_B, "tenant-b"]]));
  return { deps, app: buildApp(deps, { ...LIMITS, auth, ...options }) };
}

const post = (url: string, body: unknown, headers: Record<string, string> = AS_A): InjectOptions => ({
  method: "POST",
  url,
  headers: { "content-type": "application/json", ...headers },
  payload: typeof body === "string" ? body : JSON.stringify(body),
});

describe("gateway http guard", () => {
  it("gateway - a missing API key is answered 401 with a Bearer challenge and a JSON error, before the body is read", async () => {
    const { deps, app } = setup();
    const res = await app.inject(post("/v1/packets", "{not json", {}));
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers["www-authenticate"], 'Bearer realm="switchyard"');
    assert.deepEqual(res.json(), { statusCode: 401, error: "Unauthorized", message: "an API key is required: Authorization: Bearer <key>" });
    assert.equal(deps.submitted.length, 0);
  });

  it("gateway - an invalid API key is answered 401 with error=invalid_token on every API route", async () => {
    const { app } = setup();
    const wrong = { authorization: `Bearer ${KEY_A}0` };
    const requests: InjectOptions[] = [
      post("/v1/packets", { message: "hi" }, wrong),
      { method: "GET", url: "/v1/packets/p-1", headers: wrong },
      post("/v1/packets/p-1/approve", {}, wrong),
      post("/v1/packets/p-1/deny", {}, wrong),
      post("/v1/packets/p-1/feedback", { correct: true }, wrong),
      post("/v1/route", { message: "hi" }, wrong),
      { method: "GET", url: "/v1/tools", headers: wrong },
      post("/v1/tools/filesystem.read_file/examples", { examples: ["x"] }, wrong),
    ];
    for (const request of requests) {
      const res = await app.inject(request);
      assert.equal(res.statusCode, 401, `${request.method} ${request.url}`);
      assert.equal(res.headers["www-authenticate"], 'Bearer realm="switchyard", error="invalid_token"');
      assert.equal(res.json().message, "the API key is not valid");
    }
  });

  it("gateway - probes, metrics and the API description stay open without a key", async () => {
    const { app } = setup();
    for (const url of ["/healthz", "/readyz", "/metrics", "/docs/json"]) {
      const res = await app.inject({ method: "GET", url });
      assert.equal(res.statusCode, 200, url);
    }
    const doc = (await app.inject({ method: "GET", url: "/docs/json" })).json();
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    assert.equal(doc.components.securitySchemes.apiKey.scheme, "bearer");
    assert.deepEqual(doc.paths["/healthz"].get.security, []);
  });

  it("gateway - the packet's tenant is the key's; a tenant field in the body is refused 400 naming it", async () => {
    const { deps, app } = setup();
    const ok = await app.inject(post("/v1/packets", { message: "hi" }));
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().header.tenant, "tenant-a");
    assert.equal(deps.submitted[0]?.tenant, "tenant-a");

    const smuggled = await app.inject(post("/v1/packets", { message: "hi", tenant: "tenant-b" }));
    assert.equal(smuggled.statusCode, 400);
    assert.equal(smuggled.json().field, "tenant");
    assert.equal(deps.submitted.length, 1);
  });

  it("gateway - tenant B cannot read, approve, deny or give feedback on tenant A's packet: 404 as if it did not exist", async () => {
    const { app } = setup();
    const waiting = (await app.inject(post("/v1/packets", { message: NEEDS_APPROVAL }))).json();
    const id = waiting.header.packetId as string;
    const unknown = await app.inject({ method: "GET", url: "/v1/packets/no-such-packet", headers: AS_B });
    const attempts: InjectOptions[] = [
      { method: "GET", url: `/v1/packets/${id}`, headers: AS_B },
      post(`/v1/packets/${id}/approve`, {}, AS_B),
      post(`/v1/packets/${id}/deny`, {}, AS_B),
      post(`/v1/packets/${id}/feedback`, { correct: false }, AS_B),
    ];
    for (const attempt of attempts) {
      const res = await app.inject(attempt);
      assert.equal(res.statusCode, 404, `${attempt.method} ${attempt.url}`);
      assert.equal(res.json().error, unknown.json().error);
    }
    const own = await app.inject({ method: "GET", url: `/v1/packets/${id}`, headers: AS_A });
    assert.equal(own.json().state, "AWAITING_APPROVAL", "the owner still finds it, untouched");
    assert.equal((await app.inject(post(`/v1/packets/${id}/deny`, {}, AS_A))).statusCode, 200);
  });

  it("gateway - a tenant over its rate limit is answered 429 with Retry-After; another tenant is not held back", async () => {
    const { app } = setup({ rateLimit: { max: 2, windowMs: 60_000 } });
    for (let i = 0; i < 2; i++) assert.equal((await app.inject({ method: "GET", url: "/v1/tools", headers: AS_A })).statusCode, 200);
    const limited = await app.inject({ method: "GET", url: "/v1/tools", headers: AS_A });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers["retry-after"]) > 0, `retry-after ${limited.headers["retry-after"]}`);
    assert.equal(limited.json().statusCode, 429);
    assert.match(limited.json().message, /rate limit/i);
    assert.equal((await app.inject({ method: "GET", url: "/v1/tools", headers: AS_B })).statusCode, 200);
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200, "probes are not limited");
  });

  it("gateway - too many packets in flight is 429 and NATS away is 503, both with Retry-After", async () => {
    const { deps, app } = setup();
    for (const [thrown, status] of [
      [new GatewayError("limited", "3 packets of this tenant are in flight"), 429],
      [new GatewayError("unavailable", "NATS is unreachable"), 503],
    ] as const) {
      deps.failure = thrown;
      const res = await app.inject(post("/v1/route", { message: "hi" }));
      assert.equal(res.statusCode, status);
      assert.equal(res.headers["retry-after"], "2");
      assert.equal(res.json().message, thrown.message);
    }
  });

  it("gateway - an oversize body is 413; a long message and a long history are 400 naming the field", async () => {
    const { app } = setup();
    const huge = await app.inject(post("/v1/packets", { message: "x".repeat(LIMITS.bodyLimitBytes) }));
    assert.equal(huge.statusCode, 413);
    const long = await app.inject(post("/v1/packets", { message: "x".repeat(LIMITS.maxMessageChars + 1) }));
    assert.equal(long.statusCode, 400);
    assert.equal(long.json().field, "message");
    const history = Array.from({ length: LIMITS.maxHistoryTurns + 1 }, () => ({ role: "user", content: "a" }));
    const longHistory = await app.inject(post("/v1/packets", { message: "hi", history }));
    assert.equal(longHistory.statusCode, 400);
    assert.equal(longHistory.json().field, "history");
  });

  it("gateway - a packet id that could not name a packet is 400 naming packetId", async () => {
    const { app } = setup();
    const res = await app.inject({ method: "GET", url: "/v1/packets/a.b", headers: AS_A });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().field, "packetId");
  });
});

describe("gateway http guard - DNS rebinding, on loopback", () => {
  it("gateway - on loopback, a Host that is not this machine's is refused 403 everywhere, /mcp with a JSON-RPC error", async () => {
    const { app, deps } = setup({ loopbackOnly: true });
    const evil = { ...AS_A, host: "evil.example.com", origin: "http://evil.example.com" };
    const packet = await app.inject(post("/v1/packets", { message: "read notes/todo.md" }, evil));
    assert.equal(packet.statusCode, 403);
    assert.match(packet.json().message, /Host evil\.example\.com is not this machine's/);
    assert.equal(deps.submitted.length, 0, "nothing reached the fleet");
    const mcp = await app.inject(post("/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, evil));
    assert.equal(mcp.statusCode, 403);
    assert.equal(mcp.json().error.code, -32000);
    for (const host of ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "localhost"]) {
      const ok = await app.inject(post("/v1/packets", { message: "read notes/todo.md" }, { ...AS_A, host }));
      assert.equal(ok.statusCode, 200, host);
    }
    const open = await setup().app.inject(post("/v1/packets", { message: "read notes/todo.md" }, evil));
    assert.equal(open.statusCode, 200, "a gateway on another address answers any name (its keys guard it)");
  });
});
