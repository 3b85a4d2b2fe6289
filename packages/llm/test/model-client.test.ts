import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, RecordedChatRequest, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { promSample, recordSpans } from "@switchyard/test-fixtures";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { processMetrics } from "@switchyard/telemetry";
import { ModelClient, modelClientFor, llmDefaults, parseJsonReply } from "../src/index.js";
import type { JsonRequest, ModelClientOptions } from "../src/index.js";

// Spans are kept in memory for the tests to read.
const { takeSpans } = recordSpans();

/** A sample of this process's /metrics, 0 when the series does not exist yet. */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  return promSample((await processMetrics().exposition()).body, name, labels) ?? 0;
}

const SCHEMA = {
  type: "object",
  required: ["answer"],
  properties: { answer: { type: "string" } },
};

function request(overrides: Partial<JsonRequest> = {}): JsonRequest {
  return { model: "scripted-chat", temperature: 0.15, system: "You answer.", user: "Say hi.", schemaName: "answer", schema: SCHEMA, ...overrides };
}

describe("model client (against the scripted OpenAI-compatible server)", () => {
  let server: ScriptedOpenAIServer;
  let answers: ChatAnswer[];

  const client = (options: Partial<ModelClientOptions> = {}) => new ModelClient({ baseURL: server.url, apiKey: "sk-test", timeoutMs: 2000, ...options });

  before(async () => {
    server = await startScriptedOpenAIServer({ chat: () => answers.shift() ?? { status: 500, message: "script ran out" } });
  });
  after(() => server.close());
  beforeEach(() => {
    server.chatRequests.length = 0;
    answers = [];
  });

  it("model client - a request carries the model, temperature, messages and the JSON schema", async () => {
    answers = [{ content: JSON.stringify({ answer: "hi" }) }];
    const answer = await client().completeJson(request());
    assert.deepEqual(answer, { ok: true, value: { answer: "hi" }, problems: [], repaired: false });
    const [sent] = server.chatRequests as [RecordedChatRequest];
    assert.equal(sent.model, "scripted-chat");
    assert.equal(sent.temperature, 0.15);
    assert.equal(sent.authorization, "Bearer sk-test");
    assert.deepEqual(sent.responseFormat, { type: "json_schema", json_schema: { name: "answer", schema: SCHEMA, strict: false } });
    assert.deepEqual(
      sent.messages.map((m) => m.role),
      ["system", "user"],
    );
    assert.match(sent.messages[0]!.content, /^You answer\./);
    assert.equal(sent.messages[1]!.content, "Say hi.");
  });

  it("model client - invalid JSON gets one repair attempt that shows the model its reply and the fault", async () => {
    answers = [{ content: "{ answer: hi }" }, { content: JSON.stringify({ answer: "hi" }) }];
    const answer = await client().completeJson(request());
    assert.deepEqual(answer, { ok: true, value: { answer: "hi" }, problems: [], repaired: true });
    assert.equal(server.chatRequests.length, 2);
    const repair = server.chatRequests[1]!.messages;
    assert.deepEqual(
      repair.map((m) => m.role),
      ["system", "user", "assistant", "user"],
    );
    assert.equal(repair[2]!.content, "{ answer: hi }");
    assert.match(repair[3]!.content, /not valid JSON/);
  });

  it("model client - invalid JSON twice is a failure, after exactly one repair", async () => {
    answers = [{ content: "no json here" }, { content: "still none" }];
    const answer = await client().completeJson(request());
    assert.equal(answer.ok, false);
    assert.equal(!answer.ok && answer.failure.kind, "invalid-json");
    assert.match(!answer.ok ? answer.failure.message : "", /after one repair attempt/);
    assert.equal(server.chatRequests.length, 2);
  });

  it("model client - the caller's check drives the repair, and what it still finds is returned", async () => {
    const check = (value: Record<string, unknown>) => (value["answer"] === "hi" ? [] : [`answer must be "hi", not ${JSON.stringify(value["answer"])}.`]);
    answers = [{ content: JSON.stringify({ answer: "yo" }) }, { content: JSON.stringify({ answer: "hey" }) }];
    const answer = await client().completeJson(request({ check }));
    assert.deepEqual(answer, { ok: true, value: { answer: "hey" }, problems: ['answer must be "hi", not "hey".'], repaired: true });
    assert.match(server.chatRequests[1]!.messages[3]!.content, /answer must be "hi", not "yo"/);
  });

  it("model client - a 5xx is a failure at once, without a repair", async () => {
    answers = [{ status: 503, message: "overloaded" }];
    const answer = await client().completeJson(request());
    assert.equal(!answer.ok && answer.failure.kind, "unavailable");
    assert.match(!answer.ok ? answer.failure.message : "", /HTTP 503/);
    assert.equal(server.chatRequests.length, 1);
  });

  it("model client - a stalled server is a timeout within the configured limit", async () => {
    answers = [{ content: "{}", delayMs: 3000 }];
    const started = performance.now();
    const answer = await client({ timeoutMs: 200 }).completeJson(request());
    assert.equal(!answer.ok && answer.failure.kind, "timeout");
    assert.match(!answer.ok ? answer.failure.message : "", /within 200 ms/);
    assert.ok(performance.now() - started < 2500, "the client gave up before the server answered");
  });

  it("model client - auto steps down to JSON mode when the server rejects json_schema, and remembers it", async () => {
    const model = client();
    server.chat = (sent) =>
      sent.responseFormat?.type === "json_schema" ? { status: 400, message: "response_format json_schema is not supported" } : { content: JSON.stringify({ answer: "hi" }) };
    try {
      assert.equal((await model.completeJson(request())).ok, true);
      assert.equal((await model.completeJson(request())).ok, true);
    } finally {
      server.chat = () => answers.shift() ?? { status: 500, message: "script ran out" };
    }
    assert.deepEqual(
      server.chatRequests.map((r) => r.responseFormat?.type),
      ["json_schema", "json_object", "json_object"],
    );
    assert.match(server.chatRequests[1]!.messages[0]!.content, /must match this JSON schema/, "the schema is in the prompt in JSON mode");
  });

  it("model client - a fixed json_schema mode does not step down: a 400 is a failure", async () => {
    answers = [{ status: 400, message: "unsupported" }];
    const answer = await client({ outputMode: "json_schema" }).completeJson(request());
    assert.equal(!answer.ok && answer.failure.kind, "refused");
    assert.equal(server.chatRequests.length, 1);
  });

  it("model client - prompt mode sends no response_format and reads JSON out of a fenced reply", async () => {
    answers = [{ content: 'Here you go:\n```json\n{"answer": "hi"}\n```' }];
    const answer = await client({ outputMode: "prompt" }).completeJson(request());
    assert.equal(answer.ok && answer.value["answer"], "hi");
    assert.equal(server.chatRequests[0]!.responseFormat, undefined);
  });

  it("model client - a request is a CLIENT span `chat <model>` with GenAI attributes and no text, and is measured", async () => {
    await takeSpans();
    const model = { model: "scripted-chat" };
    const [calls, errors] = [await metric("switchyard_model_call_duration_seconds_count", model), await metric("switchyard_model_call_errors_total", model)];
    answers = [{ content: JSON.stringify({ answer: "reply-text-77" }) }];
    const answer = await client().completeJson(request({ system: "system-text-11", user: "user-text-42" }));
    assert.equal(answer.ok, true);

    const [span, ...more] = await takeSpans();
    assert.equal(more.length, 0);
    assert.equal(span?.name, "chat scripted-chat");
    assert.equal(span?.kind, SpanKind.CLIENT);
    assert.equal(span?.status.code, SpanStatusCode.UNSET);
    assert.deepEqual(span?.attributes, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "scripted-chat",
      "gen_ai.request.temperature": 0.15,
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(server.url).port),
      "gen_ai.response.model": "scripted-chat",
      "gen_ai.response.id": "chatcmpl-scripted-1",
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": 1,
      "gen_ai.usage.output_tokens": 1,
    });
    const recorded = JSON.stringify([span?.attributes, span?.events, span?.status]);
    for (const text of ["system-text-11", "user-text-42", "reply-text-77"]) assert.ok(!recorded.includes(text), `${text} is not on the span`);

    assert.equal(await metric("switchyard_model_call_duration_seconds_count", model), calls + 1);
    assert.equal(await metric("switchyard_model_call_errors_total", model), errors);
  });

  it("model client - a 503 is an ERROR span with error.type and counts as an unavailable error", async () => {
    await takeSpans();
    const labels = { model: "scripted-chat", kind: "unavailable" };
    const [calls, errors] = [
      await metric("switchyard_model_call_duration_seconds_count", { model: "scripted-chat" }),
      await metric("switchyard_model_call_errors_total", labels),
    ];
    answers = [{ status: 503, message: "overloaded" }];
    assert.equal((await client().completeJson(request())).ok, false);

    const [span] = await takeSpans();
    assert.equal(span?.status.code, SpanStatusCode.ERROR);
    assert.match(span?.status.message ?? "", /HTTP 503/);
    assert.equal(span?.attributes["error.type"], "unavailable");
    assert.equal(span?.attributes["http.response.status_code"], 503);
    assert.equal(span?.attributes["gen_ai.response.model"], undefined);
    assert.equal(await metric("switchyard_model_call_errors_total", labels), errors + 1);
    assert.equal(await metric("switchyard_model_call_duration_seconds_count", { model: "scripted-chat" }), calls + 1);
  });

  it("model client - a request asked again one format down is one span per request", async () => {
    await takeSpans();
    answers = [{ status: 422, message: "response_format is not supported" }, { content: JSON.stringify({ answer: "hi" }) }];
    assert.equal((await client().completeJson(request())).ok, true);
    assert.deepEqual(
      (await takeSpans()).map((span) => [span.status.code, span.attributes["error.type"]]),
      [
        [SpanStatusCode.ERROR, "refused"],
        [SpanStatusCode.UNSET, undefined],
      ],
    );
  });

  it("model client - an unreachable server is a failure, not an exception", async () => {
    const answer = await new ModelClient({ baseURL: "http://127.0.0.1:9/v1", timeoutMs: 1000 }).completeJson(request());
    assert.equal(!answer.ok && answer.failure.kind, "unavailable");
  });
});

describe("model client settings", () => {
  it("model client - no model set: no client, the stage keeps its heuristic", () => {
    assert.equal(modelClientFor(llmDefaults, ""), undefined);
    assert.equal(modelClientFor(llmDefaults, "  "), undefined);
    assert.ok(modelClientFor({ ...llmDefaults, LLM_BASE_URL: "http://127.0.0.1:11434/v1" }, "qwen2.5") instanceof ModelClient);
  });
});

describe("parse JSON reply", () => {
  const cases: [string, string | null, boolean][] = [
    ["bare object", '{"a":1}', true],
    ["fenced object", '```json\n{"a":1}\n```', true],
    ["object after prose", 'Sure! {"a": {"b": 2}} Hope that helps.', true],
    ["empty", "", false],
    ["null content", null, false],
    ["array", "[1, 2]", false],
    ["broken", '{"a": }', false],
  ];
  for (const [name, text, ok] of cases) {
    it(`parse JSON reply - ${name}`, () => {
      assert.equal(parseJsonReply(text).ok, ok);
    });
  }
});
