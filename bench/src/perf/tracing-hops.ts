/**
 * One measurement of `pnpm bench tracing`, run in its own process so that tracing is set up
 * once, from the environment, as a service does: a stage worker on a real nats-server takes
 * `PACKETS` packets, each a JetStream message published in a PRODUCER span, consumed in a
 * CONSUMER span, stored in the packets bucket and announced. Prints the wall time per packet.
 */
import { connect } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { DONE_WILDCARD, ensurePacketStream, ensureStageConsumer, openBucket, PACKETS_BUCKET, publishPacket, startStageWorker } from "@switchyard/bus";
import { newPacket } from "@switchyard/packet";
import { createLogger, initTracing } from "@switchyard/telemetry";

const url = process.env["BENCH_NATS_URL"]!;
const total = Number(process.env["BENCH_PACKETS"] ?? 2000);
const tracing = initTracing("bench");
const nc = await connect({ servers: url });
await ensurePacketStream(nc);
await ensureStageConsumer(nc, "intent");
const packets = await openBucket(nc, PACKETS_BUCKET);
const worker = await startStageWorker({
  nc,
  stage: "intent",
  service: "bench",
  handle: () => ({ done: true }),
  packets,
  tracer: tracing.tracer,
  logger: createLogger("bench", "warn"),
});

let finished = 0;
let allDone: () => void;
const done = new Promise<void>((resolve) => (allDone = resolve));
nc.subscribe(DONE_WILDCARD, {
  callback: () => {
    if (++finished === total) allDone();
  },
});

const js = jetstream(nc);
const started = performance.now();
for (let i = 0; i < total; i++) {
  const packet = newPacket({ message: `bench packet ${i}` });
  packet.header!.hop = 1;
  // The gateway's request span: every packet is its own trace, as in the product.
  await tracing.tracer.startActiveSpan("request", async (span) => {
    await publishPacket(js, tracing.tracer, "intent", packet);
    span.end();
  });
}
await done;
const elapsed = performance.now() - started;
await worker.stop();
await nc.drain();
await tracing.shutdown();
console.log(JSON.stringify({ exporting: tracing.exporting, packets: total, msPerPacket: elapsed / total }));
