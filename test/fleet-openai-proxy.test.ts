import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { mcpTools, startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ChatAnswer, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { fleetSkipReason, startTestFleet } from "./harness.js";
import type { TestFleet } from "./harness.js";

const skip = fleetSkipReason();
const TOP_K = 5;

/** 200 tools as an agent would send them: the MCP servers' own, then a long tail of others. */
const REAL = (["filesystem", "memory", "everything"] as const).flatMap((server) =>
  mcpTools(server).map((tool) => ({ type: "function" as const, function: { name: `${server}_${tool.name}`, description: tool.description ?? "", parameters: tool.inputSchema } })),
);
const TOOLS = [
  ...REAL,
  ...Array.from({ length: 200 - REAL.length }, (_, i) => ({
    type: "function" as const,
    function: { name: `crm_record_${i}`, description: `Update customer record ${i} in the sales pipeline`, parameters: { type: "object", properties: {} } },
  })),
];

describe("fleet openai proxy - the openai client through the gateway, tools ranked by the embedding-router", { skip }, () => {
  let t: TestFleet;
  let upstream: ScriptedOpenAIServer;
  let client: OpenAI;
  let answer: ChatAnswer = { content: "" };
  /** The request's tools that are the catalog's core tools ("memory.search_nodes" → memory_search_nodes): kept besides the K best. */
  let core: string[] = [];

  before(async () => {
    upstream = await startScriptedOpenAIServer({ chat: () => answer });
    t = await startTestFleet({ serviceEnv: { gateway: { LLM_BASE_URL: upstream.url, PROXY_TOP_K: String(TOP_K) } } });
    client = new OpenAI({ apiKey: "unused-in-local-mode", baseURL: `${t.url}/v1`, maxRetries: 0 });
    const catalog = (await t.get("/v1/tools")).json.tools as { name: string; core?: boolean }[];
    const names = new Set(TOOLS.map((tool) => tool.function.name));
    core = catalog.filter((tool) => tool.core).map((tool) => tool.name.replace(".", "_")).filter((name) => names.has(name));
  });
  after(async () => {
    await t?.close();
    await upstream?.close();
  });

  const messages = [{ role: "user" as const, content: "read the file notes/todo.md and tell me what is left to do" }];

  it("fleet openai proxy - 200 tools: the upstream gets at most K, the file readers among them; the answer is unchanged", async () => {
    assert.equal(TOOLS.length, 200);
    answer = { content: "", toolCalls: [{ name: "filesystem_read_text_file", arguments: '{"path":"notes/todo.md"}' }] };
    const { data, response } = await client.chat.completions.create({ model: "agent-model", messages, tools: TOOLS }).withResponse();
    const sent = upstream.chatRequests.at(-1)!;
    assert.ok(sent.tools.filter((name) => !core.includes(name)).length <= TOP_K, sent.tools.join(", "));
    for (const name of core) assert.ok(sent.tools.includes(name), `core tool ${name} kept`);
    assert.ok(sent.tools.includes("filesystem_read_text_file"), sent.tools.join(", "));
    assert.equal(response.headers.get("x-switchyard-tools"), `200->${sent.tools.length}`);
    assert.equal(response.headers.get("x-switchyard-unoffered-tools"), null);
    const call = data.choices[0]!.message.tool_calls?.[0];
    assert.ok(call?.type === "function");
    assert.deepEqual([call.function.name, call.function.arguments], ["filesystem_read_text_file", '{"path":"notes/todo.md"}']);
  });

  it("fleet openai proxy - streaming: the chunks come through as the upstream sent them", async () => {
    answer = { content: "Two things are left to do." };
    const stream = await client.chat.completions.create({ model: "agent-model", messages, tools: TOOLS, stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    assert.equal(text, "Two things are left to do.");
    const sent = upstream.chatRequests.at(-1)!;
    assert.equal(sent.stream, true);
    assert.ok(sent.tools.length <= TOP_K + core.length && sent.tools.includes("filesystem_read_text_file"), sent.tools.join(", "));
  });
});
