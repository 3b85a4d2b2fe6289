import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { asExpected, isExpected } from "../src/alternatives.js";
import { serversInRankOrder, ServerTally } from "../src/by-server.js";
import { evaluate } from "../src/evaluate.js";
import { serverTable } from "../src/report.js";

const tools = [
  { name: "a.x", server: "a" },
  { name: "a.y", server: "a" },
  { name: "b.z", server: "b" },
  { name: "c.w", server: "c" },
];
const serverOf = new Map(tools.map((t) => [t.name, t.server]));

describe("by server", () => {
  it("by server - servers of the ranked tools, each at its first rank, unknown names passed over", () => {
    assert.deepEqual(serversInRankOrder(["a.y", "a.x", "nope", "c.w", "b.z", "c.w"], serverOf), ["a", "c", "b"]);
  });

  it("by server - recall@k and nDCG@10 of the gold servers against the ranked tools' servers", () => {
    const tally = new ServerTally(tools);
    // gold servers a, b; ranked servers a (a.y), c, b: a at rank 1, b at rank 3
    tally.add(["a.x", "b.z"], ["a.y", "a.x", "c.w", "b.z"]);
    // gold server c; ranked servers a, b: none
    tally.add(["c.w"], ["a.x", "b.z"]);
    tally.add([], ["a.x"]); // a case that needs no tool is not scored
    const ndcgFirst = (1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3));
    const round = (x: number) => Math.round(x * 10_000) / 10_000;
    assert.deepEqual(tally.result(), { n: 2, recall: { "1": 0.25, "5": 0.5, "10": 0.5 }, ndcg10: round(ndcgFirst / 2) });
  });

  it("by server - nothing to report for a catalog whose tools name no server", () => {
    const tally = new ServerTally([{ name: "x", server: "" }]);
    tally.add(["x"], ["x"]);
    assert.equal(tally.result(), undefined);
  });

  it("by server - a tool the case accepts in place of an expected one counts as it, once", () => {
    const c = { expected: ["fs.write_file", "b.z"], alternatives: { "fs.write_file": ["dc.write_file"] } };
    assert.deepEqual(asExpected(["dc.write_file", "fs.write_file", "b.z"], c), ["fs.write_file", "", "b.z"]);
    assert.deepEqual(asExpected(["dc.write_file"], {}), ["dc.write_file"]);
    assert.ok(isExpected("dc.write_file", c));
    assert.ok(isExpected("b.z", c));
    assert.ok(!isExpected("a.x", c));
  });

  it("by server - evaluate reports figures by server where the tools name theirs, and the report shows both", async () => {
    const tool = (server: string, name: string, description: string) =>
      create(ToolDefinitionSchema, { name: `${server}.${name}`, description, server, serverToolName: name });
    const dataset = {
      name: "servers",
      tools: [
        tool("weather", "forecast", "Weather forecast for a city: temperature, rain and wind."),
        tool("files", "write_file", "Write text to a file on disk."),
        tool("desktop", "write_file", "Write text to a file on disk."),
        tool("stocks", "quote", "Current stock price for a ticker symbol."),
      ],
      cases: [
        { id: "1", query: "What will the weather be in Paris tomorrow?", expected: ["weather.forecast"] },
        { id: "2", query: "Write the text hello to the file notes.txt", expected: ["files.write_file"], alternatives: { "files.write_file": ["desktop.write_file"] } },
      ],
    };
    const result = await evaluate(dataset);
    assert.ok(result.byServer, "byServer is reported");
    assert.equal(result.byServer.n, 2);
    // either write_file counts, so both cases find their tool and its server first
    assert.deepEqual(result.recall["1"], 1);
    assert.deepEqual(result.byServer.recall, { "1": 1, "5": 1, "10": 1 });
    assert.equal(result.byServer.ndcg10, 1);
    assert.match(serverTable([result]), /^\| dataset \| n \| R@1 tool .*\n.*\n\| servers \| 2 \| 1\.000 /);
  });
});
