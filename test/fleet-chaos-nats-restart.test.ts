import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { chaosSuite, finishRun, submitPackets } from "./chaos-run.js";
import { eventually, fleetSkipReason } from "./harness.js";

// CHAOS_PACKETS runs a smaller round while working on these tests.
const PACKETS = Number(process.env.CHAOS_PACKETS ?? 300);
const skip = fleetSkipReason();

describe("fleet chaos - nats-server killed and restarted mid-run", { skip }, () => {
  const suite = chaosSuite({ ackWaitMs: 3_000 });

  it(`fleet chaos - ${PACKETS} packets, nats-server SIGKILLed and restarted on its store: the services reconnect, every accepted packet ends once, its side effect once`, { timeout: 600_000 }, async (ctx) => {
    const { t } = suite.chaos;
    let answered = 0;
    const sending = submitPackets(t, { count: PACKETS, concurrency: 8, onAnswered: (n) => (answered = n) });

    await eventually(async () => (answered >= PACKETS / 3 ? true : undefined), 300_000, "a third of the packets answered");
    await t.nats.kill();
    // Requests made while NATS is away wait for it (PUBLISH_TIMEOUT_MS, 5 s), then are refused: 503 with Retry-After.
    // The stream's requests already in flight may instead ride the outage out (their publish is tried again within
    // WAIT_TIMEOUT_MS), so two requests are made once the outage has begun.
    await sleep(1_000);
    const outage = await submitPackets(t, { count: 2, prefix: "outage", concurrency: 2 });
    // Longer than the gateway waits for a lost connection.
    await sleep(2_000);
    await t.nats.restart();
    const during = [...(await sending), ...outage];
    const refused = during.filter((s) => s.status !== 202);
    assert.deepEqual(outage.map((s) => s.status), [503, 503], "requests made while NATS was away were refused");
    assert.ok(refused.every((s) => s.status === 503), `only 503 while NATS is away: ${JSON.stringify(refused.find((s) => s.status !== 503))}`);
    assert.ok(refused.every((s) => Number(s.retryAfter) > 0), `every 503 says when to try again: ${JSON.stringify(refused.find((s) => !s.retryAfter))}`);
    // After the restart the fleet serves again by itself: a second round, accepted and completed in full.
    await eventually(async () => ((await t.get("/readyz")).status === 200 ? true : undefined), 60_000, "the gateway to be ready again");
    const after = await submitPackets(t, { count: PACKETS / 2, prefix: "after", concurrency: 8 });
    assert.ok(after.every((s) => s.status === 202), `every packet after the restart is accepted: ${JSON.stringify(after.find((s) => s.status !== 202))}`);
    const submissions = [...during, ...after];
    const accepted = submissions.filter((s) => s.status === 202);

    const { run, problems, unknownOutcomes } = await finishRun("nats-server restart", suite, submissions);
    ctx.diagnostic(`${JSON.stringify(run)}; refused (503) while NATS was down: ${refused.length}`);
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    assert.equal(unknownOutcomes, 0, "no executor died, so every call's outcome is known");
    assert.equal(run.lost, 0);
    assert.equal(run.duplicateSideEffects, 0);
    assert.equal(run.completed, accepted.length);
  });
});
