import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DEFAULT_SIZES, parseBenchArgs } from "../src/perf/bench-args.js";
import { categoryOf, processOf, summarize } from "../src/perf/cpu-profile.js";
import { jsonLines, latencySummary, resultTable, writeResults } from "../src/perf/bench-result.js";
import type { BenchResult } from "../src/perf/bench-result.js";
import { describeGrowth, growth } from "../src/perf/growth.js";

describe("bench-perf", () => {
  it("bench-perf - arguments: a bench name, its options, and defaults for the rest", () => {
    const a = parseBenchArgs(["route-scale", "--sizes", "1000,100,1000", "--queries", "50", "--json"]);
    assert.equal(a.name, "route-scale");
    assert.deepEqual(a.sizes, [100, 1000]);
    assert.equal(a.queries, 50);
    assert.equal(a.json, true);
    const b = parseBenchArgs(["route-http"]);
    assert.deepEqual(b.sizes, [1000]);
    assert.deepEqual(parseBenchArgs(["route-scale"]).sizes, DEFAULT_SIZES);
    assert.equal(b.queries, undefined);
    assert.equal(parseBenchArgs(["tracing"]).rounds, 5);
    assert.equal(parseBenchArgs(["packet-e2e"]).duration, 60);
    assert.deepEqual(parseBenchArgs(["packet-e2e"]).sizes, []);
    assert.deepEqual(parseBenchArgs(["packet-e2e", "--sizes", "100000,1000"]).sizes, [1000, 100_000]);
    assert.equal(parseBenchArgs(["packet-e2e", "--duration", "5"]).duration, 5);
    assert.equal(parseBenchArgs(["--help"]).help, true);
    assert.equal(parseBenchArgs(["packet-e2e", "--cpu-prof", "/tmp/profiles"]).cpuProf, "/tmp/profiles");
    assert.equal(parseBenchArgs(["packet-e2e"]).cpuProf, undefined);
    assert.deepEqual(parseBenchArgs(["packet-e2e", "--node-options", " --max-semi-space-size=16  --no-opt"]).nodeOptions, ["--max-semi-space-size=16", "--no-opt"]);
    assert.equal(parseBenchArgs(["packet-e2e"]).nodeOptions, undefined);
    const soak = parseBenchArgs(["soak"]);
    assert.deepEqual([soak.duration, soak.connections, soak.rate, soak.fraction, soak.settle], [600, 16, undefined, 0.8, 120]);
    assert.equal(parseBenchArgs(["soak", "--settle", "0"]).settle, 0);
    assert.equal(parseBenchArgs(["soak", "--rate", "104.5"]).rate, 104.5);
    assert.equal(parseBenchArgs(["soak", "--fraction", "0.5"]).fraction, 0.5);
  });

  it("bench-perf - a CPU profile: its process by the code it ran, busy time by library, idle left out", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame("(idle)", "") },
        { id: 2, callFrame: frame("decode", "file:///r/node_modules/.pnpm/@bufbuild+protobuf@2.17.0/node_modules/@bufbuild/protobuf/dist/esm/from-binary.js") },
        { id: 3, callFrame: frame("handle", "file:///r/services/selector/dist/select.js") },
        { id: 4, callFrame: frame("(garbage collector)", "") },
      ],
      samples: [1, 2, 2, 3, 4, 1],
      timeDeltas: [5000, 1000, 1000, 1000, 1000, 9000],
    };
    assert.equal(processOf(profile.nodes), "selector");
    assert.equal(processOf([{ id: 1, callFrame: frame("x", "node:internal/timers") }]), undefined);
    assert.equal(categoryOf(frame("f", "file:///r/packages/bus/dist/stage-worker.js")), "@switchyard/bus");
    assert.equal(categoryOf(frame("g", "node:internal/streams/writable")), "node: internals");
    const { busyMs, byCategory } = summarize(profile);
    assert.equal(busyMs, 4);
    assert.deepEqual(Object.fromEntries(byCategory), { "@bufbuild/protobuf": 2, "services/selector": 1, GC: 1 });
  });

  it("bench-perf - arguments: a bad name, value or option is refused by name", () => {
    assert.throws(() => parseBenchArgs([]), /name a benchmark/);
    assert.throws(() => parseBenchArgs(["route-fast"]), /no benchmark "route-fast"/);
    assert.throws(() => parseBenchArgs(["route-scale", "--sizes", "100,abc"]), /--sizes must be a whole number/);
    assert.throws(() => parseBenchArgs(["route-http", "--duration", "0"]), /--duration must be a whole number of at least 1/);
    assert.throws(() => parseBenchArgs(["route-http", "--connections", "2.5"]), /--connections/);
    assert.throws(() => parseBenchArgs(["route-http", "--nope"]), /nope/);
    assert.throws(() => parseBenchArgs(["route-http", "packet-e2e"]), /one benchmark at a time/);
    assert.throws(() => parseBenchArgs(["soak", "--fraction", "1.5"]), /--fraction must be a number above 0 and at most 1/);
    assert.throws(() => parseBenchArgs(["soak", "--rate", "0"]), /--rate must be a number above 0, got "0"/);
    assert.throws(() => parseBenchArgs(["soak", "--settle", "1.5"]), /--settle must be a whole number of at least 0, got "1.5"/);
  });

  it("bench-perf - latency summary: nearest-rank p50 and p99 of the samples", () => {
    const samples = Array.from({ length: 200 }, (_, i) => i + 1); // 1..200 ms, shuffled order must not matter
    samples.reverse();
    assert.deepEqual(latencySummary(samples), { p50Ms: 100, p99Ms: 198 });
    assert.deepEqual(latencySummary([0.0004, 0.0016]), { p50Ms: 0, p99Ms: 0.002 });
  });

  const rows: BenchResult[] = [
    { bench: "route-scale", config: { system: "switchyard", tools: 1000 }, p50Ms: 0.5, p99Ms: 2, throughput: 1800, recallAt5: 0.8, heapMb: 12.5 },
    { bench: "route-scale", config: { system: "minisearch", tools: 1000 }, p50Ms: 1, p99Ms: 3, throughput: 900, recallAt5: 0.6, ratio: 0.5, ratioOf: "switchyard p50 / this p50" },
  ];

  it("bench-perf - --json: one object per configuration and line, with the issue's fields", () => {
    const lines = jsonLines(rows).trimEnd().split("\n");
    assert.equal(lines.length, 2);
    for (const line of lines) {
      const r = JSON.parse(line) as Record<string, unknown>;
      for (const key of ["bench", "config", "p50Ms", "p99Ms", "throughput"]) assert.ok(key in r, `${key} in ${line}`);
      assert.equal(typeof r["p50Ms"], "number");
      assert.equal(typeof r["config"], "object");
    }
    assert.equal((JSON.parse(lines[1]!) as BenchResult).ratio, 0.5);
  });

  it("bench-perf - the table has a row per configuration and leaves absent figures empty", () => {
    const table = resultTable(rows).split("\n");
    assert.equal(table.length, 4);
    assert.match(table[2]!, /\| route-scale \| system=switchyard tools=1000 \| 0\.500 \| 2\.000 \| 1800 \| 0\.800 \| {2}\| {2}\| {2}\| 12\.5 \| {2}\|/);
    assert.match(table[3]!, /\| 0\.50 \| switchyard p50 \/ this p50 \| {2}\| {2}\| {2}\|$/);
    assert.match(resultTable([{ ...rows[0]!, cpuMsPerOp: 4.256 }]).split("\n")[2]!, /\| 12\.5 \| 4\.26 \|$/);
  });

  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("bench-perf - the results file is named for the bench and the time and holds the machine", () => {
    const path = writeResults(join(dir, "results"), { bench: "route-scale", command: "pnpm bench route-scale", startedAt: "2026-01-02T03:04:05.678Z", results: rows, notes: ["n"] });
    assert.equal(path, join(dir, "results", "route-scale-2026-01-02T03-04-05-678Z.json"));
    const file = JSON.parse(readFileSync(path, "utf8")) as { results: BenchResult[]; machine: { cpus: number; node: string } };
    assert.deepEqual(file.results, rows);
    assert.ok(file.machine.cpus >= 1);
    assert.equal(file.machine.node, process.version);
  });

  it("bench-perf - growth: factor, exponent and cost per 1,000 tools between two sizes", () => {
    const linear = growth({ size: 1000, cost: 1 }, { size: 100_000, cost: 100 });
    assert.equal(linear.factor, 100);
    assert.ok(Math.abs(linear.exponent - 1) < 1e-9);
    assert.ok(Math.abs(linear.perThousand - 1) < 1e-9);
    assert.ok(Math.abs(growth({ size: 1000, cost: 2 }, { size: 100_000, cost: 2 }).exponent) < 1e-9);
    assert.throws(() => growth({ size: 1000, cost: 1 }, { size: 1000, cost: 1 }), /from.size < to.size/);
    assert.equal(describeGrowth("p50", linear, "ms"), "p50 ×100.0 from 1,000 to 100,000 tools (∝ tools^1.00, +1.000 ms per 1,000 tools)");
    assert.match(describeGrowth("rate", growth({ size: 1000, cost: 54 }, { size: 100_000, cost: 2.5 }), "/s"), /^rate ×0\.046 from .* -0\.520 \/s per 1,000 tools\)$/);
    assert.equal(
      describeGrowth("heap", growth({ size: 1000, cost: 0 }, { size: 100_000, cost: 206.2 }), "MB"),
      "heap from 1,000 to 100,000 tools: +2.083 MB per 1,000 tools (no ratio: not above 0 at 1,000)",
    );
  });
});
