import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InjectOptions } from "fastify";
import { create } from "@bufbuild/protobuf";
import { RouteRequestSchema, RouteResponseSchema, Turn_Role } from "@switchyard/packet";
import { processMetrics } from "@switchyard/telemetry";
import { promSample } from "@switchyard/test-fixtures";
import { buildApp } from "../src/app.js";
import { localAuthenticator } from "../src/shared/auth.js";
import { GatewayError } from "../src/shared/deps.js";
import { messageJson } from "../src/shared/json.js";
import { CATALOG, InMemoryGatewayDeps, NEEDS_APPROVAL } from "./in-memory-deps.js";

const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth: localAuthenticator };

function setup() {
  const deps = new InMemoryGatewayDeps();
  const app = buildApp(deps, LIMITS);
  return { deps, app };
}

const json = (method: InjectOptions["method"], url: string, body: unknown): InjectOptions => ({
  method,
  url,
  headers: { "content-type": "application/json" },
  payload: JSON.stringify(body),
});

describe("gateway http - packets", () => {
  it("gateway http - POST /v1/packets returns the finished packet as proto3 JSON", async () => {
    const { deps, app } = setup();
    const res = await app.inject(
      json("POST", "/v1/packets", {
        message: "read ./README.md",
        sessionId: "s-1",
        history: [
          { role: "user", content: "hi" },
          { role: "ASSISTANT", content: "hello" },
        ],
        tools: ["filesystem.read_file"],
      }),
    );
    assert.equal(res.statusCode, 200);
    const packet = res.json();
    assert.equal(packet.state, "COMPLETED");
    assert.equal(packet.header.sessionId, "s-1");
    assert.equal(packet.content.originalPrompt, "read ./README.md");
    assert.deepEqual(packet.content.history, [
      { role: "USER", content: "hi" },
      { role: "ASSISTANT", content: "hello" },
    ]);
    assert.deepEqual(packet.content.scope.tools, ["filesystem.read_file"]);
    assert.equal(packet.stateReason, "no tool needed: in-memory deps run no stages");
    // Every field is present, defaults included, so clients need no defaults table.
    assert.equal(packet.toolRouting.reinjectionCount, 0);
    assert.equal(packet.toolRouting.dryRun, false);

    const [input] = deps.submitted;
    assert.equal(input?.wait, true, "wait defaults to true");
    assert.deepEqual(
      input?.history.map((t) => t.role),
      [Turn_Role.USER, Turn_Role.ASSISTANT],
    );
  });

  it("gateway http - wait=false answers 202 with the id and a Location the packet is found at", async () => {
    const { app } = setup();
    const res = await app.inject(json("POST", "/v1/packets", { message: "list files", wait: false }));
    assert.equal(res.statusCode, 202);
    const body = res.json();
    assert.equal(body.finished, false);
    assert.equal(typeof body.packetId, "string");
    assert.equal(res.headers.location, `/v1/packets/${body.packetId}`);

    const get = await app.inject({ method: "GET", url: res.headers.location });
    assert.equal(get.statusCode, 200);
    assert.equal(get.json().header.packetId, body.packetId);
    assert.equal(get.json().state, "DETECTING_INTENT");
  });

  it("gateway http - GET an unknown packet is 404 in the error shape", async () => {
    const { app } = setup();
    const res = await app.inject({ method: "GET", url: "/v1/packets/nope" });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { statusCode: 404, error: "Not Found", message: "packet nope not found" });
  });

  it("gateway http - approve resumes a waiting packet; approving again is 409; an unknown id is 404", async () => {
    const { app } = setup();
    const waiting = (await app.inject(json("POST", "/v1/packets", { message: NEEDS_APPROVAL }))).json();
    assert.equal(waiting.state, "AWAITING_APPROVAL");
    const id = waiting.header.packetId;

    const approved = await app.inject({ method: "POST", url: `/v1/packets/${id}/approve` });
    assert.equal(approved.statusCode, 200);
    assert.equal(approved.json().state, "COMPLETED");
    assert.equal(approved.json().toolRouting.executionStatus, "EXECUTED");

    const again = await app.inject({ method: "POST", url: `/v1/packets/${id}/approve` });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error, "Conflict");
    assert.match(again.json().message, /not AWAITING_APPROVAL/);

    const unknown = await app.inject({ method: "POST", url: "/v1/packets/nope/approve" });
    assert.equal(unknown.statusCode, 404);
  });

  it("gateway http - an approval names the call it approves: another call's hash is 409, a malformed one 400", async () => {
    const { app } = setup();
    const waiting = (await app.inject(json("POST", "/v1/packets", { message: NEEDS_APPROVAL }))).json();
    const id = waiting.header.packetId;
    const callHash = waiting.toolRouting.approval.callHash;
    assert.match(callHash, /^[0-9a-f]{64}$/);
    assert.ok(Date.parse(waiting.toolRouting.approval.expiresAt) > Date.now(), "the approval expires later");

    const other = await app.inject(json("POST", `/v1/packets/${id}/approve`, { callHash: "0".repeat(64) }));
    assert.equal(other.statusCode, 409);
    assert.match(other.json().message, /is not the call waiting for approval/);

    const malformed = await app.inject(json("POST", `/v1/packets/${id}/approve`, { callHash: "abc" }));
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().field, "callHash");

    const approved = await app.inject(json("POST", `/v1/packets/${id}/approve`, { callHash }));
    assert.equal(approved.statusCode, 200);
    assert.ok(approved.json().toolRouting.approval.grantedAt, "the grant is recorded on the packet");
  });

  it("gateway http - deny ends a waiting packet, with or without a body", async () => {
    const { app } = setup();
    for (const [request, reason] of [
      [(id: string) => json("POST", `/v1/packets/${id}/deny`, { reason: "not today" }), "denied by the user: filesystem.write_file not run (not today)"],
      [(id: string): InjectOptions => ({ method: "POST", url: `/v1/packets/${id}/deny` }), "denied by the user: filesystem.write_file not run"],
    ] as const) {
      const id = (await app.inject(json("POST", "/v1/packets", { message: NEEDS_APPROVAL }))).json().header.packetId;
      const res = await app.inject(request(id));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().toolRouting.executionStatus, "USER_DENIED");
      assert.equal(res.json().stateReason, reason);
      assert.equal((await app.inject(request(id))).statusCode, 409, "a denied packet cannot be denied again");
    }
    assert.equal((await app.inject(json("POST", "/v1/packets/nope/deny", {}))).statusCode, 404);
  });
});

describe("gateway http - route and tools", () => {
  it("gateway http - a route's JSON is its RouteResponse in the proto3 JSON mapping, tools made once or not", async () => {
    const { deps, app } = setup();
    deps.routeWarnings = ["the embedder failed; routed by keywords"];
    const body = { message: "read a file", topK: 3 };
    const answers = [await app.inject(json("POST", "/v1/route", body)), await app.inject(json("POST", "/v1/route", body))];
    const expected = messageJson(RouteResponseSchema, await deps.route(deps.routedTenants[0]!, create(RouteRequestSchema, body)));
    assert.equal((expected as { candidates: unknown[] }).candidates.length, 3);
    for (const res of answers) assert.deepEqual(res.json(), expected);
  });

  it("gateway http - POST /v1/route returns RouteResponse JSON and hands over topK and the allow-list", async () => {
    const { deps, app } = setup();
    const res = await app.inject(
      json("POST", "/v1/route", {
        message: "read a file",
        history: [{ role: "tool", content: "{}" }],
        topK: 2,
        tools: ["filesystem.read_file", "core.clarify"],
      }),
    );
    assert.equal(res.statusCode, 200);
    const { candidates } = res.json();
    assert.deepEqual(
      candidates.map((c: { tool: { name: string }; source: string }) => [c.tool.name, c.source]),
      [
        ["filesystem.read_file", "SEMANTIC"],
        ["core.clarify", "CORE"],
      ],
    );
    // Implicit defaults are emitted: a core tool's zero score and empty fields are there.
    assert.equal(candidates[1].score, 0);
    assert.deepEqual(candidates[0].tool.inputSchema.required, ["path"]);
    assert.equal(candidates[0].tool.sideEffect, "READ");
    assert.deepEqual(deps.routed[0], {
      message: "read a file",
      history: deps.routed[0]?.history,
      topK: 2,
      tools: ["filesystem.read_file", "core.clarify"],
      pools: [],
      domains: [],
    });
    assert.equal(deps.routed[0]?.history[0]?.role, Turn_Role.TOOL);
  });

  it("gateway http - route without topK asks for the router's default (0)", async () => {
    const { deps, app } = setup();
    const res = await app.inject(json("POST", "/v1/route", { message: "anything" }));
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().candidates.length, CATALOG.length);
    assert.equal(deps.routed[0]?.topK, 0);
    assert.deepEqual(deps.routed[0]?.tools, []);
    assert.deepEqual(res.json().warnings, [], "no fallback, no warnings (implicit defaults are emitted)");
  });

  it("gateway http - route passes the router's warnings through when it fell back", async () => {
    const { deps, app } = setup();
    deps.routeWarnings = ["hybrid search failed (embeddings request failed); routed by lexical search alone"];
    const res = await app.inject(json("POST", "/v1/route", { message: "read a file" }));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().warnings, deps.routeWarnings);
    assert.ok(res.json().candidates.length > 0);
  });

  it("gateway http - pools and domains reach the packet and the router", async () => {
    const { deps, app } = setup();
    const packet = (
      await app.inject(json("POST", "/v1/packets", { message: "read a file", pools: ["filesystem"], domains: ["files", "docs"] }))
    ).json();
    assert.deepEqual(packet.content.scope.pools, ["filesystem"]);
    assert.deepEqual(packet.content.scope.domains, ["files", "docs"]);
    assert.deepEqual([deps.submitted[0]?.pools, deps.submitted[0]?.domains], [["filesystem"], ["files", "docs"]]);

    await app.inject(json("POST", "/v1/route", { message: "read a file", pools: ["memory"], domains: ["memory"] }));
    assert.deepEqual([deps.routed[0]?.pools, deps.routed[0]?.domains], [["memory"], ["memory"]]);
  });

  it("gateway http - GET /v1/tools returns ListToolsResponse JSON", async () => {
    const { app } = setup();
    const res = await app.inject({ method: "GET", url: "/v1/tools" });
    assert.equal(res.statusCode, 200);
    const { tools } = res.json();
    assert.deepEqual(
      tools.map((t: { name: string }) => t.name),
      CATALOG.map((t) => t.name),
    );
    assert.equal(tools[1].sideEffect, "WRITE");
    assert.equal(tools[2].core, true);
    assert.deepEqual(tools[2].examples, []);
  });
});

describe("gateway http - learning", () => {
  it("gateway http - feedback on a packet answers FeedbackResponse JSON and hands over what was said", async () => {
    const { deps, app } = setup();
    const id = (await app.inject(json("POST", "/v1/packets", { message: "read notes/todo.md" }))).json().header.packetId;
    const res = await app.inject(json("POST", `/v1/packets/${id}/feedback`, { correct: false, tool: "filesystem.write_file" }));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      packetId: id,
      query: "read notes/todo.md",
      removedFrom: "filesystem.read_file",
      addedTo: "filesystem.write_file",
      removedExample: "",
    });
    assert.deepEqual(deps.feedbacks, [{ packetId: id, correct: false, tool: "filesystem.write_file" }]);

    const confirmed = await app.inject(json("POST", `/v1/packets/${id}/feedback`, { correct: true }));
    assert.equal(confirmed.json().removedFrom, "", "every field is emitted");
    assert.deepEqual(deps.feedbacks[1], { packetId: id, correct: true });
  });

  it("gateway http - feedback on an unknown packet or naming an unknown tool is 404", async () => {
    const { app } = setup();
    assert.equal((await app.inject(json("POST", "/v1/packets/nope/feedback", { correct: false }))).statusCode, 404);
    const id = (await app.inject(json("POST", "/v1/packets", { message: "hi" }))).json().header.packetId;
    const res = await app.inject(json("POST", `/v1/packets/${id}/feedback`, { correct: false, tool: "no.such_tool" }));
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().message, "no tool named no.such_tool");
  });

  it("gateway http - examples added to a tool answer AddExamplesResponse JSON", async () => {
    const { deps, app } = setup();
    const res = await app.inject(json("POST", "/v1/tools/filesystem.read_file/examples", { examples: ["show me my notes"] }));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { tool: "filesystem.read_file", added: 1, examples: ["show me my notes"] });
    assert.deepEqual(deps.added, [{ tool: "filesystem.read_file", examples: ["show me my notes"] }]);
    const unknown = await app.inject(json("POST", "/v1/tools/no.such_tool/examples", { examples: ["x"] }));
    assert.equal(unknown.statusCode, 404);
  });
});

describe("gateway http - probes", () => {
  it("gateway http - healthz is 200; readyz follows deps.isReady()", async () => {
    const { deps, app } = setup();
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
    assert.equal((await app.inject({ method: "GET", url: "/readyz" })).statusCode, 200);
    deps.ready = false;
    const notReady = await app.inject({ method: "GET", url: "/readyz" });
    assert.equal(notReady.statusCode, 503);
    assert.deepEqual(notReady.json(), { statusCode: 503, error: "Service Unavailable", message: "not ready" });
    assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200, "liveness ignores readiness");
  });

  it("gateway http - readyz stays 200 with a model down, and its body names it", async () => {
    const { deps, app } = setup();
    assert.deepEqual((await app.inject({ method: "GET", url: "/readyz" })).json(), { status: "ready" });
    deps.down = ["embeddings endpoint", "selection model"];
    const degraded = await app.inject({ method: "GET", url: "/readyz" });
    assert.equal(degraded.statusCode, 200);
    assert.deepEqual(degraded.json(), { status: "degraded", down: ["embeddings endpoint", "selection model"] });
  });

  it("gateway http - /metrics serves the process's metrics in Prometheus text format", async () => {
    const { app } = setup();
    processMetrics().modelCall("gateway-test-model", 0.25);
    const res = await app.inject({ method: "GET", url: "/metrics" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    for (const name of [
      "switchyard_stage_duration_seconds",
      "switchyard_packets_finished_total",
      "switchyard_selection_confidence",
      "switchyard_reinjection_rounds",
      "switchyard_consumer_pending_messages",
      "switchyard_consumer_ack_pending_messages",
      "switchyard_mcp_call_duration_seconds",
      "switchyard_mcp_call_errors_total",
      "switchyard_model_call_duration_seconds",
      "switchyard_model_call_errors_total",
    ]) {
      assert.match(res.body, new RegExp(`^# TYPE ${name} (histogram|counter|gauge)$`, "m"), name);
    }
    assert.equal(promSample(res.body, "switchyard_model_call_duration_seconds_sum", { model: "gateway-test-model" }), 0.25);
    assert.ok(promSample(res.body, "process_resident_memory_bytes") !== undefined, "Node's default metrics");
  });
});

interface BadInput {
  name: string;
  request: InjectOptions;
  status: number;
  field?: string;
  message?: RegExp;
}

const BAD_INPUTS: BadInput[] = [
  {
    name: "a body that is not JSON",
    request: { method: "POST", url: "/v1/packets", headers: { "content-type": "application/json" }, payload: "{message:" },
    status: 400,
    message: /not valid JSON/,
  },
  {
    name: "a non-JSON content type",
    request: { method: "POST", url: "/v1/packets", headers: { "content-type": "text/plain" }, payload: "hello" },
    status: 415,
  },
  {
    name: "a form body",
    request: {
      method: "POST",
      url: "/v1/route",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "message=hi",
    },
    status: 415,
  },
  {
    name: "an empty JSON body",
    request: { method: "POST", url: "/v1/packets", headers: { "content-type": "application/json" }, payload: "" },
    status: 400,
  },
  { name: "a JSON array", request: json("POST", "/v1/packets", ["hi"]), status: 400, message: /^body must be object$/ },
  { name: "a missing message", request: json("POST", "/v1/packets", {}), status: 400, field: "message", message: /^body\/message is required$/ },
  { name: "an empty message", request: json("POST", "/v1/packets", { message: "" }), status: 400, field: "message" },
  { name: "a message of the wrong type", request: json("POST", "/v1/packets", { message: 42 }), status: 400, field: "message", message: /^body\/message must be string$/ },
  {
    name: "a message over maxMessageChars",
    request: json("POST", "/v1/packets", { message: "x".repeat(LIMITS.maxMessageChars + 1) }),
    status: 400,
    field: "message",
    message: /more than 32768 characters/,
  },
  {
    name: "a 2 MB message (over the body limit)",
    request: json("POST", "/v1/packets", { message: "x".repeat(2 * 1024 * 1024) }),
    status: 413,
  },
  { name: "an unknown field", request: json("POST", "/v1/packets", { message: "hi", colour: "red" }), status: 400, field: "colour", message: /^body\/colour is not a known field$/ },
  {
    name: "an unknown field in a turn",
    request: json("POST", "/v1/packets", { message: "hi", history: [{ role: "user", content: "a", name: "bob" }] }),
    status: 400,
    field: "history/0/name",
  },
  {
    name: "an unknown role",
    request: json("POST", "/v1/packets", { message: "hi", history: [{ role: "robot", content: "a" }] }),
    status: 400,
    field: "history/0/role",
    message: /USER, ASSISTANT, SYSTEM, TOOL/,
  },
  { name: "history not an array", request: json("POST", "/v1/packets", { message: "hi", history: "earlier" }), status: 400, field: "history" },
  {
    name: "history over maxHistoryTurns",
    request: json("POST", "/v1/packets", {
      message: "hi",
      history: Array.from({ length: LIMITS.maxHistoryTurns + 1 }, () => ({ role: "user", content: "a" })),
    }),
    status: 400,
    field: "history",
    message: /more than 50 items/,
  },
  { name: "wait of the wrong type", request: json("POST", "/v1/packets", { message: "hi", wait: "yes" }), status: 400, field: "wait" },
  { name: "a tool name that is not a string", request: json("POST", "/v1/packets", { message: "hi", tools: [7] }), status: 400, field: "tools/0" },
  { name: "topK 0", request: json("POST", "/v1/route", { message: "hi", topK: 0 }), status: 400, field: "topK", message: />= 1/ },
  { name: "topK 51", request: json("POST", "/v1/route", { message: "hi", topK: 51 }), status: 400, field: "topK", message: /<= 50/ },
  { name: "a fractional topK", request: json("POST", "/v1/route", { message: "hi", topK: 2.5 }), status: 400, field: "topK" },
  { name: "topK as a string", request: json("POST", "/v1/route", { message: "hi", topK: "5" }), status: 400, field: "topK" },
  { name: "an empty pool name", request: json("POST", "/v1/packets", { message: "hi", pools: [""] }), status: 400, field: "pools/0" },
  { name: "domains not an array", request: json("POST", "/v1/route", { message: "hi", domains: "files" }), status: 400, field: "domains" },
  { name: "feedback without correct", request: json("POST", "/v1/packets/p/feedback", { tool: "a.b" }), status: 400, field: "correct", message: /^body\/correct is required$/ },
  { name: "feedback with correct as a string", request: json("POST", "/v1/packets/p/feedback", { correct: "no" }), status: 400, field: "correct" },
  { name: "feedback with an empty tool", request: json("POST", "/v1/packets/p/feedback", { correct: false, tool: "" }), status: 400, field: "tool" },
  { name: "feedback with an unknown field", request: json("POST", "/v1/packets/p/feedback", { correct: false, why: "x" }), status: 400, field: "why" },
  {
    name: "feedback without a body",
    request: { method: "POST", url: "/v1/packets/p/feedback", headers: { "content-type": "application/json" }, payload: "" },
    status: 400,
  },
  { name: "no examples", request: json("POST", "/v1/tools/a.b/examples", { examples: [] }), status: 400, field: "examples", message: /fewer than 1 items/ },
  { name: "examples missing", request: json("POST", "/v1/tools/a.b/examples", {}), status: 400, field: "examples" },
  { name: "a blank example", request: json("POST", "/v1/tools/a.b/examples", { examples: ["ok", "  "] }), status: 400, field: "examples/1" },
  { name: "an example that is not a string", request: json("POST", "/v1/tools/a.b/examples", { examples: [3] }), status: 400, field: "examples/0" },
  {
    name: "an example over 500 characters",
    request: json("POST", "/v1/tools/a.b/examples", { examples: ["x".repeat(501)] }),
    status: 400,
    field: "examples/0",
    message: /more than 500 characters/,
  },
  {
    name: "more than 50 examples at once",
    request: json("POST", "/v1/tools/a.b/examples", { examples: Array.from({ length: 51 }, (_, i) => `example ${i}`) }),
    status: 400,
    field: "examples",
    message: /more than 50 items/,
  },
  { name: "route without a message", request: json("POST", "/v1/route", { topK: 5 }), status: 400, field: "message" },
  { name: "a deny reason of the wrong type", request: json("POST", "/v1/packets/p/deny", { reason: 1 }), status: 400, field: "reason" },
  { name: "an unknown route", request: { method: "GET", url: "/v2/packets" }, status: 404 },
];

describe("gateway http - bad input", () => {
  for (const bad of BAD_INPUTS) {
    it(`gateway http - rejects ${bad.name} with ${bad.status}${bad.field ? ` naming ${bad.field}` : ""}`, async () => {
      const { deps, app } = setup();
      const res = await app.inject(bad.request);
      assert.equal(res.statusCode, bad.status, res.body);
      const body = res.json();
      assert.equal(body.statusCode, bad.status);
      assert.equal(typeof body.error, "string");
      assert.equal(typeof body.message, "string");
      assert.deepEqual(Object.keys(body).filter((k) => !["statusCode", "error", "message", "field"].includes(k)), []);
      assert.equal(body.field, bad.field);
      if (bad.message) assert.match(body.message, bad.message);
      assert.deepEqual(deps.submitted, [], "nothing reaches the fleet");
      assert.deepEqual(deps.routed, []);
      assert.deepEqual(deps.feedbacks, []);
      assert.deepEqual(deps.added, []);
    });
  }
});

describe("gateway http - errors from the fleet", () => {
  const cases = [
    { name: "unavailable", thrown: new GatewayError("unavailable", "no embedding-router answered"), status: 503, message: "no embedding-router answered" },
    { name: "invalid", thrown: new GatewayError("invalid", "unknown tool nope", "tools/0"), status: 400, message: "unknown tool nope", field: "tools/0" },
    { name: "not_found", thrown: new GatewayError("not_found", "gone"), status: 404, message: "gone" },
    { name: "conflict", thrown: new GatewayError("conflict", "busy"), status: 409, message: "busy" },
    { name: "an unexpected error", thrown: new Error("secret: db password in /etc/x"), status: 500, message: "internal error" },
  ];
  for (const c of cases) {
    it(`gateway http - ${c.name} from the deps is ${c.status}`, async () => {
      const { deps, app } = setup();
      deps.failure = c.thrown;
      for (const request of [json("POST", "/v1/route", { message: "hi" }), { method: "GET" as const, url: "/v1/tools" }]) {
        const res = await app.inject(request);
        assert.equal(res.statusCode, c.status);
        assert.deepEqual(res.json(), {
          statusCode: c.status,
          error: res.json().error,
          message: c.message,
          ...(c.field ? { field: c.field } : {}),
        });
        assert.doesNotMatch(res.body, /secret|at .*\.ts/, "no internals in the body");
      }
    });
  }
});

interface Operation {
  operationId?: string;
  responses?: Record<string, unknown>;
}

describe("gateway http - OpenAPI", () => {
  it("gateway http - /docs/json is an OpenAPI 3 document listing every route, with every $ref resolvable", async () => {
    const { app } = setup();
    const routes: { method: string; url: string }[] = [];
    app.addHook("onRoute", (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
      for (const method of methods) {
        if (method !== "HEAD" && !hidden && !route.url.startsWith("/docs")) routes.push({ method, url: route.url });
      }
    });
    const res = await app.inject({ method: "GET", url: "/docs/json" });
    assert.equal(res.statusCode, 200);
    const doc = res.json();

    assert.match(doc.openapi, /^3\.\d+\.\d+$/);
    assert.equal(typeof doc.info.title, "string");
    assert.equal(typeof doc.info.version, "string");

    const listed = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = routes.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, "{$1}")}`); // fastify ":id" is OpenAPI "{id}"
    assert.deepEqual([...listed].sort(), [...registered].sort());
    assert.deepEqual(
      [...listed].sort(),
      [
        "DELETE /console/session",
        "DELETE /v1/servers/{name}",
        "DELETE /v1/tools/{name}/examples/{id}",
        "GET /console/session",
        "GET /healthz",
        "GET /readyz",
        "GET /v1/fleet",
        "GET /v1/packets",
        "GET /v1/packets/events",
        "GET /v1/packets/{packetId}",
        "GET /v1/servers",
        "GET /v1/tools",
        "GET /v1/tools/{name}/examples",
        "POST /console/session",
        "POST /mcp",
        "POST /v1/calls",
        "POST /v1/chat/completions",
        "POST /v1/messages",
        "POST /v1/packets",
        "POST /v1/packets/{packetId}/approve",
        "POST /v1/packets/{packetId}/deny",
        "POST /v1/packets/{packetId}/feedback",
        "POST /v1/responses",
        "POST /v1/route",
        "POST /v1/servers",
        "POST /v1/tools/{name}/approve",
        "POST /v1/tools/{name}/examples",
      ],
    );

    const operations = Object.values(doc.paths as Record<string, Record<string, Operation>>).flatMap((ops) => Object.values(ops));
    const ids = operations.map((op) => op.operationId);
    assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
    for (const op of operations) assert.ok(op.responses && Object.keys(op.responses).length > 0, `${op.operationId} has responses`);
    // The model-API doors point at the protocol they speak.
    for (const path of ["/v1/chat/completions", "/v1/messages", "/v1/responses"]) {
      assert.match(String(doc.paths[path].post.externalDocs?.url), /^https:\/\//, `${path} links its protocol`);
    }

    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? []; // every "$ref":"…" in the document
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      const target = /"#\/components\/schemas\/([^"]+)"$/.exec(ref.slice(7)); // local component refs only
      assert.ok(target, `${ref} points into components`);
      assert.ok(doc.components.schemas[target[1]!], `${ref} resolves`);
    }
    const packet = doc.components.schemas["switchyard.v1.Packet"];
    assert.ok(packet.properties.toolRouting && packet.properties.hops, "the packet schema is generated from the proto");
    assert.ok(doc.components.schemas.Error.properties.field);
  });

  it("gateway http - Swagger UI is served at /docs", async () => {
    const { app } = setup();
    const res = await app.inject({ method: "GET", url: "/docs" });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers["content-type"] as string, /text\/html/);
  });
});
