import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { freePort } from "@switchyard/local-nats";
import { promSample } from "@switchyard/test-fixtures";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const README_REQUEST = "please read the file notes/todo.md";
const STAGE_MODELS = [
  ["intent", "intent model"],
  ["selector", "selection model"],
  ["reviewer", "review model"],
  ["embedding-router", "embeddings endpoint"],
] as const;

/**
 * Every model and the embeddings endpoint configured on a port nothing listens on: the fleet
 * must work as it does without them, and say at every door that it does so.
 */
describe("fleet outages - models and embeddings on a dead port", { skip }, () => {
  let t: TestFleet;
  let endpoint = "";

  before(async () => {
    endpoint = `127.0.0.1:${await freePort()}`;
    const llm = { LLM_BASE_URL: `http://${endpoint}/v1`, LLM_TIMEOUT_MS: "2000" };
    t = await startTestFleet({
      serviceEnv: {
        intent: { ...llm, INTENT_MODEL: "dead-intent" },
        selector: { ...llm, SELECTOR_MODEL: "dead-selector" },
        reviewer: { ...llm, REVIEWER_MODEL: "dead-reviewer" },
        "embedding-router": { EMBEDDINGS_BASE_URL: `http://${endpoint}/v1`, EMBEDDINGS_MODEL: "dead-embed" },
      },
    });
  });
  after(() => t?.close());

  const healthUrl = (service: string) => `http://127.0.0.1:${t.fleet.processes.get(service as never)!.ready["healthPort"]}`;

  it("fleet outages - the README's request still runs, and its stateReason names each outage and what stood in for it", async () => {
    const { status, json: packet } = await t.post("/v1/packets", { message: README_REQUEST });
    assert.equal(status, 200);
    const log = packet.reasoning.reflectionLog.map((e: { summary: string }) => e.summary).join("\n");
    assert.equal(packet.state, "COMPLETED", log);
    assert.equal(packet.toolRouting.executionStatus, "EXECUTED", packet.stateReason);
    assert.equal(packet.toolRouting.selectedTool.toolName, "filesystem.read_text_file");
    assert.match(packet.stateReason, /^done: filesystem\.read_text_file ran\. Decided without: /);
    const refused = (what: string) => `the ${what} at ${endpoint} did not answer (connection refused), so `;
    for (const expected of [
      `${refused("embeddings endpoint dead-embed")}the router ranked the catalog with the built-in embedder`,
      `${refused("selection model dead-selector")}the built-in selector chose filesystem.read_text_file`,
      `${refused("review model dead-reviewer")}the built-in reviewer scored filesystem.read_text_file `,
    ]) {
      assert.ok(packet.stateReason.includes(expected), `${expected}\nnot in: ${packet.stateReason}`);
    }
    assert.deepEqual(
      packet.fallbacks.map((f: { stage: string; dependency: string; cause: string }) => [f.stage, f.dependency, f.cause]).sort(),
      [
        ["intent", "intent model", "connection_refused"],
        ["review", "review model", "connection_refused"],
        ["route", "embeddings endpoint", "connection_refused"],
        ["select", "selection model", "connection_refused"],
      ],
    );
  });

  it("fleet outages - /readyz stays 200: the gateway's body lists every dead dependency, each stage's its own", async () => {
    const gateway = await t.get("/readyz");
    assert.equal(gateway.status, 200);
    assert.deepEqual(gateway.json, { status: "degraded", down: ["embeddings endpoint", "intent model", "review model", "selection model"] });
    for (const [service, dependency] of STAGE_MODELS) {
      const response = await fetch(`${healthUrl(service)}/readyz`);
      assert.equal(response.status, 200, service);
      assert.deepEqual(await response.json(), { status: "degraded", down: [dependency] }, service);
    }
    const executor = await fetch(`${healthUrl("executor")}/readyz`);
    assert.deepEqual(await executor.json(), { status: "ready" }, "a service with no model is not degraded");
  });

  it("fleet outages - each stage's /metrics counts its fallbacks by stage, dependency and cause, and shows the dependency down", async () => {
    await t.post("/v1/packets", { message: README_REQUEST });
    for (const [service, dependency, stage] of [
      ["selector", "selection model", "select"],
      ["reviewer", "review model", "review"],
      ["embedding-router", "embeddings endpoint", "route"],
    ] as const) {
      const body = await (await fetch(`${healthUrl(service)}/metrics`)).text();
      const fallbacks = promSample(body, "switchyard_fallbacks_total", { service, stage, dependency, cause: "connection_refused" });
      assert.ok(fallbacks !== undefined && fallbacks >= 1, `${service}: ${fallbacks}`);
      assert.equal(promSample(body, "switchyard_dependency_up", { service, dependency }), 0, service);
    }
  });

  it("fleet outages - POST /v1/route ranks lexically with scores above 0, and its warnings say why", async () => {
    const { status, json } = await t.post("/v1/route", { message: README_REQUEST });
    assert.equal(status, 200);
    const semantic = json.candidates.filter((c: { source: string }) => c.source === "SEMANTIC");
    assert.equal(semantic[0].tool.name, "filesystem.read_text_file");
    assert.ok(semantic.length < 22, `not the whole catalog: ${semantic.length}`);
    for (const c of semantic) assert.ok(c.score > 0, `${c.tool.name} ${c.score}`);
    assert.deepEqual(json.warnings, ["no tool found, but 22 catalog tool(s) are not indexed (their embedding failed); ranked the catalog with the built-in embedder"]);
  });

  it("fleet outages - each dead dependency is one info line in the log, no warning and no stack trace", () => {
    const records = t.logs.flatMap((line) => {
      try {
        return [JSON.parse(line.slice(line.indexOf("|") + 2)) as { level: number; msg: string }];
      } catch {
        return []; // a line an MCP server wrote on its stderr
      }
    });
    const loud = records.filter((r) => r.level >= 40);
    assert.deepEqual(loud, [], "no warnings or errors");
    assert.ok(!t.logs.some((line) => line.includes('"stack"')), "no stack trace");
    for (const [, dependency] of STAGE_MODELS) {
      const lines = records.filter((r) => r.msg.startsWith(`the ${dependency} `) && r.msg.includes("did not answer (connection refused)"));
      assert.equal(lines.length, 1, `${dependency}: ${lines.map((r) => r.msg).join("\n")}`);
      assert.equal(lines[0]!.level, 30, "info");
    }
  });
});
