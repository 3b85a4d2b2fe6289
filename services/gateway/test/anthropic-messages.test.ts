import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, ToolUnion } from "@anthropic-ai/sdk/resources/messages";
import { startScriptedAnthropicServer } from "@switchyard/test-fixtures";
import type { MessagesAnswer, ScriptedAnthropicServer } from "@switchyard/test-fixtures";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { TOOLS_HEADER, UNOFFERED_HEADER } from "../src/shared/model-api/model-upstream.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";
import { serveAnthropic } from "./test-servers.js";

const KEY = "key-of-tenant-a-0123456789";
const auth = apiKeyAuthenticator(new Map([[KEY, "a"]]));
const TOP_K = 4;
const limits = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth };
const schema = { type: "object" as const, properties: {} };

/** 200 tools: one for the weather among 198 others and the catalog's core tool core_clarify; and the provider's web search. */
const TOOLS: ToolUnion[] = [
  { name: "weather_forecast", description: "Weather forecast for a city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
  { name: "core_clarify", description: "Ask the user a question", input_schema: schema },
  ...Array.from({ length: 198 }, (_, i) => ({ name: `ledger_${i}`, description: `Post entry ${i} to ledger book ${i % 7}`, input_schema: schema })),
  { type: "web_search_20250305", name: "web_search" },
];

const messages: MessageParam[] = [
  { role: "user", content: "hello" },
  { role: "assistant", content: "Hi! How can I help?" },
  { role: "user", content: "What is the weather forecast in Paris tomorrow?" },
];

describe("gateway anthropic messages - POST /v1/messages with the @anthropic-ai/sdk client", () => {
  let upstream: ScriptedAnthropicServer;
  let app: ReturnType<typeof buildApp>;
  let client: Anthropic;
  let deps: InMemoryGatewayDeps;
  let answer: MessagesAnswer = { text: "It will rain in Paris." };

  before(async () => {
    upstream = await startScriptedAnthropicServer(() => answer);
    deps = new InMemoryGatewayDeps();
    app = buildApp(deps, {
      ...limits,
      proxy: { baseUrl: "", apiKey: "", anthropicBaseUrl: upstream.url, anthropicApiKey: "upstream-anthropic-key", topK: TOP_K, timeoutMs: 5000 },
    });
    client = await serveAnthropic(app, KEY);
  });
  after(async () => {
    await app?.close();
    await upstream?.close();
  });

  it("gateway anthropic messages - 200 tools: the upstream gets the routed best, the core tool and the provider's tool; the answer comes back byte for byte", async () => {
    answer = { text: "It will rain in Paris." };
    const response = await client.messages.create({ model: "claude-test", max_tokens: 100, messages, tools: TOOLS }).asResponse();
    const sent = upstream.requests.at(-1)!;
    assert.ok(sent.tools.length <= TOP_K + 2, sent.tools.join(", "));
    for (const name of ["weather_forecast", "core_clarify", "web_search"]) assert.ok(sent.tools.includes(name), `${name} in ${sent.tools.join(", ")}`);
    assert.equal(sent.apiKey, "upstream-anthropic-key", "the upstream key, never the caller's");
    assert.equal(sent.authorization, undefined, "the caller's bearer key stays at the gateway");
    assert.match(sent.version ?? "", /^\d{4}-\d\d-\d\d$/, "the client's API version goes on");
    assert.equal(response.headers.get(TOOLS_HEADER), `201->${sent.tools.length}`);
    assert.equal(await response.text(), upstream.answers.at(-1));
    const routed = deps.ranked.at(-1)!;
    assert.equal(routed.message, "What is the weather forecast in Paris tomorrow?");
    assert.deepEqual(routed.history.map((t) => t.content), ["hello", "Hi! How can I help?"]);
    assert.equal(routed.tools.length, 200, "the provider's own tool is not routed");

    const message = await client.messages.create({ model: "claude-test", max_tokens: 100, messages, tools: TOOLS });
    assert.equal(message.content[0]?.type === "text" && message.content[0].text, "It will rain in Paris.");
  });

  it("gateway anthropic messages - streaming: .stream() and stream: true get the upstream's events as they were sent", async () => {
    answer = { text: "Rain all day in Paris.", toolUses: [{ name: "weather_forecast", input: { city: "Paris" } }] };
    const stream = client.messages.stream({ model: "claude-test", max_tokens: 100, messages, tools: TOOLS });
    const final = await stream.finalMessage();
    assert.equal(final.content[0]?.type === "text" && final.content[0].text, "Rain all day in Paris.");
    assert.deepEqual(final.content[1]?.type === "tool_use" && [final.content[1].name, final.content[1].input], ["weather_forecast", { city: "Paris" }]);
    assert.equal(upstream.requests.at(-1)!.stream, true);
    assert.ok(upstream.requests.at(-1)!.tools.length <= TOP_K + 2);

    const raw = await client.messages.create({ model: "claude-test", max_tokens: 100, messages, tools: TOOLS, stream: true }).asResponse();
    assert.match(raw.headers.get("content-type") ?? "", /text\/event-stream/);
    assert.equal(await raw.text(), upstream.answers.at(-1));
  });

  it("gateway anthropic messages - tool_choice and the tools used in the conversation stay; a tool_use for a tool not offered is flagged", async () => {
    answer = { text: "", toolUses: [{ name: "ledger_150", input: {} }] };
    const used: MessageParam[] = [
      { role: "user", content: "What is the weather forecast in Paris tomorrow?" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "ledger_3", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "posted" }] },
    ];
    const { data, response } = await client.messages
      .create({ model: "claude-test", max_tokens: 100, messages: used, tools: TOOLS, tool_choice: { type: "tool", name: "ledger_7" } })
      .withResponse();
    const sent = upstream.requests.at(-1)!;
    assert.ok(sent.tools.includes("ledger_7") && sent.tools.includes("ledger_3"), sent.tools.join(", "));
    assert.equal(deps.ranked.at(-1)!.message, "What is the weather forecast in Paris tomorrow?", "routed on the user's text, not the tool result");
    assert.equal(response.headers.get(UNOFFERED_HEADER), "ledger_150");
    assert.equal(data.content[1]?.type === "tool_use" && data.content[1].name, "ledger_150", "the answer itself is unchanged");
  });

  it("gateway anthropic messages - defer_loading: a deferred tool goes upstream only when routing picks it, then not deferred", async () => {
    answer = { text: "ok" };
    const tools: ToolUnion[] = [
      { name: "alpha_tool", description: "Alpha things", input_schema: schema },
      { name: "beta_tool", description: "Beta things", input_schema: schema },
      { name: "weather_forecast", description: "Weather forecast for a city", input_schema: schema, defer_loading: true },
      { name: "ledger_1", description: "Post entry 1 to ledger book 1", input_schema: schema, defer_loading: true },
    ];
    const response = await client.messages.create({ model: "claude-test", max_tokens: 100, messages, tools }).asResponse();
    const sent = upstream.requests.at(-1)!;
    assert.deepEqual(sent.tools, ["alpha_tool", "beta_tool", "weather_forecast"]);
    assert.equal(sent.toolEntries[2]!["defer_loading"], undefined, "routing picked it: the model sees it");
    assert.equal(response.headers.get(TOOLS_HEADER), "4->3");
  });

  it("gateway anthropic messages - a bad request is a 400 in Anthropic's shape naming the field; no key is 401", async () => {
    await assert.rejects(client.messages.create({ model: "m", max_tokens: 10, messages: [] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.equal((error.error as { type?: string }).type, "error");
      assert.match(error.message, /messages/);
      return true;
    });
    const anonymous = new Anthropic({ apiKey: "sk-ant-not-a-switchyard-key", baseURL: client.baseURL, maxRetries: 0 });
    await assert.rejects(anonymous.messages.create({ model: "m", max_tokens: 10, messages }), (error: unknown) => error instanceof Anthropic.AuthenticationError);
  });
});

describe("gateway anthropic messages - the upstream", () => {
  it("gateway anthropic messages - without ANTHROPIC_BASE_URL or ANTHROPIC_API_KEY the door answers 503 naming them", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), { ...limits, proxy: { baseUrl: "http://127.0.0.1:9/v1", apiKey: "", topK: TOP_K, timeoutMs: 2000 } });
    const client = await serveAnthropic(app, KEY);
    try {
      await assert.rejects(client.messages.create({ model: "m", max_tokens: 10, messages, tools: TOOLS }), (error: unknown) => {
        assert.ok(error instanceof Anthropic.APIError && error.status === 503, String(error));
        assert.match(error.message, /ANTHROPIC_BASE_URL/);
        return true;
      });
    } finally {
      await app.close();
    }
  });

  it("gateway anthropic messages - an upstream that does not answer is a 502", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), { ...limits, proxy: { baseUrl: "", apiKey: "", anthropicBaseUrl: "http://127.0.0.1:9", topK: TOP_K, timeoutMs: 2000 } });
    const client = await serveAnthropic(app, KEY);
    try {
      await assert.rejects(client.messages.create({ model: "m", max_tokens: 10, messages }), (error: unknown) => error instanceof Anthropic.APIError && error.status === 502);
    } finally {
      await app.close();
    }
  });
});
