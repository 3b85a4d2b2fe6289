import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import { isNatsFailure, isTransientNatsFailure, retryWhileTransient } from "../src/index.js";

// A publish to a subject no stream listens on gets what a publish gets while a stream's
// leader is being elected: no responders, which nats.js throws as JetStreamNotEnabled.
describe("transient NATS failures - a real nats-server", () => {
  let server: LocalNats;
  let nc: NatsConnection;

  before(async () => {
    server = await startLocalNats();
    nc = await connect({ servers: server.url });
  });

  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  it("nats failure - a publish nobody answers is a NATS failure that passes (the gateway answers 503, a stage retries)", async () => {
    const js = jetstream(nc, { timeout: 1000 });
    const error = await js.publish("nowhere.a", "x").then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Error, String(error));
    assert.equal(isNatsFailure(error), true, `${(error as Error).name}: ${(error as Error).message}`);
    assert.equal(isTransientNatsFailure(error), true);
    assert.equal(isTransientNatsFailure(new Error("a bug of ours")), false);
  });

  it("nats failure - retryWhileTransient publishes once the stream is there again, and the message id keeps it single", async () => {
    const js = jetstream(nc, { timeout: 1000 });
    const jsm = await jetstreamManager(nc);
    let tries = 0;
    const publishing = retryWhileTransient(() => {
      tries++;
      return js.publish("later.a", "x", { msgID: "m-1" });
    }, 10_000);
    await sleep(600);
    await jsm.streams.add({ name: "LATER", subjects: ["later.>"] });
    const ack = await publishing;
    assert.ok(tries > 2, `tried ${tries} times`);
    assert.equal(ack.stream, "LATER");
    const again = await retryWhileTransient(() => js.publish("later.a", "x", { msgID: "m-1" }), 1000);
    assert.equal(again.duplicate, true);
    assert.equal((await jsm.streams.info("LATER")).state.messages, 1);
  });

  it("nats failure - past the budget the last error is thrown; an error that does not pass is thrown at once", async () => {
    const js = jetstream(nc, { timeout: 200 });
    const started = Date.now();
    await assert.rejects(retryWhileTransient(() => js.publish("nowhere.b", "x"), 800), (error: Error) => isTransientNatsFailure(error));
    assert.ok(Date.now() - started < 3000);
    let tries = 0;
    await assert.rejects(
      retryWhileTransient(async () => {
        tries++;
        throw new TypeError("not a NATS failure");
      }, 5000),
      TypeError,
    );
    assert.equal(tries, 1);
  });

  it("nats failure - mayRetry, asked before each retry, stops the retries early when it says no", async () => {
    const js = jetstream(nc, { timeout: 200 });
    let asked = 0;
    const started = Date.now();
    await assert.rejects(
      retryWhileTransient(() => js.publish("nowhere.c", "x"), 10_000, async () => ++asked < 3),
      (error: Error) => isTransientNatsFailure(error),
    );
    assert.equal(asked, 3, "asked before the 2nd, 3rd and 4th try; the 3rd answer ended it");
    assert.ok(Date.now() - started < 5000, "well within the budget");
  });
});
