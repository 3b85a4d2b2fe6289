import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { errors as natsErrors } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { suiteNats } from "@switchyard/test-fixtures";
import { GatewayError } from "../src/shared/deps.js";
import { NATS_UNAVAILABLE, watchNatsAvailability, whileNatsAvailable } from "../src/fleet/nats-availability.js";

const up = { connected: () => true, awaitConnection: async () => true };
const down = { connected: () => false, awaitConnection: async () => false };
const isUnavailable = (error: unknown) => error instanceof GatewayError && error.code === "unavailable" && error.message === NATS_UNAVAILABLE;

describe("gateway nats availability", () => {
  it("gateway - while NATS stays disconnected a request is refused, its work never started", async () => {
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

describe("gateway nats availability - a real connection", () => {
  const nats = suiteNats();

  it("gateway - a request that finds the connection lost waits for it to come back within the grace period, and runs", async () => {
    const nc = await connect({ servers: nats.server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const availability = watchNatsAvailability(nc, 10_000);
      const disconnected = firstDisconnect(nc);
      await nats.server.kill();
      await disconnected;
      const request = whileNatsAvailable(availability, async () => "ran");
      await nats.server.restart();
      assert.equal(await request, "ran");
    } finally {
      await nc.close();
    }
  });

  it("gateway - past the grace period the request is refused", async () => {
    const nc = await connect({ servers: nats.server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const availability = watchNatsAvailability(nc, 300);
      const disconnected = firstDisconnect(nc);
      await nats.server.kill();
      await disconnected;
      await assert.rejects(whileNatsAvailable(availability, async () => "ran"), isUnavailable);
      await nats.server.restart();
    } finally {
      await nc.close();
    }
  });
});

/** Resolves once the client notices that its server is gone (listening from the call on). */
async function firstDisconnect(nc: NatsConnection): Promise<void> {
  for await (const event of nc.status()) if (event.type === "disconnect") return;
}
