/**
 * CPU time and resident memory of other processes, read from Linux's /proc: what a
 * fleet's processes and nats-server spend per packet (packet-e2e), and how their memory
 * moves over a long run (soak).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { normalize } from "node:path";

/** utime + stime of a /proc/<pid>/stat line, in clock ticks. */
export function cpuTicksOfStat(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces or ")": count fields after its last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so utime (field 14) and stime (field 15) are at 11 and 12.
  return Number(fields[11]) + Number(fields[12]);
}

/** VmRSS of a /proc/<pid>/status text, in bytes; 0 for a process without memory (a zombie). */
export function rssBytesOfStatus(status: string): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/**
 * A short name for a process from its /proc/<pid>/cmdline (NUL-separated): the npm package
 * its script is in ("@modelcontextprotocol/server-filesystem"), or the program's file name.
 */
export function processLabel(cmdline: string): string {
  const args = cmdline.split("\0").filter((a) => a.length > 0);
  for (const arg of args.slice(1)) {
    // normalized first: a package's bin is run as node_modules/.bin/../<package>/…
    const inPackage = /.*\/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//.exec(normalize(arg))?.[1];
    if (inPackage) return inPackage;
  }
  return (args[0] ?? "?").split("/").at(-1)!;
}

let ticksPerSecond: number | undefined;

/** CPU time (user + system) a process has used so far, in ms; undefined once it has gone. */
export function cpuMsOf(pid: number): number | undefined {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  const stat = readProc(pid, "stat");
  return stat === undefined ? undefined : (cpuTicksOfStat(stat) * 1000) / ticksPerSecond;
}

/** Resident memory of a process in bytes; undefined once it has gone. */
export function rssBytesOf(pid: number): number | undefined {
  const status = readProc(pid, "status");
  return status === undefined ? undefined : rssBytesOfStatus(status);
}

/** The processes a process started, and theirs, each with its label (an MCP server under the executor). */
export function descendants(pid: number): Map<number, string> {
  const found = new Map<number, string>();
  const visit = (parent: number) => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      for (const child of (readProc(parent, `task/${task}/children`) ?? "").split(" ").filter(Boolean).map(Number)) {
        found.set(child, processLabel(readProc(child, "cmdline") ?? ""));
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/**
 * Runs `work` and returns what it returned with the CPU ms the processes (label → pid) used
 * meanwhile: summed, and each process's own.
 */
export async function cpuDuring<T>(
  processes: ReadonlyMap<string, number>,
  work: () => Promise<T>,
): Promise<{ value: T; cpuMs: number; byProcess: Map<string, number> }> {
  const before = new Map([...processes].map(([label, pid]) => [label, cpuMsOf(pid)]));
  const value = await work();
  const byProcess = new Map<string, number>();
  for (const [label, start] of before) {
    const end = cpuMsOf(processes.get(label)!);
    if (start !== undefined && end !== undefined) byProcess.set(label, end - start);
  }
  return { value, cpuMs: [...byProcess.values()].reduce((sum, ms) => sum + ms, 0), byProcess };
}

/** How a process's memory moved: its mean RSS over the first and the last `windowMs` of the samples. */
export interface RssGrowth {
  firstMb: number;
  lastMb: number;
  /** (last − first) / first. */
  growth: number;
}

/** RSS growth from samples taken at `atMs` (from the start); undefined without samples. */
export function rssGrowth(samples: readonly { atMs: number; bytes: number }[], windowMs: number): RssGrowth | undefined {
  if (samples.length === 0) return undefined;
  const end = samples.at(-1)!.atMs;
  const meanMb = (xs: readonly { bytes: number }[]) => xs.reduce((sum, s) => sum + s.bytes, 0) / xs.length / 2 ** 20;
  const first = samples.filter((s) => s.atMs <= samples[0]!.atMs + windowMs);
  const last = samples.filter((s) => s.atMs >= end - windowMs);
  const [firstMb, lastMb] = [meanMb(first), meanMb(last)];
  return { firstMb, lastMb, growth: (lastMb - firstMb) / firstMb };
}

/** The mean RSS (MB) of each consecutive `windowMs` from the first sample on: how memory moved over the run, not only at its ends. */
export function rssByWindow(samples: readonly { atMs: number; bytes: number }[], windowMs: number): number[] {
  const sums: { bytes: number; n: number }[] = [];
  for (const s of samples) {
    const w = Math.floor((s.atMs - samples[0]!.atMs) / windowMs);
    sums[w] ??= { bytes: 0, n: 0 };
    sums[w].bytes += s.bytes;
    sums[w].n += 1;
  }
  return sums.filter(Boolean).map((w) => w.bytes / w.n / 2 ** 20);
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}
