/**
 * The live JavaScript heap of another Node process, from a V8 heap snapshot: a process
 * started with `heapSnapshotArgs(dir)` writes one into `dir` when it gets SIGUSR2, after a
 * full garbage collection, so the size summed over its objects is what the process keeps,
 * whatever its RSS does meanwhile (V8 grows and shrinks its heap around that by tens of MB).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Node options that let `heapSnapshotMb` ask the process for snapshots written into `dir`. */
export function heapSnapshotArgs(dir: string): string[] {
  return ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`];
}

/** Signals `pid` to write a heap snapshot into `dir`, waits until the file is whole, and returns its objects' summed size in MB. */
export async function heapSnapshotMb(pid: number, dir: string, timeoutMs = 120_000): Promise<number> {
  const before = new Set(snapshotsOf(pid, dir));
  process.kill(pid, "SIGUSR2");
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  for (;;) {
    await sleep(500);
    const file = snapshotsOf(pid, dir).find((f) => !before.has(f));
    const size = file === undefined ? -1 : statSync(join(dir, file)).size;
    // written in one go by the process: a size that stayed put for half a second is the whole file
    if (file !== undefined && size > 0 && size === last) return liveHeapMb(readFileSync(join(dir, file), "utf8"));
    if (Date.now() > deadline) throw new Error(`no heap snapshot of process ${pid} in ${dir} within ${timeoutMs} ms`);
    last = size;
  }
}

/** The summed self size of every object in a heap snapshot (its JSON text), in MB. */
export function liveHeapMb(snapshot: string): number {
  const { snapshot: meta, nodes } = JSON.parse(snapshot) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[] };
  const width = meta.meta.node_fields.length;
  const selfSize = meta.meta.node_fields.indexOf("self_size");
  let bytes = 0;
  for (let i = selfSize; i < nodes.length; i += width) bytes += nodes[i]!;
  return bytes / 1e6;
}

function snapshotsOf(pid: number, dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(".heapsnapshot") && f.includes(`.${pid}.`));
}
