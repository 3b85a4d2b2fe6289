/**
 * `pnpm bench packet-e2e`: full packets (heuristic selector and reviewer, the real
 * filesystem MCP server) through the six services as processes, beside two floors
 * measured in the same run with the same load: the packet's JetStream hops without our
 * logic (hop-floor.ts) and the MCP call alone (mcp-alone.ts). What a packet costs above
 * both, spread over its hops, is our overhead per hop.
 */
import { readBench } from "@switchyard/bench-data";
import type { ToolDefinition } from "@switchyard/packet";
import type { BenchResult, BenchRun } from "./bench-result.js";
import { micro, rate } from "./bench-result.js";
import { hopFloor } from "./hop-floor.js";
import { describeGrowth, growth } from "./growth.js";
import { mcpAlone } from "./mcp-alone.js";
import type { LoadFigures } from "./load.js";
import { packetLoad, READ_PATH, startPacketFleet } from "./packet-load.js";
import { scaleCatalog } from "./scale-catalog.js";

export interface PacketE2eOptions {
  /** Tools added to the catalog beside the MCP servers' (scale-catalog.ts), one run each; empty: none added. */
  sizes: readonly number[];
  duration: number;
  connections: number;
  /** Where each service writes a V8 CPU profile as it stops; undefined: none. */
  cpuProfDir?: string | undefined;
  log: (line: string) => void;
}

const WARMUP_SECONDS = 3;
const PACKET = "packet (6 services, MCP read)";

export async function benchPacketE2e(options: PacketE2eOptions): Promise<BenchRun> {
  const results: BenchResult[] = [];
  const notes: string[] = [];
  const datasets = options.sizes.length > 0 ? ["metatool", "bfcl", "apibank"].map((name) => readBench(name)) : [];
  for (const size of options.sizes.length > 0 ? options.sizes : [0]) {
    const run = await packetRun(size === 0 ? undefined : scaleCatalog(datasets, size).tools, options);
    results.push(...run.results);
    notes.push(...run.notes);
  }
  const packets = results.filter((r) => r.config["path"] === PACKET);
  if (packets.length > 1) {
    const at = (r: BenchResult, cost: number) => ({ size: Number(r.config["added tools"]), cost });
    const [first, last] = [packets[0]!, packets.at(-1)!];
    notes.push(`packet: ${describeGrowth("p50", growth(at(first, first.p50Ms), at(last, last.p50Ms)), "ms")}`);
    notes.push(`packet: ${describeGrowth("packets/s", growth(at(first, first.throughput), at(last, last.throughput)), "packets/s")}`);
  }
  return { results, notes };
}

async function packetRun(catalog: readonly ToolDefinition[] | undefined, options: PacketE2eOptions): Promise<BenchRun> {
  const added = catalog?.length ?? 0;
  options.log(`packet-e2e: starting nats-server and the six services${added ? ` with ${added} tools added to the catalog` : ""}`);
  // With --cpu-prof, each service writes a V8 CPU profile there when it stops (`pnpm profile <dir>` sums them up).
  const profiling = options.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`, "--cpu-prof-interval=500"] : undefined;
  const fleet = await startPacketFleet({}, catalog, profiling);
  try {
    const load = { connections: options.connections, duration: options.duration };
    await packetLoad(fleet.url, { ...load, duration: WARMUP_SECONDS });
    options.log(`packet-e2e: ${options.duration} s of each: ${fleet.hops} bare JetStream hops, the MCP call alone, full packets`);
    const floor = await hopFloor({ natsUrl: fleet.nats.url, hops: fleet.hops, payload: new Uint8Array(fleet.packetBytes), ...load });
    const mcp = await mcpAlone({ workspace: fleet.workspace, path: READ_PATH, ...load });
    const packets = await packetLoad(fleet.url, load);
    const perHop = micro((packets.p50Ms - floor.p50Ms - mcp.p50Ms) / fleet.hops);
    const config = (path: string, figures: LoadFigures) => ({ path, "added tools": added, connections: options.connections, seconds: options.duration, failed: figures.failed });
    const results: BenchResult[] = [
      { bench: "packet-e2e", config: { ...config(PACKET, packets), lost: packets.lost }, p50Ms: packets.p50Ms, p99Ms: packets.p99Ms, throughput: packets.throughput },
      {
        bench: "packet-e2e",
        config: config(`floor: ${fleet.hops} JetStream hops`, floor),
        p50Ms: floor.p50Ms,
        p99Ms: floor.p99Ms,
        throughput: floor.throughput,
        ratio: rate(packets.p50Ms / floor.p50Ms),
        ratioOf: "packet p50 / this p50",
      },
      {
        bench: "packet-e2e",
        config: config("floor: MCP read_text_file alone", mcp),
        p50Ms: mcp.p50Ms,
        p99Ms: mcp.p99Ms,
        throughput: mcp.throughput,
        ratio: rate(packets.p50Ms / mcp.p50Ms),
        ratioOf: "packet p50 / this p50",
      },
    ];
    const notes = [
      `${added ? `${added} tools added: ` : ""}${packets.completed} packets completed in ${options.duration} s, ${packets.lost} lost (not COMPLETED with the tool executed: errors, timeouts, other answers)`,
      `overhead per hop: (packet p50 ${packets.p50Ms} − hops floor p50 ${floor.p50Ms} − MCP p50 ${mcp.p50Ms}) / ${fleet.hops} hops = ${perHop} ms`,
      `the floor's messages weigh ${fleet.packetBytes} bytes, a finished packet as JSON`,
    ];
    return { results, notes };
  } finally {
    await fleet.close();
  }
}
