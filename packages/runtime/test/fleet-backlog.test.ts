import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream } from "@nats-io/jetstream";
import type { ConsumerMessages } from "@nats-io/jetstream";
import { trace } from "@opentelemetry/api";
import { ensureStageConsumer, followStoredPackets, PACKETS_STREAM, publishPacket, WaitingPackets } from "@switchyard/bus";
import { encodePacket, newPacket, Packet_State, requestApproval } from "@switchyard/packet";
import { freePort, startLocalNats } from "@switchyard/local-nats";
import type { LocalNats } from "@switchyard/local-nats";
import { promSample } from "@switchyard/test-fixtures";
import { startService, watchFleetBacklog } from "../src/index.js";
import type { ServiceContext } from "../src/index.js";

describe("runtime - the gateway's fleet view on /metrics", () => {
  let nats: LocalNats;
  let service: ServiceContext;
  let metricsUrl = "";
  let intentMessages: ConsumerMessages | undefined;

  before(async () => {
    nats = await startLocalNats();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const env = { NATS_URL: nats.url, HEALTH_PORT: String(port), HEALTH_HOST: "127.0.0.1", LOG_LEVEL: "silent" };
    service = await startService({ name: "gateway", description: "the fleet view under test", env });
    // As the gateway does: its watch of the packets bucket feeds the waiting tally.
    const waiting = new WaitingPackets(service.config.PACKET_RETENTION_HOURS * 3_600_000);
    service.onStop(await followStoredPackets(service.packets, [waiting.observe], (error) => assert.fail(String(error))));
    service.onStop(await watchFleetBacklog(service, waiting));
  });

  after(async () => {
    intentMessages?.stop();
    await service?.shutdown();
    await nats?.stop();
  });

  /** Scrapes until `ready` holds of the body (the bucket's watch tells a little after a write), or gives the last body. */
  async function scrapeUntil(ready: (body: string) => boolean): Promise<string> {
    let body = "";
    for (let i = 0; i < 50; i += 1) {
      body = await (await fetch(metricsUrl)).text();
      if (ready(body)) break;
      await sleep(100);
    }
    return body;
  }

  it("runtime - a stage with packets and no consumer shows them pending with no pull request; a running consumer shows its pull", async () => {
    await publishPacket(jetstream(service.nc), trace.getTracer("test"), "route", newPacket({ message: "list the files" }));
    await ensureStageConsumer(service.nc, "intent");
    const messages = await jetstream(service.nc).consumers.get(PACKETS_STREAM, "intent").then((consumer) => consumer.consume({ max_messages: 1 }));
    intentMessages = messages;
    // A replica at work: it pulls as it reads.
    void (async () => {
      for await (const message of messages) message.ack();
    })();
    const body = await scrapeUntil((b) => (promSample(b, "switchyard_consumer_pull_requests_waiting", { stage: "intent" }) ?? 0) >= 1);
    const sample = (name: string, stage: string) => promSample(body, name, { service: "gateway", stage });
    assert.equal(sample("switchyard_consumer_pending_messages", "route"), 1, "the route stage has no consumer: its message waits");
    assert.equal(sample("switchyard_consumer_pull_requests_waiting", "route"), 0);
    assert.ok((sample("switchyard_consumer_pull_requests_waiting", "intent") ?? 0) >= 1, "the running consumer asks for work");
    assert.equal(sample("switchyard_consumer_pending_messages", "intent"), 0);
    for (const stage of ["select", "review", "execute"]) assert.equal(sample("switchyard_consumer_pending_messages", stage), 0, `${stage} is reported too`);
  });

  it("runtime - packets waiting for a person are counted by state; an approval past its time counts once as expired", async () => {
    const store = async (state: Packet_State, approvalTtlMs?: number) => {
      const packet = newPacket({ message: "write notes/todo.md" });
      packet.state = state;
      if (approvalTtlMs !== undefined) requestApproval(packet, approvalTtlMs);
      await service.packets.put(packet.header!.packetId, encodePacket(packet));
    };
    await store(Packet_State.AWAITING_APPROVAL, -1_000);
    await store(Packet_State.AWAITING_APPROVAL, 600_000);
    await store(Packet_State.AWAITING_USER);
    await store(Packet_State.COMPLETED);
    const body = await scrapeUntil((b) => promSample(b, "switchyard_packets_waiting", { state: "AWAITING_USER" }) === 1);
    assert.equal(promSample(body, "switchyard_packets_waiting", { service: "gateway", state: "AWAITING_APPROVAL" }), 2);
    assert.equal(promSample(body, "switchyard_approvals_expired_total", { service: "gateway" }), 1);
    const again = await (await fetch(metricsUrl)).text();
    assert.equal(promSample(again, "switchyard_approvals_expired_total"), 1, "counted once");
  });
});
