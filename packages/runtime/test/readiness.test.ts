import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream } from "@nats-io/jetstream";
import { trace } from "@opentelemetry/api";
import { doneSubject, publishPacket } from "@switchyard/bus";
import { addFallback, finish, newPacket, Packet_State } from "@switchyard/packet";
import { freePort, startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import { promSample } from "@switchyard/test-fixtures";
import type { DependencyReporter } from "@switchyard/telemetry";
import { downInFleet, runStage, startService } from "../src/index.js";
import type { ServiceContext } from "../src/index.js";

const REFUSED = { cause: "connection_refused", text: "did not answer (connection refused)" } as const;

describe("runtime - readiness names the dependencies that are down", () => {
  let nats: LocalNats;
  let nc: NatsConnection;
  let service: ServiceContext;
  let model: DependencyReporter;
  let base = "";

  before(async () => {
    nats = await startLocalNats();
    nc = await connect({ servers: nats.url });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = await startService({
      name: "readiness-test",
      description: "a stage with one model",
      env: { NATS_URL: nats.url, HEALTH_PORT: String(port), HEALTH_HOST: "127.0.0.1", LOG_LEVEL: "silent" },
    });
    model = service.dependencies.watch({ name: "selection model", model: "m", endpoint: "127.0.0.1:9" });
    // The stage falls back on every packet, as a stage whose model is down does.
    await runStage(service, "select", (packet) => {
      addFallback(packet, { stage: "select", dependency: "selection model", cause: "connection_refused", detail: "the selection model m at 127.0.0.1:9 did not answer (connection refused), so the built-in selector chose x" });
      finish(packet, Packet_State.COMPLETED, "done: x ran");
      return { done: true };
    });
    service.setReady(true);
  });

  after(async () => {
    await service?.shutdown();
    await nc?.close();
    await nats?.stop();
  });

  const readyz = async () => {
    const response = await fetch(`${base}/readyz`);
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it("runtime - /readyz stays 200, degraded with the dependency's name while it is down, ready once it answers; the fleet's $SRV.PING says the same", async () => {
    assert.deepEqual(await readyz(), { status: 200, body: { status: "ready" } });
    assert.deepEqual(await downInFleet(nc), []);

    model.failed(REFUSED);
    assert.deepEqual(await readyz(), { status: 200, body: { status: "degraded", down: ["selection model"] } });
    // The micro service is added anew with the new metadata: wait for it.
    for (let i = 0; i < 50 && (await downInFleet(nc)).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await downInFleet(nc), ["selection model"]);

    model.failed({ cause: "invalid_answer", text: "gave no usable answer (not JSON)" });
    assert.deepEqual((await readyz()).body, { status: "ready" }, "a model that answers, however badly, is not down");
    model.failed(REFUSED);
    model.answered();
    assert.deepEqual((await readyz()).body, { status: "ready" });
    for (let i = 0; i < 50 && (await downInFleet(nc)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await downInFleet(nc), []);
  });

  it("runtime - each packet a stage decided by its fallback is counted on /metrics by stage, dependency and cause", async () => {
    for (let i = 0; i < 2; i++) {
      const packet = newPacket({ message: `packet ${i}` });
      const done = nc.subscribe(doneSubject(packet.header!.packetId), { max: 1 });
      await publishPacket(jetstream(nc), trace.getTracer("test"), "select", packet);
      for await (const _ of done) break;
    }
    const body = await (await fetch(`${base}/metrics`)).text();
    const labels = { service: "readiness-test", stage: "select", dependency: "selection model", cause: "connection_refused" };
    assert.equal(promSample(body, "switchyard_fallbacks_total", labels), 2);
    assert.equal(promSample(body, "switchyard_dependency_up", { service: "readiness-test", dependency: "selection model" }), 1);
  });
});
