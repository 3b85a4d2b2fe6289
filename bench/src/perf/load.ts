/**
 * Load, the same shape for every comparison. Closed loop: `connections` callers, each
 * with one request in flight, for `duration` seconds; HTTP goes through autocannon
 * ({@link cannon}), anything else (a NATS request, a JetStream round) through
 * {@link loopLoad}. Open loop ({@link openLoad}): calls started at a fixed rate whether
 * or not the earlier ones have finished, as independent clients arrive.
 */
import autocannon from "autocannon";
import { setTimeout as sleep } from "node:timers/promises";
import { latencySummary, rate } from "./bench-result.js";

export interface LoadFigures {
  p50Ms: number;
  p99Ms: number;
  /** Completed operations per second. */
  throughput: number;
  completed: number;
  /** Failed operations: errors, timeouts, non-2xx answers. */
  failed: number;
}

/** Closed-loop load: `connections` callers, each with one request in flight, for `duration` seconds. */
export interface ClosedLoad {
  connections: number;
  duration: number;
}

/** The connection counts a bench measures: one (service time), then `connections` (saturation, throughput). */
export function connectionLevels(connections: number): number[] {
  return [...new Set([1, connections])];
}

/**
 * autocannon, with the wall time of every 2xx answer kept: its own percentiles are of a
 * histogram of whole milliseconds, too coarse for a one-connection route (about 2 ms).
 */
export async function cannon(options: autocannon.Options): Promise<{ result: autocannon.Result; samples: number[] }> {
  const samples: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, finished) => (error ? reject(error as Error) : resolve(finished)));
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) samples.push(ms);
    });
  });
  return { result, samples };
}

export interface HttpLoad extends ClosedLoad {
  url: string;
  method?: "GET" | "POST";
  /** JSON bodies, sent in turn by every connection. */
  bodies?: readonly unknown[];
}

export async function httpLoad(load: HttpLoad): Promise<LoadFigures> {
  const method = load.method ?? "GET";
  const requests = (load.bodies ?? [undefined]).map((body) => ({
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  }));
  const { result, samples } = await cannon({ url: load.url, connections: load.connections, duration: load.duration, requests });
  return { ...figures(samples, load.duration), failed: result.errors + result.timeouts + result.non2xx };
}

/**
 * `connections` loops calling `operation(i)` (i counts the calls of all loops) until
 * `duration` seconds have passed; each call's wall time is a sample.
 */
export async function loopLoad(operation: (i: number) => Promise<unknown>, options: ClosedLoad): Promise<LoadFigures> {
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
  return { ...figures(samples, (performance.now() - started) / 1000), failed };
}

/**
 * Starts `operation(i)` `rate` times a second for `duration` seconds, each at its own
 * time whatever the earlier calls are doing, then waits for every call to settle. A
 * call that throws is failed; every call started is either completed or failed.
 */
export async function openLoad(operation: (i: number) => Promise<unknown>, options: { rate: number; duration: number }): Promise<LoadFigures & { sent: number }> {
  const samples: number[] = [];
  const calls: Promise<void>[] = [];
  let failed = 0;
  const started = performance.now();
  const total = Math.floor(options.rate * options.duration);
  while (calls.length < total) {
    // Every call due by now starts now: a late timer does not lower the rate.
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * options.rate) + 1);
    while (calls.length < due) {
      const t = performance.now();
      calls.push(
        operation(calls.length).then(
          () => void samples.push(performance.now() - t),
          () => void failed++,
        ),
      );
    }
    await sleep(Math.max(0, started + (calls.length * 1000) / options.rate - performance.now()));
  }
  await Promise.all(calls);
  return { ...figures(samples, options.duration), failed, sent: calls.length };
}

/** p50, p99 and the rate of completed operations, from their wall times over `seconds`. */
function figures(samplesMs: readonly number[], seconds: number): Omit<LoadFigures, "failed"> {
  return {
    ...latencySummary(samplesMs),
    throughput: rate(samplesMs.length / seconds),
    completed: samplesMs.length,
  };
}
