import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { FunctionTool, Tool } from "openai/resources/responses/responses";
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ResponsesAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { buildApp } from "../src/app.js";
import { apiKeyAuthenticator } from "../src/shared/auth.js";
import { TOOLS_HEADER, UNOFFERED_HEADER } from "../src/shared/model-api/model-upstream.js";
import { InMemoryGatewayDeps } from "./in-memory-deps.js";
import { serveOpenAi } from "./test-servers.js";

const KEY = "key-of-tenant-a-0123456789";
const auth = apiKeyAuthenticator(new Map([[KEY, "a"]]));
const TOP_K = 4;
const limits = { bodyLimitBytes: 1048576, maxMessageChars: 32768, maxHistoryTurns: 50, auth };

function fn(name: string, description: string, extra: Partial<FunctionTool> = {}): FunctionTool {
  return { type: "function", name, description, parameters: { type: "object", properties: {} }, strict: false, ...extra };
}

/** 200 function tools (the weather's, the core tool core_clarify, 198 others) and the provider's web search. */
const TOOLS: Tool[] = [
  fn("weather_forecast", "Weather forecast for a city"),
  fn("core_clarify", "Ask the user a question"),
  ...Array.from({ length: 198 }, (_, i) => fn(`ledger_${i}`, `Post entry ${i} to ledger book ${i % 7}`)),
  { type: "web_search" },
];
const ASK = "What is the weather forecast in Paris tomorrow?";

describe("gateway openai responses - POST /v1/responses with the openai client", () => {
  let upstream: ScriptedOpenAIServer;
  let app: ReturnType<typeof buildApp>;
  let client: OpenAI;
  let deps: InMemoryGatewayDeps;
  let answer: ResponsesAnswer = { text: "It will rain in Paris." };

  before(async () => {
    upstream = await startScriptedOpenAIServer({ responses: () => answer });
    deps = new InMemoryGatewayDeps();
    app = buildApp(deps, { ...limits, proxy: { baseUrl: upstream.url, apiKey: "upstream-key", topK: TOP_K, timeoutMs: 5000 } });
    client = await serveOpenAi(app, KEY);
  });
  after(async () => {
    await app?.close();
    await upstream?.close();
  });

  it("gateway openai responses - 200 tools: the upstream gets the routed best, the core tool and the provider's tool; the answer comes back byte for byte", async () => {
    answer = { text: "It will rain in Paris." };
    const response = await client.responses.create({ model: "gpt-test", input: ASK, tools: TOOLS }).asResponse();
    const sent = upstream.responsesRequests.at(-1)!;
    assert.ok(sent.tools.length <= TOP_K + 1, sent.tools.join(", "));
    assert.ok(sent.tools.includes("weather_forecast") && sent.tools.includes("core_clarify"), sent.tools.join(", "));
    assert.ok(sent.toolEntries.some((t) => t["type"] === "web_search"), "the provider's tool goes as it came");
    assert.equal(sent.authorization, "Bearer upstream-key", "the upstream key, never the caller's");
    assert.equal(response.headers.get(TOOLS_HEADER), `201->${sent.tools.length + 1}`);
    assert.equal(await response.text(), upstream.responsesAnswers.at(-1));
    assert.equal(deps.ranked.at(-1)!.message, ASK);

    const parsed = await client.responses.create({ model: "gpt-test", input: ASK, tools: TOOLS });
    assert.equal(parsed.output_text, "It will rain in Paris.");
  });

  it("gateway openai responses - stream: true comes back as the upstream's events, byte for byte", async () => {
    answer = { text: "Rain all day in Paris." };
    const stream = await client.responses.create({ model: "gpt-test", input: ASK, tools: TOOLS, stream: true });
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    assert.equal(text, "Rain all day in Paris.");
    assert.equal(upstream.responsesRequests.at(-1)!.stream, true);
    assert.ok(upstream.responsesRequests.at(-1)!.tools.length <= TOP_K + 1);

    const raw = await client.responses.create({ model: "gpt-test", input: ASK, tools: TOOLS, stream: true }).asResponse();
    assert.equal(await raw.text(), upstream.responsesAnswers.at(-1));
  });

  it("gateway openai responses - previous_response_id: tool results go on with the same tools; a new turn keeps the tools used", async () => {
    answer = { text: "", functionCalls: [{ name: "weather_forecast", arguments: '{"city":"Paris"}' }] };
    const first = await client.responses.create({ model: "gpt-test", input: ASK, tools: TOOLS });
    const offered = upstream.responsesRequests.at(-1)!.tools;
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call?.type === "function_call");

    // Only the tool's result: no new user turn, so the turn's tools go on, unrouted (streamed, remembered from response.completed).
    answer = { text: "Rain in Paris tomorrow." };
    const ranked = deps.ranked.length;
    const stream = await client.responses.create({
      model: "gpt-test",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "rain" }],
      tools: TOOLS,
      stream: true,
    });
    let second = "";
    for await (const event of stream) if (event.type === "response.completed") second = event.response.id;
    assert.deepEqual(upstream.responsesRequests.at(-1)!.tools, offered);
    assert.equal(deps.ranked.length, ranked, "nothing routed");

    // A new user turn about the ledger: routed anew, and the weather tool the conversation used stays.
    answer = { text: "Posted." };
    await client.responses.create({ model: "gpt-test", previous_response_id: second, input: "Post entry 5 to ledger book 5", tools: TOOLS });
    const sent = upstream.responsesRequests.at(-1)!.tools;
    assert.ok(sent.some((name) => name.startsWith("ledger_")) && sent.includes("weather_forecast"), sent.join(", "));
    assert.equal(deps.ranked.at(-1)!.message, "Post entry 5 to ledger book 5");

    // Another tenant's request naming the same response finds nothing of it.
    assert.deepEqual(await deps.sessionTools("b", `responses/used/${second}`), []);
  });

  it("gateway openai responses - defer_loading: a deferred tool goes upstream only when routing picks it; a call to a tool not offered is flagged", async () => {
    answer = { text: "", functionCalls: [{ name: "ledger_1", arguments: "{}" }] };
    const tools = [
      fn("alpha_tool", "Alpha things"),
      fn("beta_tool", "Beta things"),
      fn("weather_forecast", "Weather forecast for a city", { defer_loading: true }),
      fn("ledger_1", "Post entry 1 to ledger book 1", { defer_loading: true }),
    ];
    const { data, response } = await client.responses.create({ model: "gpt-test", input: ASK, tools }).withResponse();
    const sent = upstream.responsesRequests.at(-1)!;
    assert.deepEqual(sent.tools, ["alpha_tool", "beta_tool", "weather_forecast"]);
    assert.equal(sent.toolEntries[2]!["defer_loading"], undefined, "routing picked it: the model sees it");
    assert.equal(response.headers.get(UNOFFERED_HEADER), "ledger_1");
    assert.equal(data.output[1]?.type === "function_call" && data.output[1].name, "ledger_1", "the answer itself is unchanged");
  });

  it("gateway openai responses - a function tool without a name is a 400 naming it; no key is 401", async () => {
    const res = await app.inject({
      method: "POST",
      url: "/v1/responses",
      headers: { authorization: `Bearer ${KEY}` },
      payload: { model: "m", input: "hi", tools: [{ type: "function", parameters: {} }] },
    });
    assert.deepEqual([res.statusCode, res.json().error.param], [400, "tools/0/name"]);
    const anonymous = new OpenAI({ apiKey: "not-a-key-0123456789abc", baseURL: client.baseURL, maxRetries: 0 });
    await assert.rejects(anonymous.responses.create({ model: "m", input: "hi" }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 401);
  });
});

describe("gateway openai responses - the upstream", () => {
  it("gateway openai responses - without LLM_BASE_URL or LLM_API_KEY the responses and chat doors answer 503 naming them", async () => {
    const app = buildApp(new InMemoryGatewayDeps(), { ...limits, proxy: { baseUrl: "", apiKey: "", anthropicBaseUrl: "http://127.0.0.1:9", topK: TOP_K, timeoutMs: 2000 } });
    const client = await serveOpenAi(app, KEY);
    try {
      const refused = (error: unknown) => {
        assert.ok(error instanceof OpenAI.APIError && error.status === 503, String(error));
        assert.match(error.message, /LLM_BASE_URL/);
        return true;
      };
      await assert.rejects(client.responses.create({ model: "m", input: ASK, tools: TOOLS }), refused);
      await assert.rejects(client.chat.completions.create({ model: "m", messages: [{ role: "user", content: ASK }] }), refused);
    } finally {
      await app.close();
    }
  });
});
