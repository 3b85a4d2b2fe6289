/**
 * `pnpm bench tracing`: what tracing costs a packet hop. Each mode runs tracing-hops.js in
 * a fresh process on its own nats-server, alternately, several rounds, and the median of
 * the rounds is reported:
 * - sdk disabled: OTEL_SDK_DISABLED=true, the OpenTelemetry API's no-op, the floor;
 * - sdk disabled, again: the same, run again: how far two runs of identical code differ
 *   here, the noise against which the other rows are read;
 * - no endpoint: the services' default, the SDK started without an exporter;
 * - exporting: OTLP/HTTP to a local receiver that accepts and drops every batch.
 * "No endpoint" next to "sdk disabled" is the cost the services pay with tracing off.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startLocalNats } from "@switchyard/local-nats";
import type { BenchResult } from "./bench-result.js";
import { latencySummary, rate } from "./bench-result.js";
import { median } from "../metrics.js";
import { startOtlpSink } from "./otlp-sink.js";

const HOPS = fileURLToPath(new URL("tracing-hops.js", import.meta.url));

export interface TracingBenchOptions {
  packets: number;
  rounds: number;
}

export interface TracingBenchRow {
  mode: string;
  /** The median of the rounds. */
  msPerPacket: number;
  /** Each round's ms per packet hop. */
  rounds: number[];
}

export async function benchTracing(options: TracingBenchOptions): Promise<TracingBenchRow[]> {
  const sink = await startOtlpSink();
  const endpoint = sink.endpoint;
  const modes: [string, Record<string, string>][] = [
    ["sdk disabled", { OTEL_SDK_DISABLED: "true" }],
    ["sdk disabled, again (noise)", { OTEL_SDK_DISABLED: "true" }],
    ["no endpoint (default)", {}],
    ["exporting (OTLP/HTTP)", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }],
  ];
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("OTEL_")));
  const samples = new Map<string, number[]>(modes.map(([mode]) => [mode, []]));
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const [mode, env] of modes) {
        const nats = await startLocalNats();
        try {
          const { stdout } = await promisify(execFile)(process.execPath, [HOPS], {
            env: { ...clean, ...env, BENCH_NATS_URL: nats.url, BENCH_PACKETS: String(options.packets) },
            encoding: "utf8",
          });
          samples.get(mode)!.push((JSON.parse(stdout.trim().split("\n").at(-1)!) as { msPerPacket: number }).msPerPacket);
        } finally {
          await nats.stop();
        }
      }
    }
  } finally {
    await sink.close();
  }
  return modes.map(([mode]) => ({ mode, msPerPacket: median(samples.get(mode)!), rounds: samples.get(mode)! }));
}


/**
 * The rows as bench results: p50 and p99 are over the rounds' ms per packet hop (with a
 * few rounds, p99 is the slowest round), throughput is packet hops per second at the
 * median, and the ratio is each mode's median over the SDK-disabled one.
 */
export function tracingResults(rows: readonly TracingBenchRow[], options: TracingBenchOptions): BenchResult[] {
  const floor = rows[0]!.msPerPacket;
  return rows.map((row) => ({
    bench: "tracing",
    config: { mode: row.mode, packets: options.packets, rounds: options.rounds },
    ...latencySummary(row.rounds),
    throughput: rate(1000 / row.msPerPacket),
    ratio: rate(row.msPerPacket / floor),
    ratioOf: "ms per hop / sdk disabled",
  }));
}
