/**
 * Full packets under load, shared by packet-e2e and tracing-cost: the six services as
 * processes with the real MCP servers of switchyard.yaml, each request a packet that
 * reads a file through the filesystem server, answered when it finished (wait: true).
 */
import autocannon from "autocannon";
import type { ToolDefinition } from "@switchyard/packet";
import { micro, rate } from "./bench-result.js";
import { startBenchFleet } from "./bench-fleet.js";
import type { BenchFleet } from "./bench-fleet.js";
import type { LoadFigures } from "./load.js";

/** The file every packet reads (examples/workspace/notes/todo.md, copied per run). */
export const READ_PATH = "notes/todo.md";
export const PACKET_MESSAGE = `please read the file ${READ_PATH}`;
const READY_TIMEOUT_MS = 60_000;

export interface PacketFleet extends BenchFleet {
  /** JetStream hops of one packet: its hop records after the gateway's. */
  hops: number;
  /** Bytes of a finished packet as JSON: what the floor's messages weigh. */
  packetBytes: number;
}

/** Starts the fleet and waits until a packet reads the file (the catalog is synced and indexed). */
export async function startPacketFleet(env: Record<string, string> = {}, catalog?: readonly ToolDefinition[], nodeArgs?: readonly string[]): Promise<PacketFleet> {
  const bench = await startBenchFleet({ env, catalog, ...(nodeArgs ? { nodeArgs } : {}) });
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      const response = await fetch(`${bench.url}/v1/packets`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: PACKET_MESSAGE }) });
      const text = await response.text();
      const packet = JSON.parse(text) as { state?: string; hops?: unknown[]; toolRouting?: { executionStatus?: string } };
      if (packet.state === "COMPLETED" && packet.toolRouting?.executionStatus === "EXECUTED") {
        return { ...bench, hops: (packet.hops?.length ?? 1) - 1, packetBytes: text.length };
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

export async function packetLoad(url: string, options: { connections: number; duration: number }): Promise<PacketFigures> {
  let completed = 0;
  const result = await autocannon({
    url: `${url}/v1/packets`,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: PACKET_MESSAGE, wait: true }),
        onResponse: (status, body) => {
          if (status !== 200) return;
          const packet = JSON.parse(body) as { state?: string; toolRouting?: { executionStatus?: string } };
          if (packet.state === "COMPLETED" && packet.toolRouting?.executionStatus === "EXECUTED") completed++;
        },
      },
    ],
  });
  // Requests still in flight when autocannon stops are in neither count: they are not lost, only unanswered yet.
  const answeredOrFailed = result.requests.total + result.errors + result.timeouts;
  return {
    p50Ms: micro(result.latency.p50),
    p99Ms: micro(result.latency.p99),
    throughput: rate(completed / options.duration),
    completed,
    failed: result.errors + result.timeouts + result.non2xx,
    lost: answeredOrFailed - completed,
  };
}
