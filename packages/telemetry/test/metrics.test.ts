import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { promSample } from "@switchyard/test-fixtures";
import { Metrics, processMetrics } from "../src/index.js";

describe("metrics", () => {
  it("metrics - one registry per process: processMetrics() is always the same", () => {
    assert.equal(processMetrics(), processMetrics());
  });

  it("metrics - the exposition is Prometheus text with Node's default metrics and every series labelled with the service", async () => {
    const metrics = new Metrics();
    metrics.setService("tester");
    metrics.stageRun("select", "review", 0.2);
    const { contentType, body } = await metrics.exposition();
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    assert.ok(promSample(body, "process_cpu_user_seconds_total", { service: "tester" }) !== undefined, "default metrics");
    assert.equal(promSample(body, "switchyard_stage_duration_seconds_count", { service: "tester", stage: "select", outcome: "review" }), 1);
    for (const line of body.split("\n").filter((l) => l.startsWith("switchyard_"))) assert.match(line, /service="tester"/);
  });

  it("metrics - a finished packet counts by state and status; confidence only with a tool, rounds always", async () => {
    const metrics = new Metrics();
    metrics.packetFinished({ state: "COMPLETED", executionStatus: "EXECUTED", selectionConfidence: 0.85, reinjectionRounds: 2 });
    metrics.packetFinished({ state: "AWAITING_USER", executionStatus: "PENDING", selectionConfidence: undefined, reinjectionRounds: 0 });
    const { body } = await metrics.exposition();
    assert.equal(promSample(body, "switchyard_packets_finished_total", { state: "COMPLETED", execution_status: "EXECUTED" }), 1);
    assert.equal(promSample(body, "switchyard_packets_finished_total", { state: "AWAITING_USER", execution_status: "PENDING" }), 1);
    assert.equal(promSample(body, "switchyard_selection_confidence_count"), 1);
    assert.equal(promSample(body, "switchyard_selection_confidence_bucket", { le: "0.8" }), 0);
    assert.equal(promSample(body, "switchyard_selection_confidence_bucket", { le: "0.9" }), 1);
    assert.equal(promSample(body, "switchyard_reinjection_rounds_count"), 2);
    assert.equal(promSample(body, "switchyard_reinjection_rounds_sum"), 2);
  });

  it("metrics - MCP and model calls: every call timed, failures counted by kind", async () => {
    const metrics = new Metrics();
    metrics.mcpCall("fs", "read_text_file", 0.01);
    metrics.mcpCall("fs", "read_text_file", 0.02, "tool_error");
    metrics.modelCall("small-model", 0.5, "timeout");
    const { body } = await metrics.exposition();
    assert.equal(promSample(body, "switchyard_mcp_call_duration_seconds_count", { server: "fs", tool: "read_text_file" }), 2);
    assert.equal(promSample(body, "switchyard_mcp_call_errors_total", { server: "fs", tool: "read_text_file", kind: "tool_error" }), 1);
    assert.equal(promSample(body, "switchyard_model_call_duration_seconds_count", { model: "small-model" }), 1);
    assert.equal(promSample(body, "switchyard_model_call_errors_total", { model: "small-model", kind: "timeout" }), 1);
  });

  it("metrics - consumer backlogs are read on each scrape; a failed read leaves its stage out; unwatching stops it", async () => {
    const metrics = new Metrics();
    let reads = 0;
    const unwatch = metrics.watchConsumer("route", async () => {
      reads += 1;
      return { pending: 7, ackPending: 3, pullRequests: 2 };
    });
    metrics.watchConsumer("select", () => Promise.reject(new Error("nats is away")));
    const first = (await metrics.exposition()).body;
    assert.equal(reads, 1, "one read serves the three gauges");
    assert.equal(promSample(first, "switchyard_consumer_pending_messages", { stage: "route" }), 7);
    assert.equal(promSample(first, "switchyard_consumer_ack_pending_messages", { stage: "route" }), 3);
    assert.equal(promSample(first, "switchyard_consumer_pull_requests_waiting", { stage: "route" }), 2);
    assert.equal(promSample(first, "switchyard_consumer_pending_messages", { stage: "select" }), undefined);

    unwatch();
    const second = (await metrics.exposition()).body;
    assert.equal(reads, 1);
    assert.equal(promSample(second, "switchyard_consumer_pending_messages", { stage: "route" }), undefined);
  });
});
