import { execFile, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import assert from "node:assert/strict";
import fc from "fast-check";
import OpenAI from "openai";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const KEY = "fuzz-key-0123456789abcdef0123";
const AUTH = { authorization: `Bearer ${KEY}` };

/** Every API route; `:id` and `:name` are filled with generated path segments. */
const ROUTES = [
  ["POST", "/v1/packets"],
  ["GET", "/v1/packets/:id"],
  ["POST", "/v1/packets/:id/approve"],
  ["POST", "/v1/packets/:id/deny"],
  ["POST", "/v1/packets/:id/feedback"],
  ["POST", "/v1/route"],
  ["GET", "/v1/tools"],
  ["POST", "/v1/tools/:name/examples"],
  ["GET", "/v1/tools/:name/examples"],
  ["DELETE", "/v1/tools/:name/examples/:id"],
] as const;

/** The fields the API knows, plus one it refuses (tenant) and any other name. */
const FIELDS = ["message", "sessionId", "history", "tools", "pools", "domains", "wait", "topK", "correct", "tool", "examples", "callHash", "reason", "shared", "tenant"];

const MB = 1024 * 1024;
/** The gateway's default BODY_LIMIT_BYTES. */
const BODY_LIMIT = MB;
const run = promisify(execFile);

/** A JSON body of `bytes` bytes or a little more, two bytes a character: over the limit for anything from 1 MB. */
function jsonBodyOf(bytes: number): Buffer {
  return Buffer.from(JSON.stringify({ message: "é".repeat(Math.ceil(bytes / 2)) }));
}

/** A Python with requests, if there is one (.ci/run installs python3-requests when none has it). */
const python = ["python3", "/usr/bin/python3"].find((path) => spawnSync(path, ["-c", "import requests"], { stdio: "ignore" }).status === 0);

const json = fc.jsonValue({ maxDepth: 4 });
/** A value of any type, now and then a huge one. */
const anyValue = fc.oneof(
  { weight: 6, arbitrary: json },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 600_000 }).map((n) => "é".repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => Array.from({ length: n }, () => ({ role: "user", content: "a" }))) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1_000 }).map((n) => Array.from({ length: n }, (_, i) => `tool-${i}`)) },
);
const fieldName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FIELDS) }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) });

/** Bodies as the raw bytes sent: JSON of every shape, deep nesting, invalid UTF-8, not JSON at all, or none. */
const body = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fieldName, anyValue, { maxKeys: 6 }).map((value) => Buffer.from(JSON.stringify(value))) },
  { weight: 2, arbitrary: json.map((value) => Buffer.from(JSON.stringify(value))) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(["[", "]"], ['{"message":', "}"]))
      .map(([depth, [open, close]]) => Buffer.from(`${open.repeat(depth)}"x"${close.repeat(depth)}`)),
  },
  {
    weight: 2,
    // Invalid UTF-8 inside a JSON string, or raw bytes.
    arbitrary: fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.concat([Buffer.from('{"message":"'), Buffer.from(bytes), Buffer.from('"}')])),
      fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
  // Over the body limit on purpose, up to 8 MB: the client is still sending when the gateway has its answer.
  { weight: 1, arbitrary: fc.integer({ min: BODY_LIMIT + 1, max: 8 * MB }).map(jsonBodyOf) },
);

/** Path segments: ordinary ids, unicode, dots, encoded slashes, broken percent-escapes, very long ones. */
const segment = fc.oneof(
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.constantFrom("..", ".", "%2e%2e", "a%2Fb", "%ZZ", "%", "%00", "x.y", "*", ">", "filesystem.read_file"),
  fc.integer({ min: 1, max: 10_000 }).map((n) => "a".repeat(n)),
);

const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  undefined,
);

const request = fc.record({
  route: fc.constantFrom(...ROUTES),
  param: segment,
  body,
  contentType,
  // Mostly the valid key, sometimes none or a strange header.
  authorization: fc.oneof(
    { weight: 8, arbitrary: fc.constant(AUTH.authorization) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.string({ maxLength: 100 }).map((s) => `Bearer ${s.replace(/[\r\n\0]/g, "")}`) },
  ),
});

describe("fleet fuzz - the HTTP API under property-based bad input", { skip }, () => {
  let t: TestFleet;

  before(async () => {
    t = await startTestFleet({
      // Limits off so that every generated request reaches validation; a short wait so valid packets answer soon.
      // The fuzzed wrong keys would otherwise have this address throttled (fleet-security tests that).
      env: { API_KEYS: `${KEY}:fuzz`, RATE_LIMIT_MAX: "0", MAX_CONCURRENT_PACKETS: "0", AUTH_FAILURE_LIMIT: "0", WAIT_TIMEOUT_MS: "2000" },
    });
  });

  after(async () => {
    await t?.close();
  });

  /** A file holding an `mb` MB JSON body, for the clients that send files. */
  const bodyFile = (mb: number): string => {
    const file = join(t.dataDir, `${mb}mb.json`);
    writeFileSync(file, jsonBodyOf(mb * MB));
    return file;
  };

  it("fleet fuzz - wrong types, huge fields, deep nesting, invalid UTF-8 and unknown fields get 4xx (2xx when valid), never 5xx", async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ route, param, body: bytes, contentType: type, authorization }) => {
        const method = route[0];
        const path = route[1].replace(/:id|:name/, param);
        const headers: Record<string, string> = {};
        if (type) headers["content-type"] = type;
        if (authorization !== undefined) headers["authorization"] = authorization;
        const response = await fetch(`${t.url}${path}`, {
          method,
          headers,
          ...(method === "POST" && bytes ? { body: bytes } : {}),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        assert.ok(response.status >= 200 && response.status < 500, `${method} ${path.slice(0, 200)} → ${response.status} ${text.slice(0, 300)}`);
        if (response.status >= 400) {
          const error = JSON.parse(text) as { statusCode: number; message: string };
          assert.equal(error.statusCode, response.status, "errors are the API's JSON error");
          assert.equal(typeof error.message, "string");
        }
      }),
      { numRuns: 1000 },
    );
    assert.equal(t.fleet.processes.get("gateway")?.child.exitCode, null, "the gateway is still running");
    // The generators reach past the door: some requests were valid, most were refused for what they carried.
    assert.ok((statuses.get(400) ?? 0) > 0, JSON.stringify([...statuses]));
    assert.ok((statuses.get(413) ?? 0) > 0, `oversized bodies were sent and refused: ${JSON.stringify([...statuses])}`);
  });

  it("fleet fuzz - an oversized body gets its 413 through Node's fetch, the openai client and curl", async () => {
    // No retries: a broken connection must show as one, not be retried into a pass.
    const openai = new OpenAI({ baseURL: t.url, apiKey: KEY, maxRetries: 0 });
    for (const mb of [1, 2, 8]) {
      const bytes = jsonBodyOf(mb * MB);
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await fetch(`${t.url}/v1/packets`, { method: "POST", headers: { "content-type": "application/json", ...AUTH }, body: bytes });
        assert.equal(response.status, 413, `fetch, ${mb} MB`);
        assert.equal(((await response.json()) as { statusCode: number }).statusCode, 413);
      }
      await assert.rejects(openai.post("/v1/packets", { body: JSON.parse(bytes.toString()) }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 413, `openai, ${mb} MB: ${String(error)}`);
        return true;
      });
      const curl = await run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "content-type: application/json", "-H", `authorization: ${AUTH.authorization}`, "--data-binary", `@${bodyFile(mb)}`, `${t.url}/v1/packets`]);
      assert.equal(curl.stdout, "413", `curl, ${mb} MB`);
    }
    // Refused before the body is read: no key (401), not JSON (415); the client still gets the answer.
    const noKey = await fetch(`${t.url}/v1/packets`, { method: "POST", headers: { "content-type": "application/json" }, body: jsonBodyOf(8 * MB) });
    assert.equal(noKey.status, 401);
    await noKey.arrayBuffer();
    const text = await fetch(`${t.url}/v1/packets`, { method: "POST", headers: { "content-type": "text/plain", ...AUTH }, body: jsonBodyOf(8 * MB) });
    assert.equal(text.status, 415);
    await text.arrayBuffer();
  });

  it("fleet fuzz - an oversized body gets its 413 through Python requests", { skip: python ? false : "no python3 with requests (apt-get install python3-requests)" }, async () => {
    const script = "import requests, sys\nwith open(sys.argv[2], 'rb') as body:\n    print(requests.post(sys.argv[1], data=body, headers={'content-type': 'application/json', 'authorization': sys.argv[3]}).status_code)";
    for (const mb of [1, 2, 8]) {
      const requests = await run(python!, ["-c", script, `${t.url}/v1/packets`, bodyFile(mb), AUTH.authorization]);
      assert.equal(requests.stdout.trim(), "413", `requests, ${mb} MB`);
    }
  });

  it("fleet fuzz - afterwards the fleet still completes a normal packet", async () => {
    for (const service of t.fleet.processes.values()) assert.equal(service.child.exitCode, null, `${service.name} still runs`);
    const done = await t.post("/v1/packets", { message: "list the files in notes" }, AUTH);
    assert.ok(done.status === 200 || done.status === 202, done.text);
    // 202 when the packet outlasts the short WAIT_TIMEOUT_MS on a busy machine: then it is polled.
    const id = (done.json.header?.packetId ?? done.json.packetId) as string;
    const finished = await eventually(
      async () => {
        const { json: packet } = await t.get(`/v1/packets/${id}`, AUTH);
        return packet?.state === "COMPLETED" || packet?.state === "FAILED" ? packet : undefined;
      },
      60_000,
      "the packet finished",
    );
    assert.equal(finished.state, "COMPLETED", finished.stateReason);
  });
});
