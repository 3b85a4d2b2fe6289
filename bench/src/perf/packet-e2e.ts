/**
 * `pnpm bench packet-e2e`: full packets (heuristic selector and reviewer, the real
 * filesystem MCP server) through the six services as processes, beside three floors
 * measured in the same run with the same load: the packet's JetStream hops without our
 * logic (hop-floor.ts), the same hops each decoding the packet and encoding it again (what
 * any stage must do, whatever its logic) and the MCP call alone (mcp-alone.ts). What a
 * packet costs above the bare hops and the MCP call, spread over its hops, is our overhead
 * per hop. Each at one connection (service time) and at `connections` (saturation), with
 * the CPU time per packet of the processes at work, summed: the six services, their MCP
 * servers and nats-server for a packet, the relays and nats-server for a floor.
 */
import { readBench } from "@switchyard/bench-data";
import type { ToolDefinition } from "@switchyard/packet";
import type { BenchResult, BenchRun } from "./bench-result.js";
import { micro, rate } from "./bench-result.js";
import { fleetProcesses } from "./bench-fleet.js";
import { cpuProfileArgs } from "./cpu-profile.js";
import { startHopFloor } from "./hop-floor.js";
import type { HopFloor } from "./hop-floor.js";
import { describeGrowth, growth } from "./growth.js";
import { connectionLevels } from "./load.js";
import type { LoadFigures } from "./load.js";
import { startMcpAlone } from "./mcp-alone.js";
import type { McpAlone } from "./mcp-alone.js";
import { packetLoad, READ_PATH, startPacketFleet } from "./packet-load.js";
import { cpuDuring } from "./process-usage.js";
import { scaleCatalog } from "./scale-catalog.js";

export interface PacketE2eOptions {
  /** Tools added to the catalog beside the MCP servers' (scale-catalog.ts), one run each; empty: none added. */
  sizes: readonly number[];
  duration: number;
  connections: number;
  /** Where each service writes a V8 CPU profile as it stops; undefined: none. */
  cpuProfDir?: string | undefined;
  /** Node options for every service; named in each row. */
  nodeOptions?: readonly string[] | undefined;
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
  const packets = results.filter((r) => r.config["path"] === PACKET && r.config["connections"] === options.connections);
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
  // With --cpu-prof, each service writes a V8 CPU profile there when it stops (`pnpm profile <dir> --packets N`).
  const nodeArgs = [...(options.nodeOptions ?? []), ...(cpuProfileArgs(options.cpuProfDir) ?? [])];
  const fleet = await startPacketFleet({}, catalog, nodeArgs.length > 0 ? nodeArgs : undefined);
  // Started one by one inside the try, so that a failure stops whatever did start.
  let floor: HopFloor | undefined;
  let codecFloor: HopFloor | undefined;
  let mcp: McpAlone | undefined;
  try {
    floor = await startHopFloor({ natsUrl: fleet.nats.url, kind: "bare", hops: fleet.hops, payload: new Uint8Array(fleet.packetBytes) });
    codecFloor = await startHopFloor({ natsUrl: fleet.nats.url, kind: "codec", hops: fleet.hops, payload: fleet.packet });
    mcp = await startMcpAlone({ workspace: fleet.workspace, path: READ_PATH });
    const warm = { connections: options.connections, duration: WARMUP_SECONDS };
    await packetLoad(fleet.url, warm);
    await floor.run(warm);
    await codecFloor.run(warm);
    await mcp.run(warm);
    const ours = fleetProcesses(fleet);
    const relays = (of: HopFloor) => new Map([...of.pids.map((pid, i) => [`relay ${i + 1}`, pid] as const), ["nats-server", ours.get("nats-server")!]]);
    const results: BenchResult[] = [];
    const notes = [`CPU per packet summed over ${[...ours.keys()].join(", ")}; each floor's over its ${fleet.hops} relays and nats-server`];
    for (const connections of connectionLevels(options.connections)) {
      const load = { connections, duration: options.duration };
      options.log(`packet-e2e: ${connections} connection(s), ${options.duration} s of each: ${fleet.hops} bare JetStream hops, the same decoding and encoding the packet, the MCP call alone, full packets`);
      const relayed = await cpuDuring(relays(floor), () => floor!.run(load));
      const recoded = await cpuDuring(relays(codecFloor), () => codecFloor!.run(load));
      const alone = await mcp.run(load);
      const packed = await cpuDuring(ours, () => packetLoad(fleet.url, load));
      const [hops, recodedHops, packets] = [relayed.value, recoded.value, packed.value];
      const cpu = { ours: msPerOp(packed.cpuMs, packets.completed), floor: msPerOp(relayed.cpuMs, hops.completed), codec: msPerOp(recoded.cpuMs, recodedHops.completed) };
      const row = (path: string, figures: LoadFigures): BenchResult => ({
        bench: "packet-e2e",
        config: { path, "added tools": added, ...(options.nodeOptions?.length ? { "node options": options.nodeOptions.join(" ") } : {}), connections, seconds: options.duration, failed: figures.failed },
        p50Ms: figures.p50Ms,
        p99Ms: figures.p99Ms,
        throughput: figures.throughput,
        ...(figures === packets ? {} : { ratio: rate(packets.p50Ms / figures.p50Ms), ratioOf: "packet p50 / this p50" }),
      });
      const packetRow = row(PACKET, packets);
      results.push(
        { ...packetRow, config: { ...packetRow.config, lost: packets.lost }, cpuMsPerOp: rate(cpu.ours) },
        { ...row(`floor: ${fleet.hops} JetStream hops`, hops), cpuMsPerOp: rate(cpu.floor) },
        { ...row(`floor: ${fleet.hops} JetStream hops, each decoding the packet, recording its hop and encoding it`, recodedHops), cpuMsPerOp: rate(cpu.codec) },
        row("floor: MCP read_text_file alone", alone),
      );
      const at = `${connections} connection(s)`;
      notes.push(
        `${at}: ${added ? `${added} tools added: ` : ""}${packets.completed} packets completed in ${options.duration} s, ${packets.lost} lost (not COMPLETED with the tool executed: errors, timeouts, other answers)`,
        `${at}: overhead per hop: (packet p50 ${packets.p50Ms} − hops floor p50 ${hops.p50Ms} − MCP p50 ${alone.p50Ms}) / ${fleet.hops} hops = ${micro((packets.p50Ms - hops.p50Ms - alone.p50Ms) / fleet.hops)} ms`,
        `${at}: CPU ms per packet, ours ${cpu.ours.toFixed(2)} vs the relay's ${cpu.floor.toFixed(2)}: ${rate(cpu.ours / cpu.floor)}×; packets/s ${rate(packets.throughput / hops.throughput)}× the relay's`,
        `${at}: CPU ms per packet, the relay decoding and encoding the packet ${cpu.codec.toFixed(2)}: ${rate(cpu.codec / cpu.floor)}× the bare relay's, ours ${rate(cpu.ours / cpu.codec)}× it; its packets/s ${rate(recodedHops.throughput / hops.throughput)}× the bare relay's`,
        `${at}: CPU ms per packet by process: ${perOp(packed.byProcess, packets.completed)}; the relay's: ${perOp(relayed.byProcess, hops.completed)}; the decoding relay's: ${perOp(recoded.byProcess, recodedHops.completed)}`,
      );
    }
    notes.push(`the bare floor's messages weigh ${fleet.packetBytes} bytes, a finished packet as JSON; the decoding floor's are a finished packet as it travels, ${fleet.packet.length} bytes, growing by a hop at each relay`);
    return { results, notes };
  } finally {
    await mcp?.close();
    await codecFloor?.close();
    await floor?.close();
    await fleet.close();
  }
}

/** "gateway 1.23, intent 0.98, …": each process's CPU ms divided by the operations completed. */
function perOp(byProcess: ReadonlyMap<string, number>, completed: number): string {
  return [...byProcess].map(([label, ms]) => `${label} ${msPerOp(ms, completed).toFixed(2)}`).join(", ");
}

/** CPU ms over the operations completed (none completed: over one, not a division by zero). */
function msPerOp(ms: number, completed: number): number {
  return ms / Math.max(1, completed);
}
