import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { promSample } from "@switchyard/test-fixtures";
import { DependencyHealth, fallbackOf, Metrics } from "../src/index.js";

const REFUSED = { cause: "connection_refused", text: "did not answer (connection refused)" } as const;

describe("dependency health", () => {
  it("dependency health - each change between up and down is one info line without a stack, and the gauge follows", async () => {
    const lines: [Record<string, unknown>, string][] = [];
    const metrics = new Metrics();
    const health = new DependencyHealth({ info: (fields: Record<string, unknown>, msg: string) => void lines.push([fields, msg]) } as never, metrics);
    const model = health.watch({ name: "selection model", model: "qwen2.5", endpoint: "localhost:11434" });
    const up = async () => promSample((await metrics.exposition()).body, "switchyard_dependency_up", { dependency: "selection model" });
    assert.equal(await up(), 1);
    for (let i = 0; i < 5; i++) model.failed(REFUSED);
    assert.deepEqual(health.down(), ["selection model"]);
    assert.deepEqual(model.outage(), REFUSED);
    assert.equal(await up(), 0);
    model.answered();
    model.answered();
    assert.equal(await up(), 1);
    assert.deepEqual(
      lines.map(([, msg]) => msg),
      [
        "the selection model qwen2.5 at localhost:11434 did not answer (connection refused); the stage uses its built-in fallback until it answers",
        "the selection model qwen2.5 at localhost:11434 answers again",
      ],
    );
    assert.deepEqual(lines[0]![0], { dependency: "selection model", model: "qwen2.5", endpoint: "localhost:11434", cause: "connection_refused" });
  });

  it("dependency health - a packet's fallback record names the outage and what the stage did instead", () => {
    const dependency = { name: "selection model", model: "qwen2.5", endpoint: "localhost:11434" };
    assert.deepEqual(fallbackOf("select", { dependency, outage: REFUSED }, "the built-in selector chose fs.read"), {
      stage: "select",
      dependency: "selection model",
      cause: "connection_refused",
      detail: "the selection model qwen2.5 at localhost:11434 did not answer (connection refused), so the built-in selector chose fs.read",
    });
  });
});
