/**
 * packet-e2e's floor: a message through `hops` JetStream hops, each relay its own
 * process (hop-relay.ts), published with an ack as the gateway publishes a packet and
 * awaited until the last relay announces it, as the gateway waits for a finished packet.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { doneSubject, hopSubject, HOPS_STREAM } from "./hop-relay.js";
import { loopLoad } from "./load.js";
import type { LoadFigures } from "./load.js";

const RELAY = fileURLToPath(new URL("hop-relay.js", import.meta.url));

export async function hopFloor(options: { natsUrl: string; hops: number; payload: Uint8Array; connections: number; duration: number }): Promise<LoadFigures> {
  const nc = await connect({ servers: options.natsUrl });
  const relays: ChildProcess[] = [];
  try {
    const jsm = await jetstreamManager(nc);
    // The packet stream's settings: work queue, file storage.
    await jsm.streams.add({ name: HOPS_STREAM, subjects: ["bench.hops.>"], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
    for (let hop = 1; hop <= options.hops; hop++) relays.push(await startRelay(options.natsUrl, hop, options.hops));
    const waiting = new Map<string, () => void>();
    nc.subscribe(doneSubject("*"), { callback: (_e, m) => waiting.get(m.subject.slice(doneSubject("").length))?.() });
    const js = jetstream(nc);
    let run = 0;
    const prefix = `r${Date.now()}`;
    const once = async (i: number) => {
      const id = `${prefix}-${run}-${i}`;
      const done = new Promise<void>((resolve) => waiting.set(id, resolve));
      const h = natsHeaders();
      h.set("bench-id", id);
      await js.publish(hopSubject(1), options.payload, { headers: h, msgID: `${id}:1` });
      await done;
      waiting.delete(id);
    };
    await loopLoad(once, { connections: options.connections, duration: 2 });
    run++;
    return await loopLoad(once, options);
  } finally {
    for (const relay of relays) relay.kill("SIGTERM");
    await Promise.all(relays.map((relay) => (relay.exitCode === null ? once(relay, "exit") : undefined)));
    await nc.drain();
  }
}

async function startRelay(natsUrl: string, hop: number, hops: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [RELAY], { env: { ...process.env, BENCH_NATS_URL: natsUrl, BENCH_HOP: String(hop), BENCH_HOPS: String(hops) }, stdio: ["ignore", "pipe", "inherit"] });
  for await (const line of createInterface({ input: child.stdout! })) if (line === "ready") break;
  return child;
}
