import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { errors as natsErrors } from "@nats-io/nats-core";
import { GatewayError } from "../src/deps.js";
import { NATS_UNAVAILABLE, whileNatsAvailable } from "../src/nats-availability.js";

const up = { connected: () => true };
const down = { connected: () => false };
const isUnavailable = (error: unknown) => error instanceof GatewayError && error.code === "unavailable" && error.message === NATS_UNAVAILABLE;

describe("gateway nats availability", () => {
  it("gateway - while NATS is disconnected a request is refused at once, its work never started", async () => {
    let started = false;
    await assert.rejects(
      whileNatsAvailable(down, async () => {
        started = true;
      }),
      isUnavailable,
    );
    assert.equal(started, false);
  });

  it("gateway - a publish that times out or finds no JetStream is 'unavailable'", async () => {
    for (const failure of [new natsErrors.TimeoutError(), new natsErrors.RequestError("no responders"), new natsErrors.ClosedConnectionError()]) {
      await assert.rejects(whileNatsAvailable(up, () => Promise.reject(failure)), isUnavailable, failure.name);
    }
  });

  it("gateway - other failures keep their meaning: a 404 stays a 404, a bug stays an internal error", async () => {
    const notFound = new GatewayError("not_found", "no packet");
    await assert.rejects(whileNatsAvailable(up, () => Promise.reject(notFound)), (error) => error === notFound);
    const bug = new TypeError("x is undefined");
    await assert.rejects(whileNatsAvailable(up, () => Promise.reject(bug)), (error) => error === bug);
    const badKey = new natsErrors.InvalidArgumentError("invalid key");
    await assert.rejects(whileNatsAvailable(up, () => Promise.reject(badKey)), (error) => error === badKey);
    assert.equal(await whileNatsAvailable(up, async () => 42), 42);
  });
});
