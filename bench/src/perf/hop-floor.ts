/**
 * packet-e2e's floors: a message through `hops` JetStream hops, each relay its own
 * process (hop-relay.ts), published with an ack as the gateway publishes a packet and
 * awaited until the last relay announces it, as the gateway waits for a finished packet.
 * Each kind of floor has its own stream, so both can be started at once; each is started
 * once, then run at each connection count.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { doneSubject, hopsStream, hopSubject } from "./hop-relay.js";
import type { FloorKind } from "./hop-relay.js";
import { loopLoad } from "./load.js";
import type { ClosedLoad, LoadFigures } from "./load.js";

const RELAY = fileURLToPath(new URL("hop-relay.js", import.meta.url));

export interface HopFloor {
  /** The relay processes, for their CPU time. */
  pids: number[];
  /** Closed-loop messages through the hops, `connections` in flight, for `duration` seconds. */
  run(load: ClosedLoad): Promise<LoadFigures>;
  close(): Promise<void>;
}

export interface HopFloorOptions {
  natsUrl: string;
  kind: FloorKind;
  hops: number;
  /** What the first hop is sent: for the "codec" floor, a packet's bytes. */
  payload: Uint8Array;
}

/** Creates the floor's stream, starts one relay process per hop, and returns them ready to run. */
export async function startHopFloor(options: HopFloorOptions): Promise<HopFloor> {
  const { kind } = options;
  const nc = await connect({ servers: options.natsUrl });
  const relays: ChildProcess[] = [];
  const close = async () => {
    for (const relay of relays) relay.kill("SIGTERM");
    await Promise.all(relays.map((relay) => (relay.exitCode === null ? once(relay, "exit") : undefined)));
    await nc.drain();
  };
  try {
    const jsm = await jetstreamManager(nc);
    // The packet stream's settings: work queue, file storage.
    await jsm.streams.add({ name: hopsStream(kind), subjects: [hopSubject(kind, ">")], retention: RetentionPolicy.Workqueue, storage: StorageType.File });
    for (let hop = 1; hop <= options.hops; hop++) relays.push(await startRelay(options, hop));
  } catch (error) {
    await close();
    throw error;
  }
  const waiting = new Map<string, () => void>();
  nc.subscribe(doneSubject("*"), { callback: (_e, m) => waiting.get(m.subject.slice(doneSubject("").length))?.() });
  const js = jetstream(nc);
  let runs = 0;
  const prefix = `${kind}${Date.now()}`;
  return {
    pids: relays.map((relay) => relay.pid!),
    run: (load) => {
      const run = runs++;
      return loopLoad(async (i) => {
        const id = `${prefix}-${run}-${i}`;
        const done = new Promise<void>((resolve) => waiting.set(id, resolve));
        const h = natsHeaders();
        h.set("bench-id", id);
        await js.publish(hopSubject(kind, 1), options.payload, { headers: h, msgID: `${id}:1` });
        await done;
        waiting.delete(id);
      }, load);
    },
    close,
  };
}

async function startRelay(options: HopFloorOptions, hop: number): Promise<ChildProcess> {
  const env = { ...process.env, BENCH_NATS_URL: options.natsUrl, BENCH_FLOOR: options.kind, BENCH_HOP: String(hop), BENCH_HOPS: String(options.hops) };
  const child = spawn(process.execPath, [RELAY], { env, stdio: ["ignore", "pipe", "inherit"] });
  for await (const line of createInterface({ input: child.stdout! })) if (line === "ready") break;
  return child;
}
