/**
 * Full packets under load, shared by packet-e2e and tracing-cost: the six services as
 * processes with the real MCP servers of switchyard.yaml, each request a packet that
 * reads a file through the filesystem server, answered when it finished (wait: true).
 */
import { fromJson } from "@bufbuild/protobuf";
import type { JsonValue } from "@bufbuild/protobuf";
import { encodePacket, PacketSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { latencySummary, rate } from "./bench-result.js";
import { startBenchFleet } from "./bench-fleet.js";
import type { BenchFleet } from "./bench-fleet.js";
import { cannon } from "./load.js";
import type { ClosedLoad, LoadFigures } from "./load.js";

/** The file every packet reads (examples/workspace/notes/todo.md, copied per run). */
export const READ_PATH = "notes/todo.md";
export const PACKET_MESSAGE = `please read the file ${READ_PATH}`;
const READY_TIMEOUT_MS = 60_000;
const PACKET_BODY = JSON.stringify({ message: PACKET_MESSAGE, wait: true });
/** Longer than the gateway waits for a packet before it answers 202. */
const ANSWER_TIMEOUT_MS = 60_000;

interface PacketAnswer {
  state?: string;
  hops?: unknown[];
  toolRouting?: { executionStatus?: string };
}

/** A packet that did what every bench packet asks: finished, with the file read. */
function readTheFile(packet: PacketAnswer): boolean {
  return packet.state === "COMPLETED" && packet.toolRouting?.executionStatus === "EXECUTED";
}

export interface PacketFleet extends BenchFleet {
  /** JetStream hops of one packet: its hop records after the gateway's. */
  hops: number;
  /** Bytes of a finished packet as JSON: what the bare floor's messages weigh. */
  packetBytes: number;
  /** A finished packet as it travels (protobuf): what the codec floor's relays decode and encode. */
  packet: Uint8Array;
}

/** Starts the fleet and waits until a packet reads the file (the catalog is synced and indexed). */
export async function startPacketFleet(env: Record<string, string> = {}, catalog?: readonly ToolDefinition[], nodeArgs?: readonly string[]): Promise<PacketFleet> {
  const bench = await startBenchFleet({ env, catalog, ...(nodeArgs ? { nodeArgs } : {}) });
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const response = await fetch(`${bench.url}/v1/packets`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: PACKET_MESSAGE }) });
      const text = await response.text();
      const json = JSON.parse(text) as JsonValue;
      const packet = json as PacketAnswer;
      if (readTheFile(packet)) {
        return { ...bench, hops: (packet.hops?.length ?? 1) - 1, packetBytes: text.length, packet: encodePacket(fromJson(PacketSchema, json)) };
      }
      if (Date.now() > deadline) throw new Error(`no packet read the file within ${READY_TIMEOUT_MS} ms; the last: ${text.slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } catch (error) {
    await bench.close();
    throw error;
  }
}

export interface PacketFigures extends LoadFigures {
  /** Packets sent that did not come back COMPLETED with the tool executed: errors, timeouts, non-200, 202, other states. */
  lost: number;
}

/** Closed-loop packets (autocannon, `connections` in flight) for `duration` seconds. */
export async function packetLoad(url: string, options: ClosedLoad): Promise<PacketFigures> {
  let completed = 0;
  const { result, samples } = await cannon({
    url: `${url}/v1/packets`,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: PACKET_BODY,
        onResponse: (status, body) => {
          if (status === 200 && readTheFile(JSON.parse(body) as PacketAnswer)) completed++;
        },
      },
    ],
  });
  // Requests still in flight when autocannon stops are in neither count: they are not lost, only unanswered yet.
  const answeredOrFailed = result.requests.total + result.errors + result.timeouts;
  return {
    ...latencySummary(samples),
    throughput: rate(completed / options.duration),
    completed,
    failed: result.errors + result.timeouts + result.non2xx,
    lost: answeredOrFailed - completed,
  };
}

/** One packet, as an open-loop caller sends it (soak.ts): throws unless it came back having read the file. */
export async function sendPacket(url: string): Promise<void> {
  const response = await fetch(`${url}/v1/packets`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: PACKET_BODY,
    signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status !== 200 || !readTheFile(JSON.parse(text) as PacketAnswer)) throw new Error(`not read: ${response.status} ${text.slice(0, 200)}`);
}
