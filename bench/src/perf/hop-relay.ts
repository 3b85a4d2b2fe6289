/**
 * One process of packet-e2e's floors: JetStream hops without Switchyard's logic. Consumes
 * the durable consumer of its floor's hop `BENCH_HOP` and passes each message on to the
 * next hop (or, from the last, announces it on `bench.done.<id>` in core NATS, as a
 * finished packet is announced), acknowledging only after that publish, as a stage does.
 * A relay of the "codec" floor also decodes the message as a packet, records its hop and
 * encodes it again — what every stage does to a packet before and after its own work.
 * Logs "ready" once consuming.
 */
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { recordHop, startHopClock } from "@switchyard/bus";
import { decodePacket, encodePacket } from "@switchyard/packet";

/** "bare" passes the bytes on as they came; "codec" decodes, records a hop and encodes the packet. */
export type FloorKind = "bare" | "codec";
export const hopsStream = (kind: FloorKind): string => `BENCH_HOPS_${kind.toUpperCase()}`;
export const hopSubject = (kind: FloorKind, hop: number | ">"): string => `bench.${kind}.hops.${hop}`;
export const doneSubject = (id: string): string => `bench.done.${id}`;
/** Messages one relay holds at once, as STAGE_CONCURRENCY does for a stage. */
const CONCURRENCY = 64;

/** A stage's handling of the packet around its own work: decode, record the hop, encode. */
function recodePacket(data: Uint8Array): Uint8Array {
  const clock = startHopClock();
  const packet = decodePacket(data);
  recordHop(packet, "relay", clock);
  return encodePacket(packet);
}

async function main(): Promise<void> {
  const kind = process.env["BENCH_FLOOR"] as FloorKind;
  const hop = Number(process.env["BENCH_HOP"]);
  const last = Number(process.env["BENCH_HOPS"]);
  const pass = kind === "codec" ? recodePacket : (data: Uint8Array) => data;
  // As the services connect (packages/runtime): no stack-trace errors built for every request.
  const nc = await connect({ servers: process.env["BENCH_NATS_URL"]!, noAsyncTraces: true });
  const jsm = await jetstreamManager(nc);
  const durable = `${kind}-hop-${hop}`;
  await jsm.consumers.add(hopsStream(kind), { durable_name: durable, filter_subject: hopSubject(kind, hop), ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 });
  const js = jetstream(nc);
  const messages = await (await js.consumers.get(hopsStream(kind), durable)).consume({ max_messages: CONCURRENCY });
  process.stdout.write("ready\n");
  process.on("SIGTERM", () => void nc.drain().then(() => process.exit(0)));
  for await (const m of messages) {
    const id = m.headers?.get("bench-id") ?? "";
    const data = pass(m.data);
    const forward =
      hop === last ? Promise.resolve(nc.publish(doneSubject(id), data)) : js.publish(hopSubject(kind, hop + 1), data, { headers: m.headers, msgID: `${id}:${hop + 1}` });
    // Like a stage: many messages in flight, each acknowledged once passed on.
    void forward.then(
      () => m.ack(),
      () => m.nak(),
    );
  }
}

if (process.env["BENCH_HOP"]) await main();
