import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { BenchDataset } from "@switchyard/bench-data";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { parseEvalArgs } from "../src/cli-args.js";
import { runEval } from "../src/run-eval.js";
// The scripted OpenAI-compatible server is the test double of a remote model API.
import { startScriptedOpenAIServer } from "@switchyard/test-fixtures";
import type { ScriptedOpenAIServer } from "@switchyard/test-fixtures";
import { argumentsMatch, evaluateSelection, sameValue, selectorsForEval } from "../src/selection.js";
import type { ArgsCase } from "../src/selection.js";
import { TINY_CASES, TINY_TOOLS, WEATHER_CURRENCY_TOOLS } from "./fixtures.js";

const CASES: ArgsCase[] = [
  // Right tool, right arguments (BFCL style: an acceptance map, the unit may be left out).
  {
    id: "right",
    query: "What's the weather in Paris, France right now?",
    expected: ["get_weather"],
    args: { city: "Paris, France" },
    args_accept: { city: ["Paris, France", "Paris"], unit: ["", "celsius"] },
    candidates: ["get_weather", "convert_currency"],
  },
  // Right tool, but the city is only described: the heuristic does not infer "Paris" (API-Bank style).
  { id: "inferred", query: "What's the weather like in the French capital tomorrow?", expected: ["get_weather"], args: { city: "Paris" } },
  // Small talk ends at intent: no selection.
  { id: "chat", query: "thanks, that was helpful!", expected: ["get_weather"], args: { city: "Paris" } },
];

function dataset(): BenchDataset {
  return {
    name: "picked",
    tools: WEATHER_CURRENCY_TOOLS.map((t) => create(ToolDefinitionSchema, t)),
    // Not scored: no tool expected, or no arguments given.
    cases: [...CASES, { id: "none", query: "Tell me a joke", expected: [] }, { id: "no-args", query: "Convert 5 USD to EUR", expected: ["convert_currency"] }],
  };
}

describe("selection", () => {
  it("selection - values compare deeply, numbers equal their numeric strings, strings ignore case and outer spaces", () => {
    assert.ok(sameValue(5, "5"));
    assert.ok(sameValue("2.50", 2.5));
    assert.ok(sameValue(" Paris ", "paris"));
    assert.ok(sameValue({ a: [1, "X"] }, { a: ["1", "x"] }));
    assert.ok(!sameValue(5, "five"));
    assert.ok(!sameValue("", 0), "an empty string is not a number");
    assert.ok(!sameValue(true, "true"));
    assert.ok(!sameValue([1, 2], [2, 1]));
    assert.ok(!sameValue({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!sameValue(null, "null"));
  });

  it("selection - BFCL: each argument one of its accepted values, absent only where \"\" is accepted, nothing extra", () => {
    const c = { args: { city: "Paris" }, args_accept: { city: ["Paris", "Paris, France"], days: ["", 3] } };
    assert.ok(argumentsMatch(c, { city: "paris, france" }));
    assert.ok(argumentsMatch(c, { city: "Paris", days: "3" }));
    assert.ok(!argumentsMatch(c, { city: "Lyon" }), "not an accepted value");
    assert.ok(!argumentsMatch(c, { days: 3 }), "city may not be left out");
    assert.ok(!argumentsMatch(c, { city: "Paris", days: 4 }));
    assert.ok(!argumentsMatch(c, { city: "Paris", unit: "celsius" }), "an argument outside the map");
    assert.ok(argumentsMatch({ args: {}, args_accept: {} }, {}));
  });

  it("selection - BFCL: nested acceptance maps and lists element by element", () => {
    const c = {
      args: {},
      args_accept: {
        prefs: [{ size: ["large"], note: ["", "hot"] }],
        position: [{ x: 10.5 }],
        names: [["Apple", "Microsoft"], [["Apple"], ["MSFT", "Microsoft"]]],
      },
    };
    assert.ok(argumentsMatch(c, { prefs: { size: "Large" }, position: { x: "10.5" }, names: ["apple", "microsoft"] }));
    assert.ok(argumentsMatch(c, { prefs: { size: "large", note: "hot" }, position: { x: 10.5 }, names: ["Apple", "MSFT"] }));
    assert.ok(!argumentsMatch(c, { prefs: { size: "large", extra: 1 }, position: { x: 10.5 }, names: ["Apple", "Microsoft"] }));
    assert.ok(!argumentsMatch(c, { prefs: { size: "large" }, position: { x: 10.5 }, names: ["Microsoft", "Apple"] }), "order counts");
    assert.ok(!argumentsMatch(c, { prefs: "large", position: { x: 10.5 }, names: ["Apple", "Microsoft"] }));
  });

  it("selection - API-Bank: every argument of args but the context ones, nothing else", () => {
    const c = { args: { token: "a9s8", content: "Meeting with John", time: "2023-10-26 09:00:00" }, context_args: ["token"] };
    assert.ok(argumentsMatch(c, { content: "meeting with john", time: "2023-10-26 09:00:00" }), "the token is in no user message");
    assert.ok(argumentsMatch(c, { token: "a9s8", content: "Meeting with John", time: "2023-10-26 09:00:00" }));
    assert.ok(!argumentsMatch(c, { content: "Meeting with John" }), "time is missing");
    assert.ok(!argumentsMatch(c, { content: "Meeting with John", time: "2023-10-26 09:00:00", location: "cafe" }), "an extra argument");
    assert.ok(!argumentsMatch({ args: { count: 2 } }, { count: 3 }));
    assert.ok(argumentsMatch({ args: { count: 2 } }, { count: "2" }));
  });

  it("selection - the heuristic on a hand-made dataset: one case right, one with the wrong arguments, one not selected", async () => {
    const result = await evaluateSelection(dataset());
    assert.deepEqual(result, {
      dataset: "picked",
      selector: "heuristic",
      n: 3,
      toolAccuracy: 0.6667,
      argumentAccuracy: 0.3333,
      argumentAccuracyGivenTool: 0.5,
      noSelection: 1,
    });
  });

  describe("selection - with a model endpoint configured", () => {
    // The scripted OpenAI-compatible server is the test double of a remote model API:
    // it answers every case with the expected call, read from the request in the prompt.
    let server: ScriptedOpenAIServer;
    before(async () => {
      server = await startScriptedOpenAIServer({
        chat: (request) => {
          const prompt = request.messages[1]!.content;
          const known = CASES.find((c) => prompt.startsWith(`Request: ${c.query}`));
          return { content: JSON.stringify({ tool: known?.expected[0] ?? null, arguments: known?.args ?? {}, reasoning: "scripted", confidence: 0.9, alternatives: [] }) };
        },
      });
    });
    after(() => server.close());

    it("selection - SELECTOR_MODEL adds the model selector beside the heuristic, and it is scored the same way", async () => {
      assert.deepEqual(
        selectorsForEval({}).map((s) => s.kind),
        ["heuristic"],
      );
      const selectors = selectorsForEval({ SELECTOR_MODEL: "scripted-selector", LLM_BASE_URL: server.url });
      assert.deepEqual(
        selectors.map((s) => s.kind),
        ["heuristic", "model scripted-selector"],
      );
      const result = await evaluateSelection(dataset(), { selector: selectors[1]! });
      assert.equal(result.selector, "model scripted-selector");
      // The "chat" case ends at intent before any selector is asked.
      assert.deepEqual([result.toolAccuracy, result.argumentAccuracy, result.noSelection], [0.6667, 0.6667, 1]);
      assert.ok(server.chatRequests.length >= 2);
    });
  });

  describe("selection - pnpm eval --selection", () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-selection-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const write = (name: string, lines: readonly object[]): string => {
      const file = join(dir, name);
      writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
      return file;
    };
    const run = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
      let stdout = "";
      let stderr = "";
      const code = await runEval(argv, {
        stdout: { write: (s: string) => ((stdout += s), true) },
        stderr: { write: (s: string) => ((stderr += s), true) },
      });
      return { code, stdout, stderr };
    };

    it("selection - prints the table and writes selection-<dataset>.json", async () => {
      const out = join(dir, "results");
      const tools = write("picked.tools.jsonl", WEATHER_CURRENCY_TOOLS);
      const queries = write("picked.queries.jsonl", dataset().cases);
      const r = await run(["--selection", "--tools", tools, "--queries", queries, "--out", out]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^\| dataset \| selector \| n \| tool top-1 \| exact arguments \| arguments when the tool is right \|$/m);
      assert.match(r.stdout, /^\| picked \| heuristic \| 3 \| 0\.667 \| 0\.333 \| 0\.500 \|$/m);
      const [written] = JSON.parse(readFileSync(join(out, "selection-picked.json"), "utf8"));
      assert.equal(written.toolAccuracy, 0.6667);

      const json = await run(["--selection", "--json", "--tools", tools, "--queries", queries, "--out", out]);
      assert.deepEqual(JSON.parse(json.stdout), written);
    });

    it("selection - a dataset without expected arguments is skipped with a note", async () => {
      const tools = write("tiny.tools.jsonl", TINY_TOOLS);
      const queries = write("tiny.queries.jsonl", TINY_CASES);
      const r = await run(["--selection", "--tools", tools, "--queries", queries, "--out", join(dir, "tiny")]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /^tiny: no cases with expected arguments, skipped$/m);
      assert.doesNotMatch(r.stdout, /\| tiny \|/);
    });
  });

  it("selection - --selection on the command line", () => {
    assert.equal(parseEvalArgs(["--selection", "--dataset", "bfcl"]).selection, true);
    assert.equal(parseEvalArgs([]).selection, false);
  });
});
