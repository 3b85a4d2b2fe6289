import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BenchCase } from "@switchyard/bench-data";
import { exampleKey } from "@switchyard/learning";
import { learnSplit, withLabelNoise } from "../src/learn-split.js";

function cases(n: number): BenchCase[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `q${i}`,
    query: `query number ${i}`,
    expected: i % 5 === 0 ? [] : [`tool${i % 7}`],
  }));
}

describe("learn-split", () => {
  it("learn-split - never scores a learned query, nor a duplicate of one", () => {
    const all = cases(200);
    // the same request again, differently spaced and cased: learning it would score it on itself
    all.push({ id: "dup", query: "  QUERY   number 7 ", expected: ["tool0"] });
    for (const seed of [1, 2, 3, 20250601]) {
      const { learned, scored } = learnSplit(all, 0.5, seed);
      const learnedKeys = new Set(learned.map((c) => exampleKey(c.query)));
      for (const c of scored) assert.ok(!learnedKeys.has(exampleKey(c.query)), `seed ${seed}: "${c.query}" is scored and learned`);
      const ids = new Set([...learned, ...scored].map((c) => c.id));
      assert.equal(ids.size, learned.length + scored.length, "a case is both learned and scored");
    }
  });

  it("learn-split - takes the fraction of the cases with an expected tool, and scores every no-tool case", () => {
    const all = cases(200);
    const eligible = all.filter((c) => c.expected.length > 0).length;
    const { learned, scored } = learnSplit(all, 0.5, 7);
    assert.equal(learned.length, Math.round(eligible / 2));
    assert.ok(learned.every((c) => c.expected.length > 0));
    assert.equal(scored.filter((c) => c.expected.length === 0).length, all.filter((c) => c.expected.length === 0).length);
    assert.equal(learned.length + scored.length, all.length);
  });

  it("learn-split - the same seed gives the same split, another seed another", () => {
    const all = cases(100);
    const ids = (seed: number) => learnSplit(all, 0.3, seed).learned.map((c) => c.id);
    assert.deepEqual(ids(42), ids(42));
    assert.notDeepEqual(ids(42), ids(43));
  });

  it("learn-split - a fraction outside [0, 1) is refused", () => {
    assert.throws(() => learnSplit(cases(10), 1, 1), /\[0, 1\)/);
    assert.throws(() => learnSplit(cases(10), -0.1, 1), /\[0, 1\)/);
  });

  it("learn-split - label noise teaches a seeded share of the learned cases to one tool they do not expect", () => {
    const learned = cases(100).filter((c) => c.expected.length > 0);
    const tools = [...new Set(learned.flatMap((c) => c.expected)), "other_tool"];
    const noisy = withLabelNoise(learned, tools, 0.1, 7);
    const changed = noisy.filter((c, i) => c !== learned[i]);
    assert.equal(changed.length, Math.round(0.1 * learned.length));
    for (const c of changed) {
      const original = learned.find((o) => o.id === c.id)!;
      assert.equal(c.expected.length, 1);
      assert.ok(!original.expected.includes(c.expected[0]!), `${c.id} taught to ${c.expected[0]}`);
    }
    assert.deepEqual(withLabelNoise(learned, tools, 0.1, 7), noisy, "the same seed, the same mistakes");
    assert.deepEqual(withLabelNoise(learned, tools, 0, 7), learned);
    assert.throws(() => withLabelNoise(learned, tools, 1.5, 7), /\[0, 1\]/);
  });
});
