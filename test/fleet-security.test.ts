import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { startFleet } from "@switchyard/fleet";
import { createRouterClient } from "@switchyard/grpc";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { Reply, TestFleet } from "./harness.js";

const skip = fleetSkipReason();

/** One key per tenant; "limited" and "busy" have their own so their limits do not hold the others back. */
const KEYS = {
  a: "tenant-a-key-0123456789abcdef",
  b: "tenant-b-key-0123456789abcdef",
  limited: "limited-key-0123456789abcdef",
  busy: "busy-key-0123456789abcdef0123",
  ops: "ops-key-0123456789abcdef012345",
};
const TENANTS = { a: "tenant-a", b: "tenant-b", limited: "limited", busy: "busy", ops: "ops" };
const RATE_LIMIT_MAX = 100;
const MAX_CONCURRENT_PACKETS = 2;
const BODY_LIMIT_BYTES = 65536;
const MAX_MESSAGE_CHARS = 32768;
const AUTH_FAILURE_LIMIT = 20;

const as = (who: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[who]}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("fleet security - API keys for two tenants, limits on", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet({
      env: {
        API_KEYS: Object.entries(KEYS)
          .map(([who, key]) => `${key}:${TENANTS[who as keyof typeof KEYS]}`)
          .join(","),
        RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
        MAX_CONCURRENT_PACKETS: String(MAX_CONCURRENT_PACKETS),
        BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
        MAX_MESSAGE_CHARS: String(MAX_MESSAGE_CHARS),
        // A short window, so the address the tests share is served again soon after the throttle test.
        AUTH_FAILURE_LIMIT: String(AUTH_FAILURE_LIMIT),
        AUTH_FAILURE_WINDOW_MS: "3000",
      },
      serviceEnv: { reviewer: { ALLOW_WRITE_TOOLS: "true" } },
    });
  });

  after(async () => {
    await t?.close();
  });

  it("fleet security - a missing API key is answered 401 with a Bearer challenge", async () => {
    const res = await t.post("/v1/packets", { message: "list the files in notes" });
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
    assert.equal(res.json.statusCode, 401);
    assert.match(res.json.message, /API key is required/);
    assert.equal((await t.get("/v1/tools")).status, 401);
  });

  it("fleet security - an invalid API key is answered 401 with error=invalid_token", async () => {
    const res = await t.post("/v1/packets", { message: "list the files in notes" }, { authorization: `Bearer ${KEYS.a}x` });
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    assert.match(res.json.message, /not valid/);
  });

  it("fleet security - probes and metrics answer without a key", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics"]) assert.equal((await t.get(path)).status, 200, path);
  });

  it("fleet security - without API keys, outside local mode, the gateway refuses to start and says why", async () => {
    const lines: string[] = [];
    await assert.rejects(
      // API_KEYS set but empty: not local mode (the fleet's default), and no key either.
      startFleet({ natsUrl: t.nats.url, services: ["gateway"], env: { API_KEYS: "", HTTP_PORT: "0", GRPC_PORT: "0" }, onLog: (_s, _r, line) => lines.push(line) }),
      /gateway exited before it was ready \(code 1/,
    );
    assert.ok(lines.some((line) => /API_KEYS: no API keys/.test(line)), lines.join("\n"));
  });

  it("fleet security - local mode on a network address is refused in one line, unless ALLOW_UNAUTHENTICATED_REMOTE, and then it warns", async () => {
    const lines: string[] = [];
    const open = { AUTH: "none", HTTP_HOST: "0.0.0.0", HTTP_PORT: "0", GRPC_PORT: "0" };
    await assert.rejects(
      startFleet({ natsUrl: t.nats.url, services: ["gateway"], env: open, onLog: (_s, _r, line) => lines.push(line) }),
      /gateway exited before it was ready \(code 1/,
    );
    assert.deepEqual(lines.length, 1, lines.join("\n"));
    assert.match(lines[0]!, /^gateway: HTTP_HOST: .*not loopback.*ALLOW_UNAUTHENTICATED_REMOTE=true/);

    const allowed = await startFleet({ natsUrl: t.nats.url, services: ["gateway"], env: { ...open, ALLOW_UNAUTHENTICATED_REMOTE: "true" } });
    try {
      assert.match(String(allowed.processes.get("gateway")!.ready["warning"]), /without a key/);
    } finally {
      await allowed.stop();
    }
  });

  it("fleet security - gRPC without a key is UNAUTHENTICATED", async () => {
    const client = createRouterClient(`127.0.0.1:${t.fleet.processes.get("gateway")!.ready["grpcPort"]}`);
    try {
      await assert.rejects(client.submitPacket({ message: "list the files in notes" }), (error: grpc.ServiceError) => {
        assert.equal(error.code, grpc.status.UNAUTHENTICATED, error.details);
        return true;
      });
    } finally {
      client.close();
    }
  });

  it("fleet security - 300 wrong keys in a row are throttled on every door (429, RESOURCE_EXHAUSTED); a right key from another address is served", async () => {
    const statuses: number[] = [];
    for (let n = 0; n < 300; n++) statuses.push((await t.get("/v1/tools", { authorization: `Bearer wrong-key-${n}-0123456789abcdef` })).status);
    const firstThrottled = statuses.indexOf(429);
    assert.ok(firstThrottled > 0 && firstThrottled <= AUTH_FAILURE_LIMIT, `the first 429 came after ${firstThrottled} 401s`);
    assert.deepEqual(new Set(statuses.slice(0, firstThrottled)), new Set([401]));
    assert.deepEqual(new Set(statuses.slice(firstThrottled)), new Set([429]));

    const throttled = await t.get("/v1/tools", as("a"));
    assert.equal(throttled.status, 429, "a right key from the throttled address too");
    const retryAfter = Number(throttled.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 3, `Retry-After: ${retryAfter}`);
    for (const path of ["/mcp", "/v1/chat/completions"]) assert.equal((await t.post(path, {}, as("a"))).status, 429, path);
    const client = createRouterClient(`127.0.0.1:${t.fleet.processes.get("gateway")!.ready["grpcPort"]}`);
    try {
      await assert.rejects(client.listTools({}), (error: grpc.ServiceError) => {
        assert.equal(error.code, grpc.status.RESOURCE_EXHAUSTED, error.details);
        return true;
      });
    } finally {
      client.close();
    }

    // Another address on loopback (127.0.0.2, Linux routes all of 127/8 to lo): served.
    const other = await new Promise<number>((resolve, reject) => {
      const url = new URL("/v1/tools", t.url);
      request(url, { headers: as("a"), localAddress: "127.0.0.2" }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on("error", reject).end();
    });
    assert.equal(other, 200);
    await sleep(retryAfter * 1000);
    assert.equal((await t.get("/v1/tools", as("a"))).status, 200, "served again once the window ended");
  });

  it("fleet security - with a key the packet completes and carries the key's tenant; a tenant in the body is refused 400", async () => {
    const done = await t.post("/v1/packets", { message: "list the files in notes" }, as("a"));
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.state, "COMPLETED");
    assert.equal(done.json.header.tenant, TENANTS.a);

    const smuggled = await t.post("/v1/packets", { message: "list the files in notes", tenant: TENANTS.b }, as("a"));
    assert.equal(smuggled.status, 400);
    assert.equal(smuggled.json.field, "tenant");
  });

  it("fleet security - tenant B cannot read, approve, deny or give feedback on tenant A's packet (404)", async () => {
    const waiting = await t.post("/v1/packets", { message: "write 'mine' to the file notes/tenant-a.md" }, as("a"));
    assert.equal(waiting.json.state, "AWAITING_APPROVAL", waiting.text);
    const id = waiting.json.header.packetId as string;

    const attempts: [string, () => Promise<Reply>][] = [
      ["read", () => t.get(`/v1/packets/${id}`, as("b"))],
      ["approve", () => t.post(`/v1/packets/${id}/approve`, {}, as("b"))],
      ["deny", () => t.post(`/v1/packets/${id}/deny`, { reason: "not yours" }, as("b"))],
      ["feedback", () => t.post(`/v1/packets/${id}/feedback`, { correct: false }, as("b"))],
    ];
    const unknown = await t.get("/v1/packets/no-such-packet", as("b"));
    for (const [what, attempt] of attempts) {
      const res = await attempt();
      assert.equal(res.status, 404, `${what}: ${res.text}`);
      assert.equal(res.json.error, unknown.json.error, `${what} says no more than for an unknown packet`);
    }

    const own = await t.get(`/v1/packets/${id}`, as("a"));
    assert.equal(own.json.state, "AWAITING_APPROVAL", "B's attempts changed nothing");
    assert.equal(existsSync(join(t.workspace, "notes/tenant-a.md")), false, "B's approval ran nothing");
    const denied = await t.post(`/v1/packets/${id}/deny`, {}, as("a"));
    assert.equal(denied.status, 200);
  });

  it("fleet security - a tenant over its rate limit is answered 429 with Retry-After; others are served", async () => {
    let limited: Reply | undefined;
    for (let i = 0; i <= RATE_LIMIT_MAX && !limited; i++) {
      const res = await t.get("/v1/tools", as("limited"));
      if (res.status === 429) limited = res;
      else assert.equal(res.status, 200, res.text);
    }
    assert.ok(limited, `no 429 after ${RATE_LIMIT_MAX + 1} requests`);
    assert.ok(Number(limited.headers.get("retry-after")) > 0, `Retry-After: ${limited.headers.get("retry-after")}`);
    assert.equal(limited.json.statusCode, 429);
    assert.equal((await t.get("/v1/tools", as("b"))).status, 200);
  });

  it("fleet security - a tenant with MAX_CONCURRENT_PACKETS in flight is answered 429; a place frees when one finishes", async () => {
    // With intent down the packets wait in the stream: in flight for as long as the test needs.
    await t.fleet.kill("intent");
    const accepted: string[] = [];
    for (let i = 0; i < MAX_CONCURRENT_PACKETS; i++) {
      const res = await t.post("/v1/packets", { message: "list the files in notes", wait: false }, as("busy"));
      assert.equal(res.status, 202, res.text);
      accepted.push(res.json.packetId);
    }
    const over = await t.post("/v1/packets", { message: "list the files in notes", wait: false }, as("busy"));
    assert.equal(over.status, 429, over.text);
    assert.ok(Number(over.headers.get("retry-after")) > 0);
    assert.match(over.json.message, /MAX_CONCURRENT_PACKETS/);
    const other = await t.post("/v1/packets", { message: "list the files in notes", wait: false }, as("b"));
    assert.equal(other.status, 202, "another tenant is not held back");

    await t.fleet.start("intent");
    for (const id of accepted) {
      await eventually(async () => ((await t.get(`/v1/packets/${id}`, as("busy"))).json?.state === "COMPLETED" ? true : undefined), 60_000, `${id} completed`);
    }
    const again = await eventually(
      async () => {
        const res = await t.post("/v1/packets", { message: "list the files in notes" }, as("busy"));
        return res.status === 200 ? res : undefined;
      },
      60_000,
      "a packet accepted once the others finished",
    );
    assert.equal(again.json.state, "COMPLETED");
  });

  it("fleet security - an oversize body is 413; a message over MAX_MESSAGE_CHARS is 400 naming message", async () => {
    const huge = await t.post("/v1/packets", { message: "x".repeat(BODY_LIMIT_BYTES) }, as("a"));
    assert.equal(huge.status, 413);
    const long = await t.post("/v1/packets", { message: "x".repeat(MAX_MESSAGE_CHARS + 1) }, as("a"));
    assert.equal(long.status, 400);
    assert.equal(long.json.field, "message");
  });

  it("fleet security - with nats-server down the gateway answers 503 with Retry-After, not a hang, and serves again after", async () => {
    await t.nats.kill();
    const down = await fetch(`${t.url}/v1/packets`, {
      method: "POST",
      headers: { "content-type": "application/json", ...as("ops") },
      body: JSON.stringify({ message: "list the files in notes" }),
      // A hang (a publish waiting on a dead connection) fails here rather than stalling the suite.
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(down.status, 503, await down.clone().text());
    assert.ok(Number(down.headers.get("retry-after")) > 0);
    assert.match(((await down.json()) as { message: string }).message, /NATS/);
    assert.equal((await t.get("/readyz")).status, 503, "not ready while NATS is away");

    await t.nats.restart();
    await eventually(async () => ((await t.get("/readyz")).status === 200 ? true : undefined), 60_000, "the gateway ready again");
    const served = await eventually(
      async () => {
        const res = await t.post("/v1/packets", { message: "list the files in notes" }, as("ops"));
        if (res.status === 200) return res;
        assert.equal(res.status, 503, `only 503 while the fleet reconnects: ${res.text}`);
        await sleep(500);
        return undefined;
      },
      60_000,
      "a packet served after nats-server came back",
    );
    assert.equal(served.json.state, "COMPLETED", served.text);
  });
});
