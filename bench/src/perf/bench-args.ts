import { parseArgs } from "node:util";

export const BENCHES = ["route-scale", "route-http", "packet-e2e", "tracing-cost", "tracing", "mcp-doors", "soak"] as const;
export type BenchName = (typeof BENCHES)[number];

export interface BenchArgs {
  name: BenchName;
  json: boolean;
  /** undefined: bench/results. */
  out?: string;
  /** route-scale, route-http: catalog sizes; packet-e2e: tools added to the MCP servers' (none by default). */
  sizes: number[];
  /** route-scale: queries timed per size, largest size first cut (see route-scale.ts). */
  queries?: number;
  /** route-http, packet-e2e, tracing-cost: seconds of load per configuration; soak: of the soak. */
  duration: number;
  /** route-http, packet-e2e, mcp-doors: requests in flight at saturation (1 is measured too); tracing-cost, soak: in flight. */
  connections: number;
  /** soak: packets per second; undefined: `fraction` of the saturation throughput measured first. */
  rate?: number;
  /** soak: the share of saturation to soak at. */
  fraction: number;
  /** soak: seconds at the soak's rate before memory is sampled, until the fleet's windows have filled. */
  settle: number;
  /** tracing: packets per round; tracing-cost: rounds of each mode. */
  packets: number;
  rounds: number;
  /** packet-e2e, route-http: where each service writes its CPU profile; undefined: none. */
  cpuProf?: string;
  /** soak: where the services' heap snapshots go; undefined: none are taken. */
  heapSnapshots?: string;
  /** packet-e2e: Node options for every service. */
  nodeOptions?: string[];
  help: boolean;
}

export const DEFAULT_SIZES = [100, 1_000, 10_000, 100_000];
/**
 * soak: how long the fleet runs at the soak's rate before its memory is sampled: the packets
 * stream keeps every hop's message id for its 2-minute duplicate window, so until that has
 * filled, nats-server's memory rises with it whatever happens after.
 */
const SETTLE_SECONDS = 120;

export const BENCH_USAGE = `Usage: pnpm bench <name> [--json] [--out <dir>] [options]
  route-scale    route-only latency, recall@5 and heap as the catalog grows, beside MiniSearch, Orama and wink-bm25
                 --sizes <n,n,...>   catalog sizes (default ${DEFAULT_SIZES.join(",")})
                 --queries <n>       queries timed at each size (default: fewer as the catalog grows)
  route-http     POST /v1/route through gateway, NATS and router at 1 connection and at --connections, beside a bare
                 NATS request/reply   --sizes <n,...> catalog sizes (default 1000)  --duration <s> (default 10)  --connections <n> (default 16)
                 --cpu-prof <dir>    a V8 CPU profile of the gateway and the router there (pnpm profile <dir> --packets <routes>)
  packet-e2e     full packets through the six services and a real MCP read at 1 connection and at --connections, beside
                 the packet's bare JetStream hops and the MCP call alone, with CPU ms per packet
                 --duration <s> (default 60)  --connections <n> (default 16)
                 --sizes <n,...>     also with n dataset and synthetic tools in the catalog beside the MCP servers' (default none)
                 --cpu-prof <dir>    a V8 CPU profile of each service there (sum them up: pnpm profile <dir> --packets N)
                 --node-options "<options>"  Node options for every service (V8 flags to compare, say)
  tracing-cost   packet-e2e with tracing off and on (OTLP/HTTP to a local receiver)
                 --duration <s> (default 20)  --connections <n> (default 16)  --rounds <n> (default 2)
  tracing        wall time per packet hop with the OpenTelemetry SDK disabled, without an endpoint, exporting
                 --packets <n> (default 2000)  --rounds <n> (default 5)
  mcp-doors      MCP search_tools and call_tool beside POST /v1/route, /v1/calls and /v1/packets, at one
                 connection and at --connections   --duration <s> (default 10)  --connections <n> (default 16)
  soak           packet-e2e's packets at a fixed open-loop rate: lost packets, redeliveries, RSS of every process
                 --duration <s> (default 600)  --rate <packets/s> (default: --fraction of saturation, measured first
                 at --connections, default 16)  --fraction <f> (default 0.8)
                 --settle <s>        seconds at that rate before the soak's memory is sampled (default 120: the
                                     packets stream's duplicate window)
                 --heap-snapshots <dir>  each service's live JS heap after the first minute and in the last (snapshots there)
  --json         one JSON object per configuration on stdout (the table goes to stderr)
  --out <dir>    where <bench>-<timestamp>.json goes (default bench/results)`;

/** Parses `pnpm bench` arguments; throws an Error naming the bad one. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { positionals, values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      out: { type: "string" },
      sizes: { type: "string" },
      queries: { type: "string" },
      duration: { type: "string" },
      connections: { type: "string" },
      packets: { type: "string" },
      rounds: { type: "string" },
      "cpu-prof": { type: "string" },
      "heap-snapshots": { type: "string" },
      "node-options": { type: "string" },
      rate: { type: "string" },
      fraction: { type: "string" },
      settle: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const [name, ...rest] = positionals;
  if (values.help && name === undefined) return { ...defaults("route-scale"), help: true };
  if (!isBench(name)) throw new Error(name === undefined ? "name a benchmark" : `no benchmark "${name}"`);
  if (rest.length > 0) throw new Error(`one benchmark at a time, got also ${rest.join(" ")}`);
  const base = defaults(name);
  const sizes = values.sizes === undefined ? base.sizes : values.sizes.split(",").map((s) => whole(s, "--sizes", 1));
  if (values.sizes !== undefined && sizes.length === 0) throw new Error("--sizes needs at least one size");
  return {
    name,
    json: values.json,
    out: values.out,
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    queries: values.queries === undefined ? undefined : whole(values.queries, "--queries", 1),
    duration: values.duration === undefined ? base.duration : whole(values.duration, "--duration", 1),
    connections: values.connections === undefined ? base.connections : whole(values.connections, "--connections", 1),
    packets: values.packets === undefined ? base.packets : whole(values.packets, "--packets", 1),
    rounds: values.rounds === undefined ? base.rounds : whole(values.rounds, "--rounds", 1),
    ...(values.rate === undefined ? {} : { rate: positive(values.rate, "--rate", Number.POSITIVE_INFINITY) }),
    fraction: values.fraction === undefined ? base.fraction : positive(values.fraction, "--fraction", 1),
    settle: values.settle === undefined ? base.settle : whole(values.settle, "--settle", 0),
    ...(values["cpu-prof"] === undefined ? {} : { cpuProf: values["cpu-prof"] }),
    ...(values["heap-snapshots"] === undefined ? {} : { heapSnapshots: values["heap-snapshots"] }),
    ...(values["node-options"] === undefined ? {} : { nodeOptions: values["node-options"].split(/\s+/).filter(Boolean) }),
    help: values.help,
  };
}

function defaults(name: BenchName): BenchArgs {
  return {
    name,
    json: false,
    // packet-e2e: no sizes by default, the catalog is the MCP servers' tools alone
    sizes: name === "route-scale" ? DEFAULT_SIZES : name === "route-http" ? [1_000] : [],
    // packet-e2e's target is a rate sustained for 60 s; tracing-cost runs it twice per round; soak: 10 minutes
    duration: name === "packet-e2e" ? 60 : name === "tracing-cost" ? 20 : name === "soak" ? 600 : 10,
    connections: 16,
    packets: 2_000,
    rounds: name === "tracing" ? 5 : 2,
    fraction: 0.8,
    settle: name === "soak" ? SETTLE_SECONDS : 0,
    help: false,
  };
}

function isBench(name: string | undefined): name is BenchName {
  return (BENCHES as readonly (string | undefined)[]).includes(name);
}

/** A number above 0 and at most `most`. */
function positive(value: string, option: string, most: number): number {
  const n = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(n) || n <= 0 || n > most) throw new Error(`${option} must be a number above 0${most < Number.POSITIVE_INFINITY ? ` and at most ${most}` : ""}, got "${value}"`);
  return n;
}

/** A whole number of at least `least`; "100,000"-style separators are not accepted (commas split lists). */
function whole(value: string, option: string, least: number): number {
  const n = Number(value.trim().replace(/_/g, ""));
  if (value.trim() === "" || !Number.isInteger(n) || n < least) throw new Error(`${option} must be a whole number of at least ${least}, got "${value}"`);
  return n;
}
