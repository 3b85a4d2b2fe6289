import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SERVICES } from "@switchyard/fleet";
import type { ServiceName } from "@switchyard/fleet";
// The scripted OpenAI-compatible server is the test double of a remote model API: it plays
// the reviewer's model, so that the reviewer has model-call metrics to show.
import { promSample, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const STAGES = SERVICES.filter((s) => s !== "gateway");
/** Prometheus's own checker (Debian: apt-get install prometheus); .ci/run installs it. */
const promtoolMissing = spawnSync("promtool", ["--version"], { stdio: "ignore" }).status === 0 ? false : "no promtool on PATH (apt-get install prometheus)";

describe("fleet metrics - every service's /metrics after a run", { skip }, () => {
  let t: TestFleet;
  let model: ScriptedOpenAIServer;
  const scraped = new Map<ServiceName, string>();

  before(async () => {
    model = await startScriptedOpenAIServer({
      chat: () => ({ content: JSON.stringify({ approved: true, confidence: 0.95, reasoning: "Reads the file the user names." }) }),
    });
    t = await startTestFleet({
      serviceEnv: { reviewer: { LLM_BASE_URL: model.url, LLM_API_KEY: "sk-scripted", REVIEWER_MODEL: "scripted-reviewer" } },
    });
    // A tool call that runs and is reinjected, a message that needs no tool, and a call to a missing file (a tool error).
    for (const message of ["read notes/todo.md", "thanks, that is all", "read notes/missing-file.md"]) {
      const { status } = await t.post("/v1/packets", { message });
      assert.equal(status, 200);
    }
    for (const service of SERVICES) {
      const port = service === "gateway" ? undefined : t.fleet.processes.get(service)!.ready["healthPort"];
      const url = port === undefined ? `${t.url}/metrics` : `http://127.0.0.1:${String(port)}/metrics`;
      const response = await fetch(url);
      assert.equal(response.status, 200, `${service} ${url}`);
      scraped.set(service, await response.text());
    }
  });

  after(async () => {
    await t?.close();
    await model?.close();
  });

  it("fleet metrics - each stage shows its latency histogram, its consumer backlog and the service label", () => {
    for (const stage of STAGES) {
      const body = scraped.get(stage)!;
      // The two tool calls pass every stage; the small talk ends at intent, which also sees both reinjections.
      const expected = stage === "intent" ? 5 : 2;
      assert.equal(promSample(body, "switchyard_stage_duration_seconds_count"), expected, `${stage} measured each packet it handled`);
      assert.notEqual(promSample(body, "switchyard_consumer_pending_messages"), undefined, `${stage} backlog gauge`);
      assert.notEqual(promSample(body, "switchyard_consumer_ack_pending_messages"), undefined, `${stage} in-work gauge`);
      assert.match(body, new RegExp(`service="${stage}"`));
    }
  });

  it("fleet metrics - packets by outcome, selection confidence and reinjection rounds are counted where packets end", () => {
    const all = [...scraped.values()].join("\n");
    assert.equal(promSample(all, "switchyard_packets_finished_total", { state: "COMPLETED" }), 3);
    assert.ok((promSample(all, "switchyard_selection_confidence_count") ?? 0) >= 2, "the two tool calls had a confidence");
    assert.equal(promSample(all, "switchyard_reinjection_rounds_count"), 3);
  });

  it("fleet metrics - the executor shows MCP call latency and the failed call by kind", () => {
    const executor = scraped.get("executor")!;
    assert.equal(promSample(executor, "switchyard_mcp_call_duration_seconds_count", { server: "filesystem" }), 2);
    assert.equal(promSample(executor, "switchyard_mcp_call_errors_total", { server: "filesystem", kind: "tool_error" }), 1);
  });

  it("fleet metrics - the reviewer shows its model calls", () => {
    const reviewer = scraped.get("reviewer")!;
    assert.ok((promSample(reviewer, "switchyard_model_call_duration_seconds_count", { model: "scripted-reviewer" }) ?? 0) >= 2);
    assert.equal(promSample(reviewer, "switchyard_model_call_errors_total", { model: "scripted-reviewer" }) ?? 0, 0);
  });

  it("fleet metrics - promtool check metrics accepts every service's /metrics", { skip: promtoolMissing }, () => {
    for (const [service, body] of scraped) {
      const check = spawnSync("promtool", ["check", "metrics"], { input: body, encoding: "utf8" });
      assert.equal(check.status, 0, `${service}: ${check.stdout}${check.stderr}`);
    }
  });
});
