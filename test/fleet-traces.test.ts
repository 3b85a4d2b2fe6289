import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createRouterClient } from "@switchyard/grpc";
import { eventually, fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";
import { startOtlpReceiver } from "./otlp-receiver.js";
import type { OtlpReceiver, ReceivedSpan } from "./otlp-receiver.js";

const skip = fleetSkipReason();
/** A secret a user pastes: it must never leave a process in a span or a log line. */
const CANARY = "sk-canary0123456789abcdefCANARY";
const [SERVER, PRODUCER, CONSUMER] = [2, 4, 5];

/**
 * The edges a packet's trace may have, parent → child, by span name with the variable
 * part cut ("handler - <route>" → "handler", "tools/call <tool>" → "tools/call"). The
 * gateway's HTTP request span is the root; every hop is a PRODUCER span and the CONSUMER
 * span of the stage that takes the message; the executor's MCP call hangs under its hop.
 */
const EDGES = new Set([
  "ROOT → request",
  "request → handler",
  "handler → send switchyard.packets.intent",
  "ROOT → grpc.switchyard.v1.Router/SubmitPacket",
  "grpc.switchyard.v1.Router/SubmitPacket → send switchyard.packets.intent",
  "send switchyard.packets.intent → process switchyard.packets.intent",
  "process switchyard.packets.intent → send switchyard.packets.route",
  "send switchyard.packets.route → process switchyard.packets.route",
  "process switchyard.packets.route → send switchyard.packets.select",
  "send switchyard.packets.select → process switchyard.packets.select",
  "process switchyard.packets.select → send switchyard.packets.review",
  "send switchyard.packets.review → process switchyard.packets.review",
  "process switchyard.packets.review → send switchyard.packets.execute",
  "send switchyard.packets.execute → process switchyard.packets.execute",
  "process switchyard.packets.execute → tools/call",
  "process switchyard.packets.execute → send switchyard.packets.intent",
  // An approval resumes the packet in its own trace, under the request that submitted it (the approving request is a link).
  "handler → approve packet",
  "approve packet → send switchyard.packets.execute",
]);

const shortName = (span: ReceivedSpan) => span.name.replace(/^handler - .*$/s, "handler").replace(/^tools\/call .*$/, "tools/call");

/** Every span of the one trace the packet's spans belong to; fails unless they share exactly one. */
function traceOf(otlp: OtlpReceiver, packetId: string): ReceivedSpan[] {
  const traceIds = new Set(otlp.spans.filter((s) => s.attributes["switchyard.packet.id"] === packetId).map((s) => s.traceId));
  assert.equal(traceIds.size, 1, `packet ${packetId} is in ${traceIds.size} traces`);
  const [traceId] = traceIds;
  return otlp.spans.filter((s) => s.traceId === traceId);
}

/** Checks the trace's shape: parents present, edges from the table, each consumer under its own message's producer. */
function checkEdges(spans: ReceivedSpan[]): void {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (const span of spans) {
    const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    assert.ok(!span.parentSpanId || parent, `the parent of ${span.name} (${span.service}) is missing from the trace`);
    const edge = `${parent ? shortName(parent) : "ROOT"} → ${shortName(span)}`;
    assert.ok(EDGES.has(edge), `unexpected edge ${edge}`);
    if (span.kind === CONSUMER) {
      assert.equal(parent!.kind, PRODUCER);
      assert.equal(parent!.attributes["messaging.message.id"], span.attributes["messaging.message.id"], "a consumer continues its own message's producer");
      assert.equal(span.attributes["messaging.system"], "nats");
      assert.equal(span.attributes["messaging.consumer.group.name"], span.attributes["switchyard.stage"]);
    }
  }
}

/** The stages that took the packet, in hop order, with their hop and reinjection round. */
function hopsOf(spans: ReceivedSpan[]): string[] {
  return spans
    .filter((s) => s.kind === CONSUMER)
    .sort((a, b) => Number(a.attributes["switchyard.hop"]) - Number(b.attributes["switchyard.hop"]))
    .map((s) => `${s.attributes["switchyard.hop"]}:${s.attributes["switchyard.stage"]}:r${s.attributes["switchyard.reinjection.round"]}`);
}

describe("fleet traces - every hop of every packet in one trace", { skip }, () => {
  let t: TestFleet;
  let otlp: OtlpReceiver;

  /**
   * The packet's trace once `complete` says its spans are all there and every parent has
   * arrived (services export in batches, each on its own schedule). A trace that never
   * completes fails the test in `eventually`, and checkEdges names the missing parent.
   */
  const settledTrace = async (packetId: string, complete: (spans: ReceivedSpan[]) => boolean) => {
    const arrived = () => {
      if (!otlp.spans.some((s) => s.attributes["switchyard.packet.id"] === packetId)) return undefined;
      const spans = traceOf(otlp, packetId);
      const ids = new Set(spans.map((s) => s.spanId));
      return complete(spans) && spans.every((s) => !s.parentSpanId || ids.has(s.parentSpanId)) ? spans : undefined;
    };
    await eventually(async () => arrived(), 10_000, `the spans of packet ${packetId}`).catch(() => undefined);
    return traceOf(otlp, packetId);
  };

  before(async () => {
    otlp = await startOtlpReceiver();
    t = await startTestFleet({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        // debug: each stage logs every packet it hands on, so there are lines to check for ids and the canary.
        LOG_LEVEL: "debug",
      },
      serviceEnv: { reviewer: { ALLOW_WRITE_TOOLS: "true" } },
    });
  });
  after(async () => {
    await t?.close();
    await otlp?.close();
  });

  it("fleet traces - two reinjection rounds: one trace, from the HTTP request through every hop and MCP call", async () => {
    const { json: packet } = await t.post("/v1/packets", {
      message: "read notes/todo.md, then list the directory notes",
      history: [{ role: "USER", content: `my key is ${CANARY}` }],
    });
    assert.equal(packet.toolRouting.reinjectionCount, 2);
    const spans = await settledTrace(packet.header.packetId, (s) => s.filter((x) => x.kind === CONSUMER).length === 11 && s.some((x) => x.name.startsWith("tools/call")));
    checkEdges(spans);
    // Hop 1 is the gateway's; each stage's hop follows, the round counts the reinjections so far.
    assert.deepEqual(hopsOf(spans), [
      "2:intent:r0", "3:route:r0", "4:select:r0", "5:review:r0", "6:execute:r0",
      "7:intent:r1", "8:route:r1", "9:select:r1", "10:review:r1", "11:execute:r1",
      "12:intent:r2",
    ]);
    const root = spans.find((s) => !s.parentSpanId)!;
    assert.equal(root.kind, SERVER);
    assert.equal(root.service, "switchyard-gateway");
    assert.equal(root.attributes["http.route"], "/v1/packets");
    const executes = spans.filter((s) => s.attributes["switchyard.stage"] === "execute");
    assert.deepEqual(
      executes.map((s) => [s.attributes["switchyard.tool.name"], s.attributes["switchyard.execution.status"]]),
      [["filesystem.read_text_file", "EXECUTED"], ["filesystem.list_directory", "EXECUTED"]],
    );
    assert.equal(spans.filter((s) => s.name.startsWith("tools/call")).length, 2, "one MCP span per call");
    const services = new Set(spans.map((s) => s.service));
    assert.deepEqual([...services].sort(), ["switchyard-embedding-router", "switchyard-executor", "switchyard-gateway", "switchyard-intent", "switchyard-reviewer", "switchyard-selector"]);
    assert.ok(spans.every((s) => !("switchyard.request.text" in s.attributes)), "no request text without TRACE_CONTENT");
  });

  it("fleet traces - a packet awaiting approval, then approved: still one trace", async () => {
    const { json: waiting } = await t.post("/v1/packets", { message: "write 'traced' to the file notes/traced.md" });
    assert.equal(waiting.state, "AWAITING_APPROVAL");
    const id = waiting.header.packetId;
    const before = await settledTrace(id, (s) => s.some((x) => x.attributes["switchyard.stage"] === "review"));
    checkEdges(before);
    const review = before.find((s) => s.attributes["switchyard.stage"] === "review")!;
    assert.equal(review.attributes["switchyard.packet.state"], "AWAITING_APPROVAL");
    assert.equal(review.attributes["switchyard.tool.name"], "filesystem.write_file");

    await t.post(`/v1/packets/${id}/approve`, { callHash: waiting.toolRouting.approval.callHash });
    const spans = await settledTrace(id, (s) => s.filter((x) => x.attributes["switchyard.stage"] === "intent").length === 2);
    checkEdges(spans);
    assert.deepEqual(hopsOf(spans), ["2:intent:r0", "3:route:r0", "4:select:r0", "5:review:r0", "7:execute:r0", "8:intent:r1"]);
    assert.ok(spans.some((s) => s.name === "approve packet"));
  });

  it("fleet traces - a failing call is in its trace with its status; the canary secret is in no span and no log line", async () => {
    const { json: failed } = await t.post("/v1/packets", { message: `read the file notes/${CANARY}.md` });
    assert.equal(failed.toolRouting.executionStatus, "FAILED");
    const spans = await settledTrace(failed.header.packetId, (s) => s.filter((x) => x.attributes["switchyard.stage"] === "intent").length === 2);
    checkEdges(spans);
    const execute = spans.find((s) => s.attributes["switchyard.stage"] === "execute")!;
    assert.equal(execute.attributes["switchyard.execution.status"], "FAILED");

    // The trace and the logs of all three packets: the canary was in a history turn, a path and an error.
    assert.ok(otlp.bodies.length > 0);
    assert.equal(otlp.bodies.filter((body) => body.includes(CANARY)).length, 0, "the canary was exported in a span");
    assert.deepEqual(t.logs.filter((line) => line.includes(CANARY)), [], "the canary was logged");
  });

  it("fleet traces - over gRPC the trace starts at the gRPC server span", async () => {
    const client = createRouterClient(`127.0.0.1:${t.fleet.processes.get("gateway")!.ready["grpcPort"]}`);
    try {
      const submitted = await client.submitPacket({ message: "please read the file notes/todo.md" });
      const spans = await settledTrace(submitted.packetId, (s) => s.filter((x) => x.kind === CONSUMER).length === 6);
      checkEdges(spans);
      const root = spans.find((s) => !s.parentSpanId)!;
      assert.equal(root.kind, SERVER);
      assert.equal(root.name, "grpc.switchyard.v1.Router/SubmitPacket");
      assert.equal(root.attributes["rpc.system"], "grpc");
    } finally {
      client.close();
    }
  });

  it("fleet traces - an MCP call with _meta.traceparent continues the caller's trace", async () => {
    const client = new Client({ name: "fleet-traces-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      const [traceId, callerSpan] = ["4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"];
      const result = await client.callTool({
        name: "filesystem_read_text_file",
        arguments: { path: "notes/todo.md" },
        _meta: { traceparent: `00-${traceId}-${callerSpan}-01` },
      });
      const { packetId } = result._meta as { packetId: string };
      const spans = await settledTrace(packetId, (s) => s.filter((x) => x.kind === CONSUMER).length === 3);
      assert.equal(spans[0]!.traceId, traceId);
      const send = spans.find((s) => s.name === "send switchyard.packets.review")!;
      assert.equal(send.parentSpanId, callerSpan, "the gateway's hop hangs under the caller's span");
      assert.deepEqual(hopsOf(spans), ["2:review:r0", "3:execute:r0", "4:intent:r1"]);
    } finally {
      await client.close();
    }
  });

  it("fleet traces - log lines carry the trace id, span id and packet id", async () => {
    const { json: packet } = await t.post("/v1/packets", { message: "please read the file notes/todo.md" });
    const spans = await settledTrace(packet.header.packetId, (s) => s.filter((x) => x.kind === CONSUMER).length >= 5);
    const traceId = spans[0]!.traceId;
    await t.post("/v1/packets", { message: "please read the file notes/todo.md" }); // flush a little more log
    const lines = t.logs.filter((line) => line.includes(packet.header.packetId));
    assert.ok(lines.length > 0, "some stage logged about the packet");
    for (const line of lines) {
      const record = JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>;
      assert.equal(record["trace_id"], traceId, line);
      assert.match(String(record["span_id"]), /^[0-9a-f]{16}$/);
      assert.equal(record["packet_id"], packet.header.packetId);
    }
  });
});
