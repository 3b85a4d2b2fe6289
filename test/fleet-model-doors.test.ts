import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import type { Tool as AnthropicTool } from "@anthropic-ai/sdk/resources/messages";
import OpenAI from "openai";
import type { FunctionTool } from "openai/resources/responses/responses";
import { startFleet } from "@switchyard/fleet";
import { mcpTools, startScriptedAnthropicServer, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { MessagesAnswer, ResponsesAnswer, ScriptedAnthropicServer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const TOP_K = 5;
const KEY = "switchyard-key-of-tenant-a-0123";
const CALLERS_OWN_KEY = "sk-callers-own-provider-key";

/** 200 tools as an agent would send them: the MCP servers' own, then a long tail of others. */
const REAL = (["filesystem", "memory", "everything"] as const).flatMap((server) =>
  mcpTools(server).map((tool) => ({ name: `${server}_${tool.name}`, description: tool.description ?? "", schema: tool.inputSchema as Record<string, unknown> })),
);
const ALL = [
  ...REAL,
  ...Array.from({ length: 200 - REAL.length }, (_, i) => ({
    name: `crm_record_${i}`,
    description: `Update customer record ${i} in the sales pipeline`,
    schema: { type: "object", properties: {} } as Record<string, unknown>,
  })),
];
const ANTHROPIC_TOOLS: AnthropicTool[] = ALL.map((t) => ({ name: t.name, description: t.description, input_schema: { type: "object", ...t.schema } }));
const RESPONSES_TOOLS: FunctionTool[] = ALL.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.schema, strict: false }));
const ASK = "read the file notes/todo.md and tell me what is left to do";

describe("fleet model doors - the @anthropic-ai/sdk and openai clients through /v1/messages and /v1/responses, tools ranked by the embedding-router", { skip }, () => {
  let t: TestFleet;
  let anthropicUpstream: ScriptedAnthropicServer;
  let openaiUpstream: ScriptedOpenAIServer;
  let claude: Anthropic;
  let openai: OpenAI;
  let message: MessagesAnswer = { text: "" };
  let response: ResponsesAnswer = { text: "" };
  /** The request's tools that are the catalog's core tools ("memory.search_nodes" → memory_search_nodes): kept besides the K best. */
  let core: string[] = [];

  before(async () => {
    anthropicUpstream = await startScriptedAnthropicServer(() => message);
    openaiUpstream = await startScriptedOpenAIServer({ responses: () => response });
    t = await startTestFleet({
      serviceEnv: {
        gateway: {
          API_KEYS: `${KEY}:a`,
          PROXY_TOP_K: String(TOP_K),
          LLM_BASE_URL: openaiUpstream.url,
          LLM_API_KEY: "sk-upstream-openai",
          ANTHROPIC_BASE_URL: anthropicUpstream.url,
          ANTHROPIC_API_KEY: "sk-ant-upstream",
        },
      },
    });
    claude = new Anthropic({ authToken: KEY, defaultHeaders: { "x-api-key": CALLERS_OWN_KEY }, baseURL: t.url, maxRetries: 0 });
    openai = new OpenAI({ apiKey: KEY, baseURL: `${t.url}/v1`, maxRetries: 0 });
    const catalog = (await t.get("/v1/tools", { authorization: `Bearer ${KEY}` })).json.tools as { name: string; core?: boolean }[];
    const names = new Set(ALL.map((tool) => tool.name));
    core = catalog.filter((tool) => tool.core).map((tool) => tool.name.replace(".", "_")).filter((name) => names.has(name));
  });
  after(async () => {
    await t?.close();
    await anthropicUpstream?.close();
    await openaiUpstream?.close();
  });

  /** The upstream got at most K routed tools besides the core ones, the file reader among them. */
  const trimmed = (sent: readonly string[]) => {
    assert.ok(sent.filter((name) => !core.includes(name)).length <= TOP_K, sent.join(", "));
    for (const name of core) assert.ok(sent.includes(name), `core tool ${name} kept`);
    assert.ok(sent.includes("filesystem_read_text_file"), sent.join(", "));
  };

  it("fleet model doors - the gateway's ready line names each model door's upstream", () => {
    assert.deepEqual(t.fleet.processes.get("gateway")!.ready["modelDoors"], {
      "/v1/chat/completions": `${openaiUpstream.url}/chat/completions`,
      "/v1/responses": `${openaiUpstream.url}/responses`,
      "/v1/messages": `${anthropicUpstream.url}/v1/messages`,
    });
  });

  it("fleet model doors - messages.create: 200 tools trimmed, the upstream's key and not the caller's, the answer byte for byte", async () => {
    assert.equal(ANTHROPIC_TOOLS.length, 200);
    message = { text: "", toolUses: [{ name: "filesystem_read_text_file", input: { path: "notes/todo.md" } }] };
    const raw = await claude.messages.create({ model: "claude-agent", max_tokens: 512, messages: [{ role: "user", content: ASK }], tools: ANTHROPIC_TOOLS }).asResponse();
    const sent = anthropicUpstream.requests.at(-1)!;
    trimmed(sent.tools);
    assert.equal(sent.apiKey, "sk-ant-upstream");
    assert.equal(sent.authorization, undefined);
    assert.equal(raw.headers.get("x-switchyard-tools"), `200->${sent.tools.length}`);
    assert.equal(await raw.text(), anthropicUpstream.answers.at(-1));
  });

  it("fleet model doors - messages.stream: the events come through as the upstream sent them", async () => {
    message = { text: "Two things are left to do." };
    const final = await claude.messages.stream({ model: "claude-agent", max_tokens: 512, messages: [{ role: "user", content: ASK }], tools: ANTHROPIC_TOOLS }).finalMessage();
    assert.equal(final.content[0]?.type === "text" && final.content[0].text, "Two things are left to do.");
    assert.equal(anthropicUpstream.requests.at(-1)!.stream, true);
    trimmed(anthropicUpstream.requests.at(-1)!.tools);
  });

  it("fleet model doors - responses.create, streamed and not: 200 tools trimmed, the caller's key stays, the answer byte for byte", async () => {
    response = { text: "", functionCalls: [{ name: "filesystem_read_text_file", arguments: '{"path":"notes/todo.md"}' }] };
    const raw = await openai.responses.create({ model: "gpt-agent", input: ASK, tools: RESPONSES_TOOLS }).asResponse();
    const sent = openaiUpstream.responsesRequests.at(-1)!;
    trimmed(sent.tools);
    assert.equal(sent.authorization, "Bearer sk-upstream-openai");
    assert.equal(await raw.text(), openaiUpstream.responsesAnswers.at(-1));

    response = { text: "Two things are left to do." };
    const stream = await openai.responses.create({ model: "gpt-agent", input: ASK, tools: RESPONSES_TOOLS, stream: true });
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    assert.equal(text, "Two things are left to do.");
    trimmed(openaiUpstream.responsesRequests.at(-1)!.tools);
  });

  it("fleet model doors - previous_response_id: the tool the conversation used stays offered on its next turn", async () => {
    response = { text: "", functionCalls: [{ name: "crm_record_7", arguments: "{}" }] };
    const first = await openai.responses.create({ model: "gpt-agent", input: "update customer record 7 in the sales pipeline", tools: RESPONSES_TOOLS });
    response = { text: "Done." };
    await openai.responses.create({ model: "gpt-agent", previous_response_id: first.id, input: ASK, tools: RESPONSES_TOOLS });
    const sent = openaiUpstream.responsesRequests.at(-1)!.tools;
    assert.ok(sent.includes("crm_record_7") && sent.includes("filesystem_read_text_file"), sent.join(", "));
  });

  it("fleet model doors - defer_loading: a deferred tool goes upstream only when routing picks it, on both doors", async () => {
    // Three tools always offered; the other 197 and one more CRM tool deferred to routing.
    const plain = ANTHROPIC_TOOLS.slice(200 - 3);
    const deferred = [...ANTHROPIC_TOOLS.slice(0, 200 - 3), { name: "crm_archive", description: "Archive a customer record in the sales pipeline", input_schema: { type: "object" as const } }];
    const tools: AnthropicTool[] = [...plain, ...deferred.map((tool) => ({ ...tool, defer_loading: true }))];
    const honoured = (sent: readonly string[]) => {
      for (const tool of plain) assert.ok(sent.includes(tool.name), `${tool.name} offered: ${sent.join(", ")}`);
      assert.ok(sent.includes("filesystem_read_text_file") && !sent.includes("crm_archive"), sent.join(", "));
      assert.ok(sent.length <= plain.length + TOP_K, sent.join(", "));
    };
    message = { text: "ok" };
    await claude.messages.create({ model: "claude-agent", max_tokens: 64, messages: [{ role: "user", content: ASK }], tools });
    const sent = anthropicUpstream.requests.at(-1)!;
    honoured(sent.tools);
    assert.equal(sent.toolEntries.find((tool) => tool["name"] === "filesystem_read_text_file")!["defer_loading"], undefined, "routing picked it: the model sees it");

    response = { text: "ok" };
    await openai.responses.create({ model: "gpt-agent", input: ASK, tools: tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description ?? "", parameters: tool.input_schema, strict: false, defer_loading: tool.defer_loading ?? false })) });
    honoured(openaiUpstream.responsesRequests.at(-1)!.tools);
  });

  it("fleet model doors - a gateway without upstreams answers 503 naming the settings, and says so when it starts", async () => {
    const bare = await startFleet({ natsUrl: t.natsUrl, services: ["gateway"], env: { API_KEYS: `${KEY}:a`, HTTP_PORT: "0", GRPC_PORT: "0", HTTP_HOST: "127.0.0.1", LLM_BASE_URL: "", LLM_API_KEY: "", ANTHROPIC_BASE_URL: "", ANTHROPIC_API_KEY: "" } });
    try {
      const doors = bare.processes.get("gateway")!.ready["modelDoors"] as Record<string, string>;
      assert.match(doors["/v1/messages"]!, /^none: set ANTHROPIC_BASE_URL/);
      assert.match(doors["/v1/responses"]!, /^none: set LLM_BASE_URL/);
      const url = bare.gatewayUrl();
      const nowhere = new Anthropic({ authToken: KEY, baseURL: url, maxRetries: 0 });
      await assert.rejects(nowhere.messages.create({ model: "m", max_tokens: 8, messages: [{ role: "user", content: ASK }] }), (error: unknown) => {
        assert.ok(error instanceof Anthropic.APIError && error.status === 503, String(error));
        assert.match(error.message, /ANTHROPIC_BASE_URL/);
        return true;
      });
      const elsewhere = new OpenAI({ apiKey: KEY, baseURL: `${url}/v1`, maxRetries: 0 });
      await assert.rejects(elsewhere.responses.create({ model: "m", input: ASK }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 503);
    } finally {
      await bare.stop();
    }
  });
});
