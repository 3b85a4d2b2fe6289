import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import type { DescMessage, JsonObject, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { Packet_State, Router, RoutingCandidate_Source, ToolRoutingState_ExecutionStatus, Turn_Role } from "@switchyard/packet";
import { grpcServiceDefinition } from "@switchyard/grpc";
import { localAuthenticator } from "../src/shared/auth.js";
import { buildGrpcServer, ROUTER_SERVICE_NAME } from "../src/doors/grpc/grpc-server.js";
import { GatewayError } from "../src/shared/deps.js";
import { CATALOG, InMemoryGatewayDeps, NEEDS_APPROVAL } from "./in-memory-deps.js";

const LIMITS = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth: localAuthenticator };
type Methods = (typeof Router)["method"];
/** How a client made by makeGenericClientConstructor exposes a unary method. */
type UnaryMethod = (request: unknown, callback: (error: grpc.ServiceError | null, response: unknown) => void) => void;

describe("gateway grpc", () => {
  const deps = new InMemoryGatewayDeps();
  const { server } = buildGrpcServer(deps, LIMITS);
  let client: grpc.Client & Record<string, UnaryMethod>;
  let health: grpc.Client & Record<string, UnaryMethod>;
  /** The same service with requests sent as the bytes given, for malformed ones. */
  let raw: grpc.Client & Record<string, UnaryMethod>;

  /** Calls a Router method with a message built from its generated input schema. */
  function call<K extends keyof Methods>(
    method: K,
    init: MessageInitShape<Methods[K]["input"]>,
  ): Promise<MessageShape<Methods[K]["output"]>> {
    const request = create(Router.method[method].input as DescMessage, init as never);
    return new Promise((resolve, reject) => {
      client[method]!(request, (error, response) =>
        error ? reject(error) : resolve(response as MessageShape<Methods[K]["output"]>),
      );
    });
  }

  async function rejectsWith<K extends keyof Methods>(
    method: K,
    init: MessageInitShape<Methods[K]["input"]>,
    code: grpc.status,
    details?: RegExp,
  ) {
    await assert.rejects(call(method, init), (error: grpc.ServiceError) => {
      assert.equal(error.code, code, `${grpc.status[code]} expected, got ${grpc.status[error.code]}: ${error.details}`);
      if (details) assert.match(error.details, details);
      return true;
    });
  }

  before(async () => {
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    const Client = grpc.makeGenericClientConstructor(grpcServiceDefinition(Router), "Router");
    client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as typeof client;
    const HealthClient = grpc.makeGenericClientConstructor(healthService as unknown as grpc.ServiceDefinition, "Health");
    health = new HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as typeof health;
    const asGiven = Object.fromEntries(
      Object.entries(grpcServiceDefinition(Router)).map(([name, method]) => [name, { ...method, requestSerialize: (bytes: Buffer) => bytes }]),
    );
    const RawClient = grpc.makeGenericClientConstructor(asGiven, "Router");
    raw = new RawClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as typeof raw;
  });

  after(() => {
    client.close();
    health.close();
    raw.close();
    server.forceShutdown();
  });

  it("gateway grpc - the service definition has one method per Router RPC, on the proto's paths", () => {
    const definition = grpcServiceDefinition(Router);
    assert.deepEqual(
      Object.values(definition).map((m) => m.path),
      Router.methods.map((m) => `/switchyard.v1.Router/${m.name}`),
    );
    assert.ok(Object.values(definition).every((m) => !m.requestStream && !m.responseStream));
  });

  it("gateway grpc - SubmitPacket returns the finished packet with its id", async () => {
    const response = await call("submitPacket", {
      message: "read ./README.md",
      history: [{ role: Turn_Role.ASSISTANT, content: "hello" }],
      tools: ["filesystem.read_file"],
    });
    assert.equal(response.finished, true);
    assert.equal(response.packet?.state, Packet_State.COMPLETED);
    assert.equal(response.packetId, response.packet?.header?.packetId);
    assert.equal(response.packet?.content?.history[0]?.role, Turn_Role.ASSISTANT);
    const input = deps.submitted.at(-1);
    assert.equal(input?.wait, true, "an unset wait means wait");
    assert.equal(input?.sessionId, undefined, "an empty session id means none");
    assert.deepEqual(input?.tools, ["filesystem.read_file"]);
  });

  it("gateway grpc - SubmitPacket with wait=false answers unfinished; GetPacket finds the packet", async () => {
    const response = await call("submitPacket", { message: "list files", wait: false, sessionId: "s-9" });
    assert.equal(response.finished, false);
    const packet = await call("getPacket", { packetId: response.packetId });
    assert.equal(packet.header?.sessionId, "s-9");
    assert.equal(packet.state, Packet_State.DETECTING_INTENT);
  });

  it("gateway grpc - SubmitCall reviews the caller's call: a read runs, a write waits, an unknown tool is NOT_FOUND, no tool INVALID_ARGUMENT", async () => {
    const ran = await call("submitCall", { tool: "read_file", arguments: { path: "notes/todo.md" } });
    assert.equal(ran.finished, true);
    assert.equal(ran.packet?.toolRouting?.selectedTool?.toolName, "filesystem.read_file", "the bare server name resolved");
    assert.equal(ran.packet?.state, Packet_State.COMPLETED);
    assert.equal(ran.packet?.content?.originalPrompt, "", "no words made up for a call without the user's");
    assert.equal(ran.approvalUrl, "", "only a held packet links an approval");
    const waiting = await call("submitCall", { tool: "filesystem.write_file", arguments: { path: "a.md", content: "x" }, message: "save a.md" });
    assert.equal(waiting.packet?.state, Packet_State.AWAITING_APPROVAL);
    assert.equal(waiting.approvalUrl, `http://127.0.0.1:8080/console/approvals/${waiting.packetId}`);
    assert.equal(deps.calls.at(-1)?.message, "save a.md");
    await rejectsWith("submitCall", { tool: "ledger.post_entry" }, grpc.status.NOT_FOUND, /no tool named ledger\.post_entry/);
    await rejectsWith("submitCall", { tool: "" }, grpc.status.INVALID_ARGUMENT, /tool/);
  });

  it("gateway grpc - ListPackets filters the caller's packets as GET /v1/packets does, and names a bad field", async () => {
    const held = await call("submitPacket", { message: NEEDS_APPROVAL });
    const { packets } = await call("listPackets", { states: [Packet_State.AWAITING_APPROVAL], limit: 1 });
    assert.deepEqual(packets.map((p) => p.header?.packetId), [held.packetId]);
    await rejectsWith("listPackets", { limit: 500 }, grpc.status.INVALID_ARGUMENT, /limit/);
    await rejectsWith("listPackets", { status: "fine" }, grpc.status.INVALID_ARGUMENT, /status/);
    await rejectsWith("listPackets", { states: [99 as Packet_State] }, grpc.status.INVALID_ARGUMENT, /state/);
  });

  it("gateway grpc - GetFleetStatus counts the caller's packets waiting for a person", async () => {
    const fleet = await call("getFleetStatus", {});
    assert.ok(fleet.approvalsWaiting >= 1);
    assert.deepEqual(fleet.services.map((s) => s.name).slice(0, 2), ["gateway", "intent"]);
  });

  it("gateway grpc - GetPacket of an unknown id is NOT_FOUND", async () => {
    await rejectsWith("getPacket", { packetId: "nope" }, grpc.status.NOT_FOUND, /nope/);
  });

  it("gateway grpc - ApprovePacket resumes a waiting packet; again is FAILED_PRECONDITION", async () => {
    const { packetId } = await call("submitPacket", { message: NEEDS_APPROVAL });
    const approved = await call("approvePacket", { packetId });
    assert.equal(approved.state, Packet_State.COMPLETED);
    await rejectsWith("approvePacket", { packetId }, grpc.status.FAILED_PRECONDITION, /not AWAITING_APPROVAL/);
    await rejectsWith("approvePacket", { packetId: "nope" }, grpc.status.NOT_FOUND);
  });

  it("gateway grpc - ApprovePacket with call_hash: another call's is FAILED_PRECONDITION, a malformed one INVALID_ARGUMENT", async () => {
    const { packetId } = await call("submitPacket", { message: NEEDS_APPROVAL });
    const waiting = await call("getPacket", { packetId });
    const callHash = waiting.toolRouting!.approval!.callHash;
    await rejectsWith("approvePacket", { packetId, callHash: "0".repeat(64) }, grpc.status.FAILED_PRECONDITION, /is not the call waiting for approval/);
    await rejectsWith("approvePacket", { packetId, callHash: "xyz" }, grpc.status.INVALID_ARGUMENT, /callHash/);
    const approved = await call("approvePacket", { packetId, callHash });
    assert.equal(approved.state, Packet_State.COMPLETED);
    assert.ok(approved.toolRouting!.approval!.grantedAt);
  });

  it("gateway grpc - DenyPacket ends a waiting packet with the reason", async () => {
    const { packetId } = await call("submitPacket", { message: NEEDS_APPROVAL });
    const denied = await call("denyPacket", { packetId, reason: "not today" });
    assert.equal(denied.toolRouting?.executionStatus, ToolRoutingState_ExecutionStatus.USER_DENIED);
    assert.equal(denied.stateReason, "denied by the user: filesystem.write_file not run (not today)");
    await rejectsWith("denyPacket", { packetId }, grpc.status.FAILED_PRECONDITION);
  });

  it("gateway grpc - Route returns candidates; top_k 0 asks for the router's default", async () => {
    const top = await call("route", { message: "read a file", topK: 1 });
    assert.deepEqual(
      top.candidates.map((c) => [c.tool?.name, c.source]),
      [["filesystem.read_file", RoutingCandidate_Source.SEMANTIC]],
    );
    const all = await call("route", { message: "read a file" });
    assert.equal(all.candidates.length, CATALOG.length);
    assert.equal(deps.routed.at(-1)?.topK, 0);
    assert.deepEqual(all.warnings, []);
  });

  it("gateway grpc - Route passes the router's warnings through when it fell back", async () => {
    deps.routeWarnings = ["lexical search found no tool", "returned the whole catalog within the request's filter (3 tools, unscored)"];
    try {
      const { warnings, candidates } = await call("route", { message: "read a file" });
      assert.deepEqual(warnings, deps.routeWarnings);
      assert.equal(candidates.length, CATALOG.length);
    } finally {
      deps.routeWarnings = [];
    }
  });

  it("gateway grpc - pools and domains reach the packet and the router", async () => {
    const { packet } = await call("submitPacket", { message: "read a file", pools: ["filesystem"], domains: ["files"] });
    assert.deepEqual([packet?.content?.scope?.pools, packet?.content?.scope?.domains], [["filesystem"], ["files"]]);
    await call("route", { message: "read a file", pools: ["memory"], domains: ["memory"] });
    assert.deepEqual([deps.routed.at(-1)?.pools, deps.routed.at(-1)?.domains], [["memory"], ["memory"]]);
  });

  it("gateway grpc - Feedback and AddExamples reach the deps and answer their messages", async () => {
    const { packet } = await call("submitPacket", { message: "read notes/todo.md" });
    const id = packet!.header!.packetId;
    const feedback = await call("feedback", { packetId: id, correct: false, tool: "filesystem.write_file" });
    assert.deepEqual([feedback.query, feedback.removedFrom, feedback.addedTo], ["read notes/todo.md", "filesystem.read_file", "filesystem.write_file"]);
    assert.deepEqual(deps.feedbacks.at(-1), { packetId: id, correct: false, tool: "filesystem.write_file" });

    const added = await call("addExamples", { tool: "filesystem.read_file", examples: ["show me my notes"] });
    assert.deepEqual([added.tool, added.added, added.examples], ["filesystem.read_file", 1, ["show me my notes"]]);
    await rejectsWith("addExamples", { tool: "no.such_tool", examples: ["x"] }, grpc.status.NOT_FOUND, /no tool named/);
  });

  it("gateway grpc - ListTools returns the catalog", async () => {
    const { tools } = await call("listTools", {});
    assert.deepEqual(
      tools.map((t) => t.name),
      CATALOG.map((t) => t.name),
    );
    assert.deepEqual(tools[0]?.inputSchema?.required, ["path"]);
  });

  const INVALID: { name: string; run: () => Promise<void> }[] = [
    { name: "a missing message", run: () => rejectsWith("submitPacket", {}, grpc.status.INVALID_ARGUMENT, /^message /) },
    { name: "a missing route message", run: () => rejectsWith("route", { topK: 3 }, grpc.status.INVALID_ARGUMENT, /^message /) },
    {
      name: "a message over maxMessageChars",
      run: () =>
        rejectsWith("submitPacket", { message: "x".repeat(LIMITS.maxMessageChars + 1) }, grpc.status.INVALID_ARGUMENT, /^message .*32768/),
    },
    {
      name: "history over maxHistoryTurns",
      run: () =>
        rejectsWith(
          "submitPacket",
          { message: "hi", history: Array.from({ length: LIMITS.maxHistoryTurns + 1 }, () => ({ content: "a" })) },
          grpc.status.INVALID_ARGUMENT,
          /^history /,
        ),
    },
    {
      name: "an unknown role number",
      run: () =>
        rejectsWith("submitPacket", { message: "hi", history: [{ role: 9 as Turn_Role, content: "a" }] }, grpc.status.INVALID_ARGUMENT, /^history\/0\/role /),
    },
    { name: "top_k 51", run: () => rejectsWith("route", { message: "hi", topK: 51 }, grpc.status.INVALID_ARGUMENT, /^topK must be <= 50/) },
    { name: "an empty packet id", run: () => rejectsWith("getPacket", {}, grpc.status.INVALID_ARGUMENT, /^packetId /) },
    { name: "an empty tool name", run: () => rejectsWith("route", { message: "hi", tools: [""] }, grpc.status.INVALID_ARGUMENT, /^tools\/0 /) },
    { name: "an empty domain", run: () => rejectsWith("route", { message: "hi", domains: [""] }, grpc.status.INVALID_ARGUMENT, /^domains\/0 /) },
    { name: "feedback without correct", run: () => rejectsWith("feedback", { packetId: "p" }, grpc.status.INVALID_ARGUMENT, /^correct is required$/) },
    { name: "feedback without a packet id", run: () => rejectsWith("feedback", { correct: true }, grpc.status.INVALID_ARGUMENT, /^packetId /) },
    { name: "examples without a tool", run: () => rejectsWith("addExamples", { examples: ["x"] }, grpc.status.INVALID_ARGUMENT, /^tool /) },
    { name: "no examples", run: () => rejectsWith("addExamples", { tool: "a.b" }, grpc.status.INVALID_ARGUMENT, /^examples /) },
  ];
  for (const bad of INVALID) {
    it(`gateway grpc - ${bad.name} is INVALID_ARGUMENT naming the field`, async () => {
      const before = [deps.submitted.length, deps.routed.length, deps.feedbacks.length, deps.added.length];
      await bad.run();
      assert.deepEqual(
        [deps.submitted.length, deps.routed.length, deps.feedbacks.length, deps.added.length],
        before,
        "nothing reaches the fleet",
      );
    });
  }

  it("gateway grpc - a request over the body limit is RESOURCE_EXHAUSTED", async () => {
    await rejectsWith("submitPacket", { message: "x".repeat(2 * 1024 * 1024) }, grpc.status.RESOURCE_EXHAUSTED);
  });

  it("gateway grpc - SubmitCall arguments nested past 32 levels are INVALID_ARGUMENT naming the field, however deep", async () => {
    const nested = (depth: number) => {
      let value: JsonObject = { path: "notes/todo.md" };
      for (let i = 1; i < depth; i++) value = { a: value };
      return value;
    };
    const calls = deps.calls.length;
    await call("submitCall", { tool: "filesystem.read_file", arguments: nested(32), wait: false });
    assert.equal(deps.calls.length, calls + 1, "32 levels are accepted");
    // 48 levels decode under protobuf's default limit of 100; 99 and 200 only under the server's deeper one.
    for (const depth of [33, 48, 99, 200]) {
      await rejectsWith("submitCall", { tool: "filesystem.read_file", arguments: nested(depth) }, grpc.status.INVALID_ARGUMENT, /^arguments(\/a){32} is nested deeper than 32 levels/);
    }
    // Past what the server decodes at all: refused undecoded.
    await rejectsWith("submitCall", { tool: "filesystem.read_file", arguments: nested(600) }, grpc.status.INVALID_ARGUMENT, /not a valid message of its type: .*maximum recursion depth of 1000/);
    assert.equal(deps.calls.length, calls + 1, "nothing deeper reaches the fleet");
  });

  it("gateway grpc - bytes that are no message, or strings that are not UTF-8, are INVALID_ARGUMENT, not INTERNAL", async () => {
    const sendRaw = (method: string, bytes: number[]) =>
      new Promise((resolve, reject) => raw[method]!(Buffer.from(bytes), (error, response) => (error ? reject(error) : resolve(response))));
    // A length that runs past the end; the field-1 string "\xff\xfe" (route's message, submitCall's tool).
    for (const [method, bytes] of [["submitCall", [0x0a, 0xff, 0xff, 0xff, 0x0f]], ["route", [0x0a, 0x02, 0xff, 0xfe]], ["submitCall", [0x0a, 0x02, 0xff, 0xfe]]] as const) {
      await assert.rejects(sendRaw(method, [...bytes]), (error: grpc.ServiceError) => {
        assert.equal(error.code, grpc.status.INVALID_ARGUMENT, `${method} ${bytes.join(",")}: ${grpc.status[error.code]} ${error.details}`);
        assert.match(error.details, /^the request is not a valid message of its type: /);
        return true;
      });
    }
  });

  it("gateway grpc - errors from the deps map to UNAVAILABLE, INVALID_ARGUMENT and a detail-free INTERNAL", async () => {
    try {
      deps.failure = new GatewayError("unavailable", "no embedding-router answered");
      await rejectsWith("route", { message: "hi" }, grpc.status.UNAVAILABLE, /no embedding-router answered/);
      deps.failure = new GatewayError("invalid", "unknown tool", "tools/0");
      await rejectsWith("listTools", {}, grpc.status.INVALID_ARGUMENT, /^tools\/0: unknown tool$/);
      deps.failure = new Error("secret: db password");
      await rejectsWith("listTools", {}, grpc.status.INTERNAL, /^internal error$/);
    } finally {
      deps.failure = undefined;
    }
  });

  it("gateway grpc - health check is SERVING for the server and for the Router service", async () => {
    assert.equal(ROUTER_SERVICE_NAME, "switchyard.v1.Router");
    for (const service of ["", "switchyard.v1.Router"]) {
      const response = await new Promise<{ status: string }>((resolve, reject) =>
        health.Check!({ service }, (error, r) => (error ? reject(error) : resolve(r as { status: string }))),
      );
      assert.equal(response.status, "SERVING", `health of "${service}"`);
    }
    await assert.rejects(
      new Promise((resolve, reject) =>
        health.Check!({ service: "nope" }, (error, r) => (error ? reject(error) : resolve(r))),
      ),
      (error: grpc.ServiceError) => error.code === grpc.status.NOT_FOUND,
    );
  });
});
