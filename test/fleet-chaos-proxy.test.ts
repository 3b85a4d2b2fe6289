import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { chaosSuite, finishRun, submitPackets } from "./chaos-run.js";
import { startFaultProxy } from "./fault-proxy.js";
import type { FaultProxy } from "./fault-proxy.js";
import { fleetSkipReason } from "./harness.js";

// CHAOS_PACKETS runs a smaller round while working on these tests.
const PACKETS = Number(process.env.CHAOS_PACKETS ?? 300);
const skip = fleetSkipReason();

describe("fleet chaos - the services reach NATS through a fault-injecting proxy", { skip }, () => {
  let proxy: FaultProxy;
  const suite = chaosSuite({
    ackWaitMs: 3_000,
    natsUrlForServices: async (nats) => {
      proxy = await startFaultProxy({ targetPort: nats.port });
      return proxy.url;
    },
  });

  after(async () => {
    await proxy?.close();
  });

  it(`fleet chaos - ${PACKETS} packets through latency and connection resets: none lost, no side effect twice`, { timeout: 600_000 }, async (ctx) => {
    const { t } = suite.chaos;
    proxy.latencyMs = 5;
    let sent = false;
    const sending = submitPackets(t, { count: PACKETS, concurrency: 8 }).finally(() => (sent = true));
    // Every connection through the proxy is reset every 2 s while packets are sent.
    while (!sent) {
      await sleep(2_000);
      proxy.resetAll();
    }
    const submissions = await sending;
    proxy.latencyMs = 0;

    const refused = submissions.filter((s) => s.status !== 202);
    assert.ok(refused.every((s) => s.status === 503), `only 503 while the gateway's connection is down: ${JSON.stringify(refused.find((s) => s.status !== 503))}`);
    const accepted = submissions.filter((s) => s.status === 202);
    assert.ok(proxy.stats.resets > 0, "connections were reset");

    const { run, problems, unknownOutcomes } = await finishRun("fault-injecting proxy", suite, submissions);
    ctx.diagnostic(`${JSON.stringify(run)}; refused: ${refused.length}; resets: ${proxy.stats.resets}`);
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    assert.equal(unknownOutcomes, 0, "no executor died, so every call's outcome is known");
    assert.equal(run.lost, 0);
    assert.equal(run.duplicateSideEffects, 0);
    assert.equal(run.completed, accepted.length);
  });
});
