// `pnpm bench <name>`: the performance benchmarks (routing quality is `pnpm eval`).
import { parseArgs } from "node:util";
import { benchTracing } from "./perf/tracing-bench.js";

const USAGE = `Usage: pnpm bench tracing [--packets <n>] [--rounds <n>]
  tracing     wall time per packet hop with the OpenTelemetry SDK disabled, started without an endpoint (the default), and exporting`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { packets: { type: "string", default: "2000" }, rounds: { type: "string", default: "5" }, help: { type: "boolean", default: false } },
});
const [name] = positionals;
if (values.help || name !== "tracing") {
  process.stderr.write(`${USAGE}\n`);
  process.exit(values.help ? 0 : 2);
}
const packets = Number(values.packets);
const rounds = Number(values.rounds);
if (!Number.isInteger(packets) || packets < 1 || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write(`--packets and --rounds must be whole numbers of at least 1\n${USAGE}\n`);
  process.exit(2);
}
const rows = await benchTracing({ packets, rounds });
const floor = rows[0]!.msPerPacket;
process.stdout.write(`| tracing (${packets} packets × ${rounds} rounds, median) | ms per packet hop | vs sdk disabled |\n| --- | ---: | ---: |\n`);
for (const row of rows) {
  process.stdout.write(`| ${row.mode} | ${row.msPerPacket.toFixed(3)} | ${(((row.msPerPacket - floor) / floor) * 100).toFixed(1)} % |\n`);
}
