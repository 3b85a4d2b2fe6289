// V8 CPU profiles (.cpuprofile, as `node --cpu-prof` writes them) summed up by process and
// by library: where a service's busy time went.

export interface CallFrame {
  functionName: string;
  url: string;
}
export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The process a profile is of, by the code it ran: a service, the bench itself, an MCP server. */
export function processOf(nodes: readonly ProfileNode[]): string | undefined {
  const urls = nodes.map((node) => node.callFrame.url);
  const service = urls.map((url) => /\/services\/([a-z-]+)\/dist\//.exec(url)?.[1]).find(Boolean);
  if (service) return service;
  if (urls.some((url) => url.includes("@modelcontextprotocol/server-filesystem"))) return "mcp server-filesystem";
  if (urls.some((url) => /\/bench\/dist\/(bench-cli|perf\/)/.test(url))) return "bench (load, floors)";
  return undefined;
}

/** What a frame belongs to: a library, one of ours, Node itself, the VM. */
export function categoryOf({ functionName, url }: CallFrame): string {
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(program)") return "VM (program)";
  const library = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (library) return library;
  const ours = /\/(packages|services)\/([^/]+)\//.exec(url);
  if (ours) return ours[1] === "packages" ? `@switchyard/${ours[2]}` : `services/${ours[2]}`;
  if (url.startsWith("node:")) return "node: internals";
  // Frames without a script are the VM's and Node's own C++: socket and stdout writes, crypto, ….
  return url === "" ? "native (writes, crypto, …)" : url;
}

/** Busy time (idle left out) and its split by category, from the profile's samples. */
export function summarize(profile: CpuProfile): { busyMs: number; byCategory: Map<string, number> } {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byCategory = new Map<string, number>();
  let busyMs = 0;
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id)!;
    if (frame.functionName === "(idle)") return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    busyMs += ms;
    const category = categoryOf(frame);
    byCategory.set(category, (byCategory.get(category) ?? 0) + ms);
  });
  return { busyMs, byCategory };
}

/** Node options that make each service write a V8 CPU profile (sampled every 500 µs) into `dir` when it stops; none without a `dir`. */
export function cpuProfileArgs(dir: string | undefined): string[] | undefined {
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=500"] : undefined;
}
