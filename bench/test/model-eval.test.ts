import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
// The scripted OpenAI-compatible server is the test double of a remote model API: it plays the
// selection model (and the embedding model), and records what each was asked.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { RecordedChatRequest, ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { EvalResult } from "../src/evaluate.js";
import { runEval } from "../src/run-eval.js";
import type { ToolJson } from "./fixtures.js";

const noArguments = { type: "object", properties: {} };
const TOOLS: ToolJson[] = [
  { name: "weather_forecast", description: "Weather forecast for a city: temperature, rain and wind for the next days.", inputSchema: noArguments },
  { name: "stock_quote", description: "Current stock price for a ticker symbol.", inputSchema: noArguments },
  { name: "translate_text", description: "Translate text from one language to another.", inputSchema: noArguments },
  { name: "read_file", description: "Read the contents of a file from disk.", inputSchema: noArguments },
  { name: "send_email", description: "Send an email message to a recipient.", inputSchema: noArguments },
  { name: "set_timer", description: "Set a countdown timer for a number of minutes.", inputSchema: noArguments },
];
const CASES = [
  { id: "1", query: "What will the weather be in Paris tomorrow?", expected: ["weather_forecast"] },
  { id: "2", query: "Get me the current stock price of ACME", expected: ["stock_quote"] },
  { id: "3", query: "Translate good morning into Spanish", expected: ["translate_text"] },
  { id: "4", query: "Read the file notes.txt from disk", expected: ["read_file"] },
  { id: "5", query: "Send an email to Sam saying I am late", expected: ["send_email"] },
  { id: "6", query: "Set a timer for ten minutes", expected: ["set_timer"] },
  { id: "7", query: "Will it rain in Oslo over the next days?", expected: ["weather_forecast"] },
  { id: "8", query: "Translate this sentence from French to English", expected: ["translate_text"] },
];
const expectedOf = new Map(CASES.map((c) => [c.query, c.expected[0]!]));
/** Cases the selection model answers right; the others get another candidate. */
const answeredRight = (id: string) => Number(id) % 2 === 0;

const userOf = (request: RecordedChatRequest): string => request.messages.find((m) => m.role === "user")?.content ?? "";
const requestOf = (request: RecordedChatRequest): string => /^Request: (.*)$/m.exec(userOf(request))?.[1] ?? "";
/** Each query's tokens differ, so that a case's count says which requests it was given. */
const promptTokensOf = (query: string): number => 100 + query.length;

/** The selection model: the expected tool for even case ids, another candidate for odd ones. */
function selectionModel(request: RecordedChatRequest) {
  const query = requestOf(request);
  const expected = expectedOf.get(query);
  const candidates = (JSON.parse(/Candidate tools \(JSON\):\n(.*)$/s.exec(userOf(request))![1]!) as { name: string }[]).map((c) => c.name);
  const id = CASES.find((c) => c.query === query)?.id ?? "";
  const tool = answeredRight(id) ? expected : candidates.find((name) => name !== expected);
  return {
    content: JSON.stringify({ tool, arguments: {}, reasoning: "scripted", confidence: 0.9, alternatives: [] }),
    usage: { prompt_tokens: promptTokensOf(query), completion_tokens: 7 },
    delayMs: 15,
  };
}

/** A bag-of-words vector: texts sharing words point the same way. */
function embed(text: string, length: number): number[] {
  const vector = new Array<number>(length).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) vector[createHash("sha256").update(word).digest()[0]! % length]! += 1;
  return vector;
}

/** A writable that keeps what it was given. */
function sink() {
  const out = { text: "", write: (chunk: string) => ((out.text += chunk), true) };
  return out;
}

describe("model eval - pnpm eval with the fleet's model settings", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-model-eval-"));
  const tools = join(dir, "small.tools.jsonl");
  const queries = join(dir, "small.queries.jsonl");
  writeFileSync(tools, TOOLS.map((t) => JSON.stringify(t)).join("\n") + "\n");
  writeFileSync(queries, CASES.map((c) => JSON.stringify(c)).join("\n") + "\n");
  let server: ScriptedOpenAIServer;
  before(async () => {
    server = await startScriptedOpenAIServer({ chat: selectionModel, embed });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `pnpm eval --json` on the small dataset with `env` as the environment; its one result. */
  async function evalWith(env: Record<string, string>, cache: string): Promise<{ result: EvalResult; stderr: string }> {
    const stdout = sink();
    const stderr = sink();
    // --min-score 0: every tool is a candidate, so the selection model always has a wrong one to pick
    const argv = ["--tools", tools, "--queries", queries, "--json", "--latency-tools", "0", "--out", join(dir, "results"), "--model-cache", cache, "--concurrency", "3", "--min-score", "0"];
    const code = await runEval(argv, { stdout, stderr, env });
    assert.equal(code, 0, stderr.text);
    return { result: JSON.parse(stdout.text) as EvalResult, stderr: stderr.text };
  }

  const selectorEnv = () => ({ LLM_BASE_URL: server.url, LLM_API_KEY: "sk-scripted", SELECTOR_MODEL: "scripted-selector" });

  it("model eval - a selection model right for half the cases shows in the figures, with its tokens and latency per case", async () => {
    const offline = await evalWith({}, join(dir, "unused-cache"));
    assert.equal(offline.result.model, undefined, "no model set: the offline figures alone");
    assert.equal(existsSync(join(dir, "unused-cache")), false, "no model set: no cache written");

    const cache = join(dir, "cache-selector");
    const { result, stderr } = await evalWith(selectorEnv(), cache);
    const asked = server.chatRequests.filter((r) => r.model === "scripted-selector");
    assert.ok(asked.length >= 6, `the selection model was asked for most cases (${asked.length})`);
    const model = result.model!;
    assert.deepEqual(model.models, { "selection model": `scripted-selector at ${new URL(server.url).host}` });
    assert.match(stderr, /models: selection model scripted-selector/);

    // what the model answered is what the figures say: right for the even ids it was asked about, no more
    const rightAnswers = asked.filter((r) => answeredRight(CASES.find((c) => c.query === requestOf(r))!.id)).length;
    assert.equal(model.selected.n, asked.length);
    assert.equal(model.selected.right, rightAnswers);
    const share = model.selected.right / model.selected.n;
    assert.ok(share >= 0.3 && share <= 0.7, `about half selected right, got ${share}`);
    // and in the pipeline's own figures: the calls at the review's threshold drop from all right to about half
    assert.ok(offline.result.rightAtThreshold! >= 0.9, `offline: ${offline.result.rightAtThreshold}`);
    assert.ok(result.rightAtThreshold! <= 0.6, `with the model: ${result.rightAtThreshold}`);

    // tokens from the API's usage: summed per case (each case its own request's) and in all
    const tokens = asked.reduce((sum, r) => sum + promptTokensOf(requestOf(r)), 0);
    assert.equal(model.total!.promptTokens, tokens);
    assert.equal(model.total!.completionTokens, 7 * asked.length);
    assert.equal(model.total!.requests, asked.length);
    assert.equal(model.total!.cached, 0);
    for (const c of model.cases) {
      const own = asked.filter((r) => requestOf(r) === CASES.find((x) => x.id === c.id)!.query);
      assert.equal(c.promptTokens, own.reduce((sum, r) => sum + promptTokensOf(requestOf(r)), 0), `case ${c.id}`);
      assert.equal(c.requests, own.length, `case ${c.id}`);
      if (own.length > 0) assert.ok(c.latencyMs >= 15, `case ${c.id}: the model's latency (${c.latencyMs} ms) is counted`);
    }
    assert.equal(model.cases.length, CASES.length);
    assert.equal(model.casesAsking, asked.length);
    assert.ok(model.latencyMs.p50 >= 15 && model.latencyMs.p99 >= model.latencyMs.p50);
    const report = readFileSync(join(dir, "results", "report.md"), "utf8");
    assert.match(report, /## What the models were asked/);
    assert.match(report, new RegExp(`\\| small \\| selection model: scripted-selector at [^|]+ \\| ${asked.length} \\| 0 \\| 0 \\| ${tokens} \\|`));
  });

  it("model eval - a rerun is answered from the cache: no request reaches the model, the figures stay", async () => {
    const cache = join(dir, "cache-rerun");
    const first = await evalWith(selectorEnv(), cache);
    const before = server.chatRequests.length;
    const again = await evalWith(selectorEnv(), cache);
    assert.equal(server.chatRequests.length, before, "no request reached the server");
    const total = again.result.model!.total!;
    assert.equal(total.cached, total.requests);
    assert.deepEqual({ ...total, cached: 0 }, first.result.model!.total);
    assert.deepEqual(again.result.model!.selected, first.result.model!.selected);
    assert.deepEqual(again.result.model!.latencyMs, first.result.model!.latencyMs);
    assert.deepEqual(again.result.calibration, first.result.calibration);
    assert.equal(readFileSync(join(cache, ".gitignore"), "utf8"), "*\n", "the cache keeps itself out of git");
  });

  it("model eval - an embedding model embeds the catalog and the queries once; a rerun asks it nothing", async () => {
    const cache = join(dir, "cache-embeddings");
    const env = { EMBEDDINGS_BASE_URL: server.url, EMBEDDINGS_MODEL: "scripted-embedder" };
    const first = await evalWith(env, cache);
    const embedded = server.inputs();
    for (const t of TOOLS) assert.ok(embedded.some((text) => text.includes(t.description)), `${t.name} was embedded`);
    for (const c of CASES) assert.ok(embedded.includes(c.query), `"${c.query}" was embedded`);
    const model = first.result.model!;
    assert.deepEqual(model.models, { embeddings: `scripted-embedder at ${new URL(server.url).host}` });
    // the scripted server counts one prompt token per text
    assert.equal(model.total!.promptTokens, embedded.length);

    const before = server.requests.length;
    const again = await evalWith(env, cache);
    assert.equal(server.requests.length, before, "no embeddings request reached the server");
    assert.deepEqual(again.result.recall, first.result.recall);
  });

  it("model eval - a bad model setting is refused naming its variable", async () => {
    const stderr = sink();
    const code = await runEval(["--tools", tools, "--queries", queries, "--model-cache", join(dir, "cache-bad")], {
      stdout: sink(),
      stderr,
      env: { SELECTOR_MODEL: "m", SELECTOR_TEMPERATURE: "hot" },
    });
    assert.equal(code, 2);
    assert.match(stderr.text, /SELECTOR_TEMPERATURE/);
  });
});
