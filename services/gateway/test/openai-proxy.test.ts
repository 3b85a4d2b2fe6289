import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import OpenAI from "openai";
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { TOOLS_HEADER, UNOFFERED_HEADER } from "../src/shared/model-api/model-upstream.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";
import { serveOpenAi } from "./test-servers.js";

const KEY = "key-of-tenant-a-0123456789";
const auth = apiKeyAuthenticator(new Map([[KEY, "a"]]));
const TOP_K = 4;

/** 200 tools: one for the weather among 199 others, and the catalog's core tool core.clarify under its client-safe name. */
const TOOLS = [
  { type: "function" as const, function: { name: "weather_forecast", description: "Weather forecast for a city", parameters: { type: "object", properties: { city: { type: "string" } } } } },
  { type: "function" as const, function: { name: "core_clarify", description: "Ask the user a question" } },
  ...Array.from({ length: 198 }, (_, i) => ({
    type: "function" as const,
    function: { name: `ledger_${i}`, description: `Post entry ${i} to ledger book ${i % 7}`, parameters: { type: "object", properties: {} } },
  })),
];

describe("gateway openai proxy - POST /v1/chat/completions with the openai client", () => {
  let upstream: ScriptedOpenAIServer;
  let app: ReturnType<typeof buildApp>;
  let client: OpenAI;
  let deps: InMemoryGatewayDeps;
  let answer: ChatAnswer = { content: "It will rain in Paris." };

  before(async () => {
    upstream = await startScriptedOpenAIServer({ chat: () => answer });
    deps = new InMemoryGatewayDeps();
    app = buildApp(deps, {
      bodyLimitBytes: 1048576,
      maxMessageChars: 32768,
      maxHistoryTurns: 50,
      auth,
      proxy: { baseUrl: upstream.url, apiKey: "upstream-key", topK: TOP_K, timeoutMs: 5000 },
    });
    client = await serveOpenAi(app, KEY);
  });
  after(async () => {
    await app?.close();
    await upstream?.close();
  });

  const messages = [
    { role: "user" as const, content: "hello" },
    { role: "assistant" as const, content: "Hi! How can I help?" },
    { role: "user" as const, content: "What is the weather forecast in Paris tomorrow?" },
  ];

  it("gateway openai proxy - 200 tools: the upstream model gets the routed best and the core tool, the answer comes back unchanged", async () => {
    answer = { content: "It will rain in Paris." };
    const { data, response } = await client.chat.completions.create({ model: "gpt-test", messages, tools: TOOLS }).withResponse();
    const sent = upstream.chatRequests.at(-1)!;
    assert.ok(sent.tools.length <= TOP_K + 1, sent.tools.join(", "));
    assert.ok(sent.tools.includes("weather_forecast") && sent.tools.includes("core_clarify"), sent.tools.join(", "));
    assert.equal(sent.authorization, "Bearer upstream-key", "the upstream key, never the caller's");
    assert.equal(sent.model, "gpt-test");
    assert.equal(response.headers.get(TOOLS_HEADER), `200->${sent.tools.length}`);
    assert.equal(data.choices[0]!.message.content, "It will rain in Paris.");
    assert.equal(data.id, `chatcmpl-scripted-${upstream.chatRequests.length}`);
    const routed = deps.ranked.at(-1)!;
    assert.equal(routed.message, "What is the weather forecast in Paris tomorrow?");
    assert.deepEqual(routed.history.map((t) => t.content), ["hello", "Hi! How can I help?"]);
  });

  it("gateway openai proxy - stream: true comes back as the upstream's chunks", async () => {
    answer = { content: "Rain all day in Paris." };
    const stream = await client.chat.completions.create({ model: "gpt-test", messages, tools: TOOLS, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    assert.equal(text, "Rain all day in Paris.");
    assert.equal(upstream.chatRequests.at(-1)!.stream, true);
    assert.ok(upstream.chatRequests.at(-1)!.tools.length <= TOP_K + 1);
  });

  it("gateway openai proxy - tool_choice keeps its tool; a call to a tool not offered is flagged", async () => {
    answer = { content: "", toolCalls: [{ name: "ledger_150", arguments: "{}" }] };
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-test", messages, tools: TOOLS, tool_choice: { type: "function", function: { name: "ledger_7" } } })
      .withResponse();
    const sent = upstream.chatRequests.at(-1)!;
    assert.ok(sent.tools.includes("ledger_7"), sent.tools.join(", "));
    assert.equal(response.headers.get(UNOFFERED_HEADER), "ledger_150");
    assert.equal(data.choices[0]!.message.tool_calls?.[0]?.type === "function" && data.choices[0]!.message.tool_calls[0].function.name, "ledger_150", "the answer itself is unchanged");
  });

  it("gateway openai proxy - defer_loading: a deferred tool goes upstream only when routing picks it, then not deferred", async () => {
    answer = { content: "ok" };
    const plain = (name: string, description: string) => ({ type: "function" as const, function: { name, description } });
    const tools = [
      plain("alpha_tool", "Alpha things"),
      plain("beta_tool", "Beta things"),
      { ...plain("weather_forecast", "Weather forecast for a city"), defer_loading: true },
      { type: "function" as const, function: { name: "ledger_1", description: "Post entry 1 to ledger book 1", defer_loading: true } },
    ];
    const { response } = await client.chat.completions.create({ model: "m", messages, tools }).withResponse();
    assert.deepEqual(upstream.chatRequests.at(-1)!.tools, ["alpha_tool", "beta_tool", "weather_forecast"]);
    assert.equal(response.headers.get(TOOLS_HEADER), "4->3");
  });

  it("gateway openai proxy - few tools go through untrimmed; a request without tools too", async () => {
    answer = { content: "ok" };
    const { response } = await client.chat.completions.create({ model: "m", messages, tools: TOOLS.slice(0, 3) }).withResponse();
    assert.equal(response.headers.get(TOOLS_HEADER), "3->3");
    assert.deepEqual(upstream.chatRequests.at(-1)!.tools, TOOLS.slice(0, 3).map((t) => t.function.name));
    await client.chat.completions.create({ model: "m", messages });
    assert.deepEqual(upstream.chatRequests.at(-1)!.tools, []);
  });

  it("gateway openai proxy - a bad request is a 400 naming the field; no key is 401; the upstream away is 502", async () => {
    await assert.rejects(client.chat.completions.create({ model: "m", messages: [] }), (error: unknown) => {
      assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
      assert.match(error.message, /messages/);
      return true;
    });
    const anonymous = new OpenAI({ apiKey: "not-a-key-0123456789abc", baseURL: client.baseURL, maxRetries: 0 });
    await assert.rejects(anonymous.chat.completions.create({ model: "m", messages }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 401);

    const down = buildApp(new InMemoryGatewayDeps(), {
      bodyLimitBytes: 1048576,
      maxMessageChars: 32768,
      maxHistoryTurns: 50,
      auth,
      proxy: { baseUrl: "http://127.0.0.1:9/v1", apiKey: "", topK: TOP_K, timeoutMs: 2000 },
    });
    const res = await down.inject({ method: "POST", url: "/v1/chat/completions", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, payload: { model: "m", messages } });
    assert.equal(res.statusCode, 502, res.body);
    assert.match(res.json().error.message, /upstream model/);
  });
});

describe("gateway openai proxy - the limits of every door", () => {
  it("gateway openai proxy - a tool schema nested past 32 levels or a lone surrogate is a 400 naming the field, before anything goes upstream", async () => {
    const upstream = await startScriptedOpenAIServer({ chat: () => ({ content: "ok" }) });
    const app = buildApp(new InMemoryGatewayDeps(), { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth, proxy: { baseUrl: upstream.url, apiKey: "", topK: TOP_K, timeoutMs: 5000 } });
    const client = await serveOpenAi(app, KEY);
    try {
      let parameters: Record<string, unknown> = { type: "string" };
      for (let i = 0; i < 40; i++) parameters = { type: "object", properties: { a: parameters } };
      const deep = [{ type: "function" as const, function: { name: "deep", parameters } }];
      await assert.rejects(client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], tools: deep }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
        assert.match(String((error.error as { param?: string }).param), /^tools\/0\/function\/parameters\//);
        assert.match(error.message, /nested deeper than 32 levels/);
        return true;
      });
      await assert.rejects(client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "read \ud800 notes" }] }), (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
        assert.equal((error.error as { param?: string }).param, "messages/0/content");
        assert.match(error.message, /lone surrogate/);
        return true;
      });
      assert.equal(upstream.chatRequests.length, 0, "nothing went upstream");
    } finally {
      await app.close();
      await upstream.close();
    }
  });

  it("gateway openai proxy - a user message over MAX_MESSAGE_CHARS is a 400 naming it; history routes on the latest MAX_HISTORY_TURNS turns", async () => {
    const upstream = await startScriptedOpenAIServer({ chat: () => ({ content: "ok" }) });
    const deps = new InMemoryGatewayDeps();
    const app = buildApp(deps, {
      bodyLimitBytes: 1048576,
      maxMessageChars: 1000,
      maxHistoryTurns: 2,
      auth,
      proxy: { baseUrl: upstream.url, apiKey: "", topK: TOP_K, timeoutMs: 5000 },
    });
    const client = await serveOpenAi(app, KEY);
    try {
      for (const tools of [TOOLS, TOOLS.slice(0, 2)]) {
        await assert.rejects(client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x".repeat(50_000) }], tools }), (error: unknown) => {
          assert.ok(error instanceof OpenAI.APIError && error.status === 400, String(error));
          assert.equal((error.error as { param?: string }).param, "messages/0/content");
          assert.match(error.message, /body\/messages\/0\/content must not have more than 1000 characters$/);
          return true;
        });
      }
      assert.equal(upstream.chatRequests.length, 0, "nothing went upstream");
      // The words of the HTTP door for its message.
      const http = await app.inject({ method: "POST", url: "/v1/packets", headers: { authorization: `Bearer ${KEY}` }, payload: { message: "x".repeat(50_000) } });
      assert.deepEqual([http.statusCode, http.json().message], [400, "body/message must not have more than 1000 characters"]);
      const turns = ["one", "two", "three", "four"].map((content, i) => ({ role: i % 2 === 0 ? ("user" as const) : ("assistant" as const), content }));
      await client.chat.completions.create({ model: "m", messages: [...turns, { role: "user", content: "weather in Paris?" }], tools: TOOLS });
      assert.deepEqual(deps.ranked.at(-1)!.history.map((t) => t.content), ["three", "four"]);
    } finally {
      await app.close();
      await upstream.close();
    }
  });

  it("gateway openai proxy - a streaming client that goes away aborts the upstream request", async () => {
    // An upstream that sends one event and then holds the stream open, noting when its request is closed.
    let closed: () => void = () => undefined;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    const upstream = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write('data: {"choices":[{"delta":{"content":"thinking"}}]}\n\n');
      response.on("close", () => closed());
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const upstreamPort = (upstream.address() as { port: number }).port;
    const app = buildApp(new InMemoryGatewayDeps(), {
      bodyLimitBytes: 1048576,
      maxMessageChars: 32768,
      maxHistoryTurns: 50,
      auth,
      proxy: { baseUrl: `http://127.0.0.1:${upstreamPort}/v1`, apiKey: "", topK: TOP_K, timeoutMs: 60_000 },
    });
    const client = await serveOpenAi(app, KEY);
    try {
      const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true });
      const [first] = await Promise.all([stream[Symbol.asyncIterator]().next()]);
      assert.equal(first.value?.choices[0]?.delta.content, "thinking");
      // The client leaves after its first event.
      stream.controller.abort();
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 5000).unref());
      assert.equal(await Promise.race([upstreamClosed.then(() => "closed"), timeout]), "closed", "the upstream request was aborted");
    } finally {
      await app.close();
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});
