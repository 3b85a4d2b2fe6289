/**
 * Closed-loop load, the same shape for every comparison: `connections` callers, each
 * with one request in flight, for `duration` seconds. HTTP goes through autocannon;
 * anything else (a NATS request, a JetStream round) through {@link loopLoad}.
 */
import autocannon from "autocannon";
import { percentile } from "../metrics.js";
import { micro, rate } from "./bench-result.js";

export interface LoadFigures {
  p50Ms: number;
  p99Ms: number;
  /** Completed operations per second. */
  throughput: number;
  completed: number;
  /** Failed operations: errors, timeouts, non-2xx answers. */
  failed: number;
}

export interface HttpLoad {
  url: string;
  method?: "GET" | "POST";
  /** JSON bodies, sent in turn by every connection. */
  bodies?: readonly unknown[];
  connections: number;
  duration: number;
}

export async function httpLoad(load: HttpLoad): Promise<LoadFigures> {
  const method = load.method ?? "GET";
  const requests = (load.bodies ?? [undefined]).map((body) => ({
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  }));
  const result = await autocannon({ url: load.url, connections: load.connections, duration: load.duration, requests });
  return {
    p50Ms: micro(result.latency.p50),
    p99Ms: micro(result.latency.p99),
    throughput: rate(result.requests.total / load.duration),
    completed: result.requests.total,
    failed: result.errors + result.timeouts + result.non2xx,
  };
}

/**
 * `connections` loops calling `operation(i)` (i counts the calls of all loops) until
 * `duration` seconds have passed; each call's wall time is a sample.
 */
export async function loopLoad(operation: (i: number) => Promise<unknown>, options: { connections: number; duration: number }): Promise<LoadFigures> {
  const samples: number[] = [];
  let failed = 0;
  let calls = 0;
  const started = performance.now();
  const end = started + options.duration * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await operation(calls++);
        samples.push(performance.now() - t);
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return {
    p50Ms: micro(percentile(samples, 50)),
    p99Ms: micro(percentile(samples, 99)),
    throughput: rate(samples.length / elapsed),
    completed: samples.length,
    failed,
  };
}
