import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connectionLevels, loopLoad, openLoad } from "../src/perf/load.js";

describe("load", () => {
  it("load - closed loop: each connection keeps one call in flight, failures are counted apart from the samples", async () => {
    let inFlight = 0;
    let most = 0;
    const figures = await loopLoad(
      async (i) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (i % 10 === 9) throw new Error("every tenth call fails");
      },
      { connections: 3, duration: 1 },
    );
    assert.equal(most, 3);
    assert.ok(figures.completed > 100, `${figures.completed} calls`);
    assert.ok(Math.abs(figures.failed - (figures.completed + figures.failed) / 10) <= 3, `${figures.failed} failed of ${figures.completed + figures.failed}`);
    assert.ok(figures.p50Ms >= 4 && figures.p50Ms < 50, `p50 ${figures.p50Ms}`);
    assert.ok(figures.p99Ms >= figures.p50Ms);
    // 3 loops of ~5 ms calls: ~600 calls a second at most
    assert.ok(figures.throughput > 100 && figures.throughput < 700, `${figures.throughput}/s`);
  });

  it("load - open loop: calls start at the rate whatever the earlier ones do, and each is awaited", async () => {
    const startedAt: number[] = [];
    const t0 = performance.now();
    const figures = await openLoad(
      async (i) => {
        startedAt.push(performance.now() - t0);
        // slower than the gap between calls: a closed loop of one would fall behind
        await new Promise((resolve) => setTimeout(resolve, 60));
        if (i % 4 === 3) throw new Error("every fourth call fails");
      },
      { rate: 50, duration: 1 },
    );
    assert.equal(figures.sent, 50);
    assert.equal(figures.completed + figures.failed, 50);
    assert.ok(Math.abs(figures.failed - 12) <= 1, `${figures.failed} failed`);
    // the 50th call starts about 980 ms in, not 50 × 60 ms
    assert.ok(startedAt.at(-1)! > 900 && startedAt.at(-1)! < 1200, `last call at ${startedAt.at(-1)} ms`);
    assert.ok(figures.p50Ms >= 59, `p50 ${figures.p50Ms}`);
  });

  it("load - levels: one connection, then the saturation count, once each", () => {
    assert.deepEqual(connectionLevels(16), [1, 16]);
    assert.deepEqual(connectionLevels(1), [1]);
  });
});
