// `pnpm profile <dir> [--packets N]`: where each process's CPU went, from the V8 CPU profiles
// the services write as they stop under `pnpm bench packet-e2e --cpu-prof <dir>` (or
// route-http's). One row per process: busy time by library, and per packet (per route) when
// the bench's count is given. Idle time is left out; start-up is in.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { processOf, summarize } from "./perf/cpu-profile.js";
import type { CpuProfile } from "./perf/cpu-profile.js";

const [dir, ...rest] = process.argv.slice(2);
if (!dir || !existsSync(dir)) {
  process.stderr.write(`${dir ? `no folder ${dir}\n` : ""}usage: pnpm profile <dir of .cpuprofile files> [--packets N] [--top K]\n`);
  process.exit(2);
}
const option = (name: string) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : undefined;
};
const packets = option("--packets");
const top = option("--top") ?? 8;

const rows: string[] = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()) {
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
  const name = processOf(profile.nodes);
  if (!name) continue;
  const { busyMs, byCategory } = summarize(profile);
  const perPacket = packets ? ` | ${((busyMs / packets) * 1000).toFixed(0)} µs` : "";
  const shares = [...byCategory]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([category, ms]) => `${category} ${((100 * ms) / busyMs).toFixed(0)} %`)
    .join(", ");
  rows.push(`| ${name} | ${(busyMs / 1000).toFixed(1)} s${perPacket} | ${shares} |`);
}
process.stdout.write(`| process | CPU busy${packets ? " | per packet" : ""} | share of busy time, by library |\n`);
process.stdout.write(`| --- | ---: |${packets ? " ---: |" : ""} --- |\n`);
process.stdout.write(`${rows.join("\n")}\n`);
