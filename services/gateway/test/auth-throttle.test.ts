import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { Router } from "@switchyard/packet";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator, localAuthenticator } from "../src/shared/auth.js";
import { peerAddress, throttleAuthFailures } from "../src/shared/auth-throttle.js";
import { buildGrpcServer } from "../src/doors/grpc/grpc-server.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";
import { serveGrpcInSuite } from "./test-servers.js";

const KEY = "key-a-0123456789abcdef";
const WRONG = (n: number) => `Bearer wrong-key-${String(n).padStart(16, "0")}`;
const LIMITS = { bodyLimitBytes: 65536, maxMessageChars: 100, maxHistoryTurns: 3 };
const keys = () => apiKeyAuthenticator(new Map([[KEY, "tenant-a"]]));

describe("auth throttle", () => {
  it("auth throttle - past the limit of wrong keys an address is refused, a right key included, until its window ends; other addresses are not", () => {
    let now = 1_000_000;
    const auth = throttleAuthFailures(keys(), { max: 3, windowMs: 60_000 }, () => now);
    for (let n = 0; n < 3; n++) assert.equal(auth.authenticate(WRONG(n), "203.0.113.7"), "invalid");
    assert.equal(auth.authenticate(WRONG(3), "203.0.113.7"), "throttled");
    assert.equal(auth.authenticate(`Bearer ${KEY}`, "203.0.113.7"), "throttled", "a right key would tell a right guess from a wrong one");
    assert.equal(auth.retryAfterSeconds?.("203.0.113.7"), 60);
    assert.equal(auth.authenticate(WRONG(4), "::ffff:203.0.113.7"), "throttled", "the same IPv4 address on a dual-stack socket");
    assert.deepEqual(auth.authenticate(`Bearer ${KEY}`, "203.0.113.8"), { tenant: "tenant-a", admin: false });
    assert.equal(auth.authenticate(WRONG(5), "203.0.113.8"), "invalid");
    assert.equal(auth.retryAfterSeconds?.("203.0.113.8"), 0);

    now += 59_500;
    assert.equal(auth.retryAfterSeconds?.("203.0.113.7"), 1);
    now += 500;
    assert.deepEqual(auth.authenticate(`Bearer ${KEY}`, "203.0.113.7"), { tenant: "tenant-a", admin: false }, "the window has ended");
  });

  it("auth throttle - a right key does not reset the count, a missing key does not add to it; local mode and a 0 limit are left as they are", () => {
    const auth = throttleAuthFailures(keys(), { max: 2, windowMs: 60_000 });
    assert.equal(auth.authenticate(WRONG(0), "198.51.100.1"), "invalid");
    assert.equal(typeof auth.authenticate(`Bearer ${KEY}`, "198.51.100.1"), "object");
    for (let n = 0; n < 10; n++) assert.equal(auth.authenticate(undefined, "198.51.100.1"), "missing");
    assert.equal(auth.authenticate(WRONG(1), "198.51.100.1"), "invalid");
    assert.equal(auth.authenticate(WRONG(2), "198.51.100.1"), "throttled");

    assert.equal(throttleAuthFailures(localAuthenticator, { max: 2, windowMs: 1 }), localAuthenticator);
    const unlimited = keys();
    assert.equal(throttleAuthFailures(unlimited, { max: 0, windowMs: 1 }), unlimited);
  });

  it("auth throttle - a gRPC peer's address is its name without the port", () => {
    assert.equal(peerAddress("203.0.113.7:50123"), "203.0.113.7");
    assert.equal(peerAddress("::1:50123"), "::1");
    assert.equal(peerAddress("2001:db8::5:443"), "2001:db8::5");
  });

  it("auth throttle - 300 wrong keys in a row over HTTP: 401 up to the limit, then 429 with Retry-After on every door; a right key from another address still works", async () => {
    const auth = throttleAuthFailures(keys(), { max: 20, windowMs: 60_000 });
    const app = buildApp(new InMemoryGatewayDeps(), { ...LIMITS, auth });
    const attacker = "192.0.2.66";
    const statuses = new Map<number, number>();
    for (let n = 0; n < 300; n++) {
      const res = await app.inject({ method: "GET", url: "/v1/tools", headers: { authorization: WRONG(n) }, remoteAddress: attacker });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      if (res.statusCode === 429) {
        assert.equal(res.headers["retry-after"], "60");
        assert.deepEqual(res.json(), { statusCode: 429, error: "Too Many Requests", message: "too many wrong API keys from this address; try again later" });
      }
    }
    assert.deepEqual([...statuses], [[401, 20], [429, 280]]);

    const json = { "content-type": "application/json", authorization: WRONG(300) };
    const mcp = await app.inject({ method: "POST", url: "/mcp", headers: { ...json, accept: "application/json, text/event-stream" }, payload: "{}", remoteAddress: attacker });
    assert.equal(mcp.statusCode, 429, mcp.body);
    assert.ok(mcp.headers["retry-after"]);
    const chat = await app.inject({ method: "POST", url: "/v1/chat/completions", headers: json, payload: "{}", remoteAddress: attacker });
    assert.equal(chat.statusCode, 429, chat.body);
    const right = await app.inject({ method: "GET", url: "/v1/tools", headers: { authorization: `Bearer ${KEY}` }, remoteAddress: attacker });
    assert.equal(right.statusCode, 429, "the attacker's address is refused even its right guess");

    const other = await app.inject({ method: "GET", url: "/v1/tools", headers: { authorization: `Bearer ${KEY}` }, remoteAddress: "192.0.2.67" });
    assert.equal(other.statusCode, 200, other.body);
    const probe = await app.inject({ method: "GET", url: "/healthz", remoteAddress: attacker });
    assert.notEqual(probe.statusCode, 429, "the probes are no API route");
    await app.close();
  });

  describe("over gRPC", () => {
    const auth = throttleAuthFailures(keys(), { max: 5, windowMs: 60_000 });
    const { server } = buildGrpcServer(new InMemoryGatewayDeps(), { ...LIMITS, auth });
    let client: grpc.Client & Record<string, (request: unknown, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null) => void) => void>;
    const served = serveGrpcInSuite<typeof client>(server);
    before(() => (client = served.client));

    const listTools = (authorization: string) =>
      new Promise<grpc.status>((resolve) => {
        const metadata = new grpc.Metadata();
        metadata.set("authorization", authorization);
        client["listTools"]!(create(Router.method.listTools.input as DescMessage), metadata, (error) => resolve(error?.code ?? grpc.status.OK));
      });

    it("auth throttle - gRPC: UNAUTHENTICATED up to the limit, then RESOURCE_EXHAUSTED for the address, a right key included", async () => {
      const codes: grpc.status[] = [];
      for (let n = 0; n < 8; n++) codes.push(await listTools(WRONG(n)));
      assert.deepEqual(codes, [...Array<grpc.status>(5).fill(grpc.status.UNAUTHENTICATED), ...Array<grpc.status>(3).fill(grpc.status.RESOURCE_EXHAUSTED)]);
      assert.equal(await listTools(`Bearer ${KEY}`), grpc.status.RESOURCE_EXHAUSTED);
      // The HTTP door shares the count: the same address is refused there too.
      const app = buildApp(new InMemoryGatewayDeps(), { ...LIMITS, auth });
      const res = await app.inject({ method: "GET", url: "/v1/tools", headers: { authorization: `Bearer ${KEY}` }, remoteAddress: "127.0.0.1" });
      assert.equal(res.statusCode, 429);
      await app.close();
    });
  });
});
