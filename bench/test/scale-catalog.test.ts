import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { describe, it } from "node:test";
import type { BenchDataset } from "@switchyard/bench-data";
import { ToolDefinitionSchema } from "@switchyard/packet";
import { scaleCatalog, TARGET_TOOLS } from "../src/perf/scale-catalog.js";
import { withRatios } from "../src/perf/route-scale.js";

const WORDS = ["weather", "stock", "flight", "hotel", "recipe", "news", "music", "translate", "currency", "calendar", "email", "map"];

function dataset(name: string, tools: number, prefix: string): BenchDataset {
  return {
    name,
    tools: Array.from({ length: tools }, (_, i) =>
      create(ToolDefinitionSchema, {
        name: `${prefix}_${WORDS[i % WORDS.length]}_${i}`,
        description: `Tool ${prefix}${i} finds the ${WORDS[i % WORDS.length]} for ${WORDS[(i * 5) % WORDS.length]} and reports it back`,
        inputSchema: { type: "object", properties: { [`arg${i}`]: { type: "string" } } },
      }),
    ),
    cases: [
      { id: "in", query: "weather please", expected: [`${prefix}_weather_0`] },
      { id: "out", query: "something else", expected: [`${prefix}_${WORDS[(tools - 1) % WORDS.length]}_${tools - 1}`] },
      { id: "none", query: "hello", expected: [] },
    ],
  };
}

describe("scale-catalog", () => {
  const datasets = [dataset("q", 130, "q"), dataset("other", 40, "o")];

  it("scale-catalog - every size holds the target tools, real ones next, synthetic ones to fill, all names distinct", () => {
    for (const size of [100, 150, 1000]) {
      const c = scaleCatalog(datasets, size);
      assert.equal(c.tools.length, size);
      assert.equal(new Set(c.tools.map((t) => t.name)).size, size, "distinct names");
      const names = new Set(c.tools.map((t) => t.name));
      for (const t of datasets[0]!.tools.slice(0, TARGET_TOOLS)) assert.ok(names.has(t.name), `${t.name} at ${size}`);
      assert.equal(c.real, Math.min(size, 170));
    }
  });

  it("scale-catalog - synthetic tools combine fields of different real tools and copy none", () => {
    const c = scaleCatalog(datasets, 600);
    const real = new Map(datasets.flatMap((d) => d.tools).map((t) => [t.name, t.description]));
    const realDescriptions = new Set(real.values());
    const synthetic = c.tools.filter((t) => !real.has(t.name));
    assert.equal(synthetic.length, 430);
    const copies = synthetic.filter((t) => realDescriptions.has(t.description));
    assert.deepEqual(copies, []);
    assert.ok(synthetic.every((t) => /^[qo]_[a-z0-9]+(_\d+)?$/.test(t.name)), synthetic[0]!.name);
  });

  it("scale-catalog - the cases are those whose expected tools are all targets, the same at every size", () => {
    assert.deepEqual(
      scaleCatalog(datasets, 100).cases.map((c) => c.id),
      ["in"],
    );
    assert.deepEqual(
      scaleCatalog(datasets, 1000).cases.map((c) => c.id),
      ["in"],
    );
    assert.deepEqual(
      scaleCatalog(datasets, 300).tools.map((t) => t.name),
      scaleCatalog(datasets, 300).tools.map((t) => t.name),
      "seeded order",
    );
    assert.throws(() => scaleCatalog(datasets, 99), /at least 100/);
  });

  it("route-scale - competitors' rows carry Switchyard's p50 and recall over theirs", () => {
    const rows = withRatios([
      { bench: "route-scale", config: { system: "switchyard", tools: 100 }, p50Ms: 1, p99Ms: 2, throughput: 900, recallAt5: 0.8 },
      { bench: "route-scale", config: { system: "orama", tools: 100 }, p50Ms: 4, p99Ms: 9, throughput: 200, recallAt5: 0.4 },
    ]);
    assert.equal(rows[0]!.ratio, undefined);
    assert.equal(rows[1]!.ratio, 0.25);
    assert.equal(rows[1]!.recallRatio, 2);
  });
});

describe("scale-chart", () => {
  it("scale-chart - one line per system through its points, both axes by decades, the targets marked", async () => {
    const { scaleChart } = await import("../src/perf/scale-chart.js");
    const row = (system: string, tools: number, p50Ms: number) => ({ bench: "route-scale", config: { system, tools }, p50Ms, p99Ms: p50Ms * 2, throughput: 1000 / p50Ms });
    const svg = scaleChart([row("switchyard", 100, 0.2), row("switchyard", 100_000, 150), row("orama", 100, 0.3), row("orama", 100_000, 9000)]);
    assert.match(svg, /^<svg [^>]*viewBox="0 0 640 380"/);
    assert.equal(svg.match(/<polyline /g)?.length, 2);
    assert.equal(svg.match(/<circle /g)?.length, 4);
    for (const tick of [">0.1<", ">1<", ">10000<", ">100<", ">100,000<"]) assert.ok(svg.includes(tick), tick);
    assert.match(svg, /target: p50 ≤ 10 ms at 100000 tools/);
    assert.throws(() => scaleChart([]), /no route-scale results/);
  });
});
