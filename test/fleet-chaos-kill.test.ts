import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { chaosSuite, finishRun, STAGE_SERVICES, submitPackets } from "./chaos-run.js";
import { eventually, fleetSkipReason } from "./harness.js";

// The figure; CHAOS_PACKETS runs a smaller round while working on these tests.
const PACKETS = Number(process.env.CHAOS_PACKETS ?? 1_000);
const skip = fleetSkipReason();

describe("fleet chaos - kill -9 each stage in turn while packets flow", { skip }, () => {
  // A short ack wait, so the packets a killed stage held come back within seconds.
  const suite = chaosSuite({ ackWaitMs: 3_000 });

  it(`fleet chaos - ${PACKETS} packets, each stage killed (SIGKILL) and restarted: every accepted packet ends once, its side effect once`, { timeout: 600_000 }, async (ctx) => {
    const { t } = suite.chaos;
    let answered = 0;
    const sending = submitPackets(t, { count: PACKETS, concurrency: 8, onAnswered: (n) => (answered = n) });

    // Stage i dies once i+1 sixths of the packets are in, so every kill lands mid-flow.
    const killedPids: number[] = [];
    for (const [i, stage] of STAGE_SERVICES.entries()) {
      const threshold = Math.floor(((i + 1) * PACKETS) / (STAGE_SERVICES.length + 1));
      await eventually(async () => (answered >= threshold ? true : undefined), 300_000, `${threshold} packets answered`);
      killedPids.push(t.fleet.processes.get(stage)!.child.pid!);
      await t.fleet.kill(stage);
      const { child } = t.fleet.processes.get(stage) ?? {};
      assert.equal(child, undefined, `${stage} is gone`);
      await sleep(500);
      await t.fleet.start(stage);
    }
    const submissions = await sending;
    assert.equal(killedPids.length, STAGE_SERVICES.length);

    const accepted = submissions.filter((s) => s.status === 202);
    assert.equal(accepted.length, PACKETS, `the gateway (never killed) accepts every packet: ${JSON.stringify(submissions.find((s) => s.status !== 202))}`);
    const { run, problems, unknownOutcomes } = await finishRun("kill -9 each stage", suite, submissions);
    ctx.diagnostic(`${JSON.stringify(run)}; ended FAILED as an unknown outcome (executor killed mid-call): ${unknownOutcomes}`);
    // Only the calls the killed executor had in hand can end so: at most its concurrency.
    assert.ok(unknownOutcomes <= 64, `${unknownOutcomes} unknown outcomes`);
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    assert.equal(run.lost, 0);
    assert.equal(run.duplicateSideEffects, 0);
    assert.equal(run.completed, PACKETS);
  });
});
