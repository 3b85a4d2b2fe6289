import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loopLoad } from "../src/perf/load.js";

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
});
