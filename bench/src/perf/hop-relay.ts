/**
 * One process of packet-e2e's floor: JetStream hops without Switchyard's logic. Consumes
 * the durable consumer of `bench.hops.<BENCH_HOP>` and passes each message on to the
 * next hop (or, from the last, announces it on `bench.done.<id>` in core NATS, as a
 * finished packet is announced), acknowledging only after that publish, as a stage does.
 * Logs "ready" once consuming.
 */
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

export const HOPS_STREAM = "BENCH_HOPS";
export const hopSubject = (hop: number): string => `bench.hops.${hop}`;
export const doneSubject = (id: string): string => `bench.done.${id}`;
/** Messages one relay holds at once, as STAGE_CONCURRENCY does for a stage. */
const CONCURRENCY = 64;

async function main(): Promise<void> {
  const hop = Number(process.env["BENCH_HOP"]);
  const last = Number(process.env["BENCH_HOPS"]);
  const nc = await connect({ servers: process.env["BENCH_NATS_URL"]! });
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(HOPS_STREAM, { durable_name: `hop-${hop}`, filter_subject: hopSubject(hop), ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 });
  const js = jetstream(nc);
  const messages = await (await js.consumers.get(HOPS_STREAM, `hop-${hop}`)).consume({ max_messages: CONCURRENCY });
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => void nc.drain().then(() => process.exit(0)));
  for await (const m of messages) {
    const id = m.headers?.get("bench-id") ?? "";
    const forward =
      hop === last ? Promise.resolve(nc.publish(doneSubject(id), m.data)) : js.publish(hopSubject(hop + 1), m.data, { headers: m.headers, msgID: `${id}:${hop + 1}` });
    // Like a stage: many messages in flight, each acknowledged once passed on.
    void forward.then(
      () => m.ack(),
      () => m.nak(),
    );
  }
}

if (process.env["BENCH_HOP"]) await main();
