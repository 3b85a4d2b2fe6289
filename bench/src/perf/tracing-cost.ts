/**
 * `pnpm bench tracing-cost`: packet-e2e's packets with tracing off (no OTLP endpoint, the
 * default) and on (every service exporting OTLP/HTTP to a local receiver that drops the
 * batches). Each round starts a fresh fleet per mode, alternating, so that drift on a
 * noisy machine falls on both; the median round of each mode is reported.
 */
import type { BenchResult, BenchRun } from "./bench-result.js";
import { rate } from "./bench-result.js";
import { median } from "../metrics.js";
import { startOtlpSink } from "./otlp-sink.js";
import { packetLoad, startPacketFleet } from "./packet-load.js";
import type { PacketFigures } from "./packet-load.js";

export interface TracingCostOptions {
  duration: number;
  connections: number;
  rounds: number;
  log: (line: string) => void;
}

const WARMUP_SECONDS = 3;

export async function benchTracingCost(options: TracingCostOptions): Promise<BenchRun> {
  const sink = await startOtlpSink();
  const modes: [string, Record<string, string>][] = [
    ["off (no endpoint)", {}],
    ["on (OTLP/HTTP)", { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }],
  ];
  const rounds = new Map<string, PacketFigures[]>(modes.map(([mode]) => [mode, []]));
  try {
    for (let round = 1; round <= options.rounds; round++) {
      for (const [mode, env] of modes) {
        options.log(`tracing-cost: round ${round} of ${options.rounds}, ${mode}: ${options.duration} s of packets`);
        const fleet = await startPacketFleet(env);
        try {
          await packetLoad(fleet.url, { connections: options.connections, duration: WARMUP_SECONDS });
          rounds.get(mode)!.push(await packetLoad(fleet.url, { connections: options.connections, duration: options.duration }));
        } finally {
          await fleet.close();
        }
      }
    }
  } finally {
    await sink.close();
  }
  const summary = modes.map(([mode]) => {
    const figures = rounds.get(mode)!;
    return {
      mode,
      p50Ms: median(figures.map((f) => f.p50Ms)),
      p99Ms: median(figures.map((f) => f.p99Ms)),
      throughput: median(figures.map((f) => f.throughput)),
      lost: figures.reduce((sum, f) => sum + f.lost, 0),
      perRound: figures.map((f) => f.throughput),
    };
  });
  const off = summary[0]!;
  const results: BenchResult[] = summary.map((s, i) => ({
    bench: "tracing-cost",
    config: { tracing: s.mode, connections: options.connections, seconds: options.duration, rounds: options.rounds, lost: s.lost },
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
    throughput: s.throughput,
    ...(i === 0 ? {} : { ratio: rate(s.throughput / off.throughput), ratioOf: "throughput / tracing off" }),
  }));
  const on = summary[1]!;
  const notes = [
    `throughput with tracing on: ${(((on.throughput - off.throughput) / off.throughput) * 100).toFixed(1)} % against off (median of ${options.rounds} rounds; per round off ${off.perRound.join(", ")}, on ${on.perRound.join(", ")} packets/s)`,
    `p50 with tracing on: ${rate(on.p50Ms / off.p50Ms)}× off`,
  ];
  return { results, notes };
}
