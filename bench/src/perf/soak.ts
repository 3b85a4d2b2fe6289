/**
 * `pnpm bench soak`: packet-e2e's fleet under a steady open-loop rate for a long time
 * (default 10 minutes at 80 % of the saturation throughput measured first, in the same
 * run). It reports the packets lost (sent, and not answered COMPLETED with the file
 * read), the JetStream redeliveries of each stage (a tool is called twice only when the
 * executor is handed a packet again), and the resident memory of every process of the
 * fleet, sampled every few seconds: the first minute's mean against the last minute's,
 * once the fleet has run at the soak's rate for `settle` seconds.
 * With `heapSnapshots`, also each service's live JavaScript heap after the first minute
 * and in the last, from heap snapshots (heap-snapshot.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { PACKETS_STREAM } from "@switchyard/bus";
import type { BenchResult, BenchRun } from "./bench-result.js";
import { rate } from "./bench-result.js";
import { fleetProcesses } from "./bench-fleet.js";
import { openLoad } from "./load.js";
import type { LoadFigures } from "./load.js";
import { packetLoad, sendPacket, startPacketFleet } from "./packet-load.js";
import { heapSnapshotArgs, heapSnapshotMb } from "./heap-snapshot.js";
import { rssByWindow, rssBytesOf, rssGrowth } from "./process-usage.js";

export interface SoakOptions {
  duration: number;
  /** In flight while the saturation throughput is measured. */
  connections: number;
  /** Packets per second; undefined: `fraction` of the saturation throughput. */
  rate?: number | undefined;
  fraction: number;
  /** Seconds at the soak's rate before memory is sampled (its packets count as sent too). */
  settle: number;
  /** A folder for heap snapshots of the six services, taken at the end of the first window and in the last; none without. */
  heapSnapshots?: string | undefined;
  log: (line: string) => void;
}

const WARMUP_SECONDS = 3;
const SATURATION_SECONDS = 20;
/** The windows whose memory is compared: a minute, or a third of a shorter soak. */
const WINDOW_MS = 60_000;
/** How often memory is sampled: every 5 s, or more often in a short soak (4 samples a window at least). */
const SAMPLE_MS = 5_000;

/** Starts the fleet, finds the rate (or takes `rate`), soaks it, and reports losses, redeliveries and memory. */
export async function benchSoak(options: SoakOptions): Promise<BenchRun> {
  options.log("soak: starting nats-server and the six services");
  const fleet = await startPacketFleet({}, undefined, options.heapSnapshots === undefined ? undefined : heapSnapshotArgs(options.heapSnapshots));
  try {
    await packetLoad(fleet.url, { connections: options.connections, duration: WARMUP_SECONDS });
    const results: BenchResult[] = [];
    let packetsPerSecond = options.rate;
    if (packetsPerSecond === undefined) {
      options.log(`soak: ${SATURATION_SECONDS} s at ${options.connections} connections, for the saturation throughput`);
      const saturation = await packetLoad(fleet.url, { connections: options.connections, duration: SATURATION_SECONDS });
      results.push(row("saturation (closed loop)", saturation, { connections: options.connections, seconds: SATURATION_SECONDS, failed: saturation.failed, lost: saturation.lost }));
      packetsPerSecond = rate(saturation.throughput * options.fraction);
    }
    let settled: (LoadFigures & { sent: number }) | undefined;
    if (options.settle > 0) {
      options.log(`soak: ${packetsPerSecond} packets/s for ${options.settle} s to settle, before memory is sampled`);
      settled = await openLoad(() => sendPacket(fleet.url), { rate: packetsPerSecond, duration: options.settle });
      results.push(row("settle (open loop)", settled, { rate: packetsPerSecond, seconds: options.settle, sent: settled.sent, lost: settled.failed }));
    }
    const processes = fleetProcesses(fleet);
    const windowMs = Math.min(WINDOW_MS, (options.duration * 1000) / 3);
    const samples = new Map([...processes.keys()].map((name) => [name, [] as { atMs: number; bytes: number }[]]));
    const started = performance.now();
    const sample = () => {
      for (const [name, pid] of processes) {
        const bytes = rssBytesOf(pid);
        if (bytes !== undefined) samples.get(name)!.push({ atMs: performance.now() - started, bytes });
      }
    };
    options.log(`soak: ${packetsPerSecond} packets/s for ${options.duration} s, the RSS of ${processes.size} processes sampled meanwhile`);
    sample();
    const sampler = setInterval(sample, Math.min(SAMPLE_MS, windowMs / 4));
    const heaps = new Map<string, number[]>();
    const snapshots = takeSnapshots(processes, options.heapSnapshots, [windowMs, options.duration * 1000 - windowMs / 2], heaps);
    const soaked = await openLoad(() => sendPacket(fleet.url), { rate: packetsPerSecond, duration: options.duration }).finally(() => clearInterval(sampler));
    await snapshots;
    sample();
    results.push(row("soak (open loop)", soaked, { rate: packetsPerSecond, seconds: options.duration, sent: soaked.sent, lost: soaked.failed }));

    const redelivered = await redeliveries(fleet.nats.url);
    const growths = [...samples].map(([name, s]) => ({ name, growth: rssGrowth(s, windowMs) }));
    const worst = Math.max(...growths.map((g) => g.growth?.growth ?? 0));
    const minutes = `the first ${Math.round(windowMs / 1000)} s against the last ${Math.round(windowMs / 1000)} s${settled ? ` (after ${options.settle} s to settle)` : ""}`;
    const notes = [
      `${soaked.sent} packets sent at ${packetsPerSecond}/s${options.rate === undefined ? ` (${options.fraction} of saturation)` : ""}, ${soaked.completed} completed, ${soaked.failed} lost (not answered COMPLETED with the file read)`,
      ...(settled ? [`and before them, to settle: ${settled.sent} sent, ${settled.completed} completed, ${settled.failed} lost`] : []),
      `JetStream redeliveries by stage: ${[...redelivered].map(([stage, n]) => `${stage} ${n}`).join(", ")} (a tool is called twice only when the executor's stage redelivers)`,
      `largest RSS growth, ${minutes}: ${(worst * 100).toFixed(1)} %`,
      ...growths.map(({ name, growth }) =>
        growth
          ? `RSS ${name}: ${growth.firstMb.toFixed(1)} → ${growth.lastMb.toFixed(1)} MB (${signedPercent(growth.growth)}); by window: ${rssByWindow(samples.get(name)!, windowMs).map((mb) => mb.toFixed(0)).join(", ")} MB`
          : `RSS ${name}: not sampled (gone)`,
      ),
      ...[...heaps].map(([name, [first, last]]) => `live JS heap ${name} (heap snapshot, after a full GC): ${first!.toFixed(1)} → ${last!.toFixed(1)} MB (${signedPercent((last! - first!) / first!)})`),
    ];
    return { results, notes };
  } finally {
    await fleet.close();
  }
}

/**
 * Heap snapshots of the six services (not the MCP servers or nats-server) at each of
 * `atMs` from now, one service after another (each pauses a second or two to write
 * one), their sizes added to `heaps` by service; nothing without a folder.
 */
async function takeSnapshots(processes: ReadonlyMap<string, number>, dir: string | undefined, atMs: readonly number[], heaps: Map<string, number[]>): Promise<void> {
  if (dir === undefined) return;
  const services = [...processes].filter(([name]) => name !== "nats-server" && !name.includes(" > "));
  const started = performance.now();
  for (const at of atMs) {
    await sleep(Math.max(0, at - (performance.now() - started)));
    for (const [name, pid] of services) heaps.set(name, [...(heaps.get(name) ?? []), await heapSnapshotMb(pid, dir)]);
  }
}

/** A change as a share, written "+12.3 %" or "-4.0 %": the RSS and the live heap alike. */
function signedPercent(change: number): string {
  return `${change >= 0 ? "+" : ""}${(change * 100).toFixed(1)} %`;
}

function row(path: string, figures: LoadFigures, config: Record<string, number>): BenchResult {
  return { bench: "soak", config: { path, ...config }, p50Ms: figures.p50Ms, p99Ms: figures.p99Ms, throughput: figures.throughput };
}

/** Messages JetStream delivered again, by the stage consumer of the packet stream. */
async function redeliveries(natsUrl: string): Promise<Map<string, number>> {
  const nc = await connect({ servers: natsUrl });
  try {
    const consumers = await (await jetstreamManager(nc)).consumers.list(PACKETS_STREAM).next();
    return new Map(consumers.map((c) => [c.name, c.num_redelivered]));
  } finally {
    await nc.drain();
  }
}
