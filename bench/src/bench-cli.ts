// `pnpm bench <name>`: the performance benchmarks (routing quality is `pnpm eval`).
// Each bench returns its results and notes; this prints the table (stdout, or stderr
// under --json, where stdout gets one JSON object per configuration) and writes the file.
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { BENCH_USAGE, parseBenchArgs } from "./perf/bench-args.js";
import type { BenchArgs } from "./perf/bench-args.js";
import { jsonLines, resultTable, writeResults } from "./perf/bench-result.js";
import type { BenchRun } from "./perf/bench-result.js";
import { benchMcpDoors } from "./perf/mcp-doors.js";
import { benchPacketE2e } from "./perf/packet-e2e.js";
import { benchRouteHttp } from "./perf/route-http.js";
import { benchRouteScale } from "./perf/route-scale.js";
import { benchSoak } from "./perf/soak.js";
import { benchTracing, tracingResults } from "./perf/tracing-bench.js";
import { benchTracingCost } from "./perf/tracing-cost.js";

/** bench/results beside this package's dist/ (or src/ under tsx). */
const DEFAULT_OUT = fileURLToPath(new URL("../results/", import.meta.url));

/** Progress and notes go to stderr, so that stdout holds only the table or the JSON lines. */
const log = (line: string): void => void process.stderr.write(`${line}\n`);

async function run(args: BenchArgs): Promise<BenchRun> {
  switch (args.name) {
    case "tracing": {
      const options = { packets: args.packets, rounds: args.rounds };
      return { results: tracingResults(await benchTracing(options), options), notes: [] };
    }
    case "route-scale":
      return benchRouteScale({ sizes: args.sizes, queries: args.queries });
    case "route-http":
      return benchRouteHttp({ sizes: args.sizes, duration: args.duration, connections: args.connections, cpuProfDir: args.cpuProf, log });
    case "packet-e2e":
      return benchPacketE2e({ sizes: args.sizes, duration: args.duration, connections: args.connections, cpuProfDir: args.cpuProf, nodeOptions: args.nodeOptions, log });
    case "mcp-doors":
      return benchMcpDoors({ duration: args.duration, connections: args.connections, log });
    case "tracing-cost":
      return benchTracingCost({ duration: args.duration, connections: args.connections, rounds: args.rounds, log });
    case "soak":
      return benchSoak({ duration: args.duration, connections: args.connections, rate: args.rate, fraction: args.fraction, settle: args.settle, heapSnapshots: args.heapSnapshots, log });
  }
}

let args: BenchArgs;
try {
  args = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${BENCH_USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${BENCH_USAGE}\n`);
  process.exit(0);
}
const startedAt = new Date().toISOString();
// Other work on the machine skews every figure: say how busy it was when the bench began.
log(`load average at start: ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores`);
const { results, notes } = await run(args);
const table = `${resultTable(results)}\n${notes.map((n) => `\n${n}`).join("")}\n`;
if (args.json) {
  process.stdout.write(jsonLines(results));
  process.stderr.write(table);
} else {
  process.stdout.write(table);
}
const command = `pnpm bench ${process.argv.slice(2).join(" ")}`;
log(`results: ${writeResults(args.out ?? DEFAULT_OUT, { bench: args.name, command, startedAt, results, notes })}`);
