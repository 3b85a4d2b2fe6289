import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { freePort } from "@switchyard/local-nats";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { DependencyHealth } from "@switchyard/telemetry";
import { llmDefaults, modelClientFor, probeEndpoint } from "../src/index.js";

const REQUEST = { model: "m", temperature: 0, system: "s", user: "u", schemaName: "a", schema: { type: "object" } };
const silent = { info: () => undefined };

describe("outage - what a model endpoint that gives no answer is said to have done", () => {
  let server: ScriptedOpenAIServer;
  let answer: ChatAnswer;
  let dead = "";

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: () => answer });
    // A port nothing listens on: connect() is refused.
    dead = `http://127.0.0.1:${await freePort()}/v1`;
  });
  after(() => server.close());

  const failureAt = async (baseURL: string, timeoutMs = 2000) => {
    const health = new DependencyHealth(silent);
    const client = modelClientFor({ ...llmDefaults, LLM_BASE_URL: baseURL, LLM_TIMEOUT_MS: timeoutMs }, "m", { role: "selection model", health })!;
    const reply = await client.completeJson(REQUEST);
    assert.equal(reply.ok, false);
    return { failure: !reply.ok ? reply.failure : undefined!, down: health.down() };
  };

  it("outage - a refused connection: named with the model, its endpoint and 'connection refused'; the dependency is down", async () => {
    const { failure, down } = await failureAt(dead);
    assert.deepEqual(failure.outage, { cause: "connection_refused", text: "did not answer (connection refused)" });
    assert.deepEqual(failure.dependency, { name: "selection model", model: "m", endpoint: new URL(dead).host });
    assert.equal(failure.message, "the model did not answer (connection refused)");
    assert.deepEqual(down, ["selection model"]);
  });

  it("outage - a 503, a 429 and a stall are outages; a 400 is one request's fault and leaves the model up", async () => {
    answer = { status: 503 };
    assert.equal((await failureAt(server.url)).failure.outage.cause, "http_5xx");
    answer = { status: 429 };
    assert.equal((await failureAt(server.url)).failure.outage.cause, "http_429");
    answer = { status: 401 };
    const unauthorized = await failureAt(server.url);
    assert.equal(unauthorized.failure.outage.cause, "http_4xx");
    assert.deepEqual(unauthorized.down, ["selection model"], "a wrong key fails every request");
    answer = { content: "{}", delayMs: 600 };
    const stalled = await failureAt(server.url, 200);
    assert.deepEqual(stalled.failure.outage, { cause: "timeout", text: "did not answer within 200 ms" });
    answer = { status: 400 };
    const bad = await failureAt(server.url);
    assert.equal(bad.failure.outage.cause, "bad_request");
    assert.deepEqual(bad.down, []);
  });

  it("outage - the check at start: a dead port is down, a server that answers /models at all (here 404) is up", async () => {
    assert.deepEqual(await probeEndpoint({ baseURL: dead, timeoutMs: 2000 }), { cause: "connection_refused", text: "did not answer (connection refused)" });
    assert.equal(await probeEndpoint({ baseURL: server.url, timeoutMs: 2000 }), undefined);
    const health = new DependencyHealth(silent);
    modelClientFor({ ...llmDefaults, LLM_BASE_URL: dead }, "m", { role: "intent model", health });
    modelClientFor({ ...llmDefaults, LLM_BASE_URL: server.url }, "m", { role: "review model", health });
    assert.deepEqual(health.down(), [], "up until checked");
    await health.checkAll();
    assert.deepEqual(health.down(), ["intent model"]);
  });
});
