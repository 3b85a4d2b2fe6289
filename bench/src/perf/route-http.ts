/**
 * `pnpm bench route-http`: POST /v1/route under load, through the gateway, NATS and the
 * embedding-router (each its own process) with a catalog of `size` tools, beside two
 * floors measured in the same run with the same load: a bare NATS request/reply to an
 * echo process (what the route rides on) and the gateway's GET /healthz (its HTTP
 * alone); then both again through a second gateway logging at warn (quiet-gateway.ts).
 * All of it at one connection (service time), then at `connections` (saturation); each
 * row's p50 over the NATS floor's at the same connection count is the ratio the issue
 * asks for.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { readBench } from "@switchyard/bench-data";
import type { BenchResult, BenchRun } from "./bench-result.js";
import { rate } from "./bench-result.js";
import { startBenchFleet } from "./bench-fleet.js";
import { cpuProfileArgs } from "./cpu-profile.js";
import { describeGrowth, growth } from "./growth.js";
import { connectionLevels, httpLoad, loopLoad } from "./load.js";
import type { ClosedLoad, LoadFigures } from "./load.js";
import { startQuietGateway } from "./quiet-gateway.js";
import { scaleCatalog } from "./scale-catalog.js";

const ECHO = fileURLToPath(new URL("nats-echo.js", import.meta.url));
const ECHO_SUBJECT = "bench.echo";
/** Distinct requests each connection sends in turn. */
const BODIES = 200;
const WARMUP_SECONDS = 2;
const ROUTE = "route (gateway → NATS → router)";

export interface RouteHttpOptions {
  sizes: readonly number[];
  duration: number;
  connections: number;
  /** With it, the gateway and router write V8 CPU profiles there when they stop (`pnpm profile <dir> --packets <routes>`). */
  cpuProfDir?: string | undefined;
  log: (line: string) => void;
}

export async function benchRouteHttp(options: RouteHttpOptions): Promise<BenchRun> {
  const datasets = ["metatool", "bfcl", "apibank"].map((name) => readBench(name));
  const results: BenchResult[] = [];
  const notes: string[] = [];
  for (const size of options.sizes) {
    const catalog = scaleCatalog(datasets, size);
    const bodies = catalog.cases.slice(0, BODIES).map((c) => ({ message: c.query, topK: 5 }));
    options.log(`route-http: ${size} tools, starting nats-server, gateway and embedding-router`);
    const nodeArgs = cpuProfileArgs(options.cpuProfDir);
    const bench = await startBenchFleet({ services: ["gateway", "embedding-router"], catalog: catalog.tools, ...(nodeArgs ? { nodeArgs } : {}) });
    // Started one by one inside the try, so that a failure stops whatever did start.
    let echo: ChildProcess | undefined;
    let quiet: { url: string; stop(): Promise<void> } | undefined;
    let nc: NatsConnection | undefined;
    try {
      echo = await startEcho(bench.nats.url);
      quiet = await startQuietGateway(bench.nats.url);
      const client = await connect({ servers: bench.nats.url });
      nc = client;
      const indexed = bench.fleet.processes.get("embedding-router")!.ready["tools"];
      if (indexed !== size) throw new Error(`the router indexed ${String(indexed)} tools, not ${size}`);
      const payloads = bodies.map((b) => new TextEncoder().encode(JSON.stringify(b)));
      const echoLoad = (load: ClosedLoad) => loopLoad((i) => client.request(ECHO_SUBJECT, payloads[i % payloads.length], { timeout: 5000 }), load);
      const route = (url: string, load: ClosedLoad) => httpLoad({ url: `${url}/v1/route`, method: "POST", bodies, ...load });
      // A short round of each first, so JIT and connections are warm before anything counts.
      const warm = { connections: options.connections, duration: WARMUP_SECONDS };
      await route(bench.url, warm);
      await echoLoad(warm);
      await route(quiet.url, warm);
      for (const connections of connectionLevels(options.connections)) {
        const load = { connections, duration: options.duration };
        options.log(`route-http: ${size} tools, ${connections} connection(s), ${options.duration} s of each: NATS floor, route and /healthz through the default gateway, then through one at LOG_LEVEL=warn`);
        const floor = await echoLoad(load);
        const routed = await route(bench.url, load);
        const healthz = await httpLoad({ url: `${bench.url}/healthz`, ...load });
        const quietRouted = await route(quiet.url, load);
        const quietHealthz = await httpLoad({ url: `${quiet.url}/healthz`, ...load });
        const row = (path: string, figures: LoadFigures): BenchResult => ({
          bench: "route-http",
          config: { path, tools: size, connections, seconds: options.duration, failed: figures.failed },
          p50Ms: figures.p50Ms,
          p99Ms: figures.p99Ms,
          throughput: figures.throughput,
          ...(figures === floor ? {} : { ratio: rate(figures.p50Ms / floor.p50Ms), ratioOf: "p50 / NATS floor p50" }),
        });
        results.push(
          row(ROUTE, routed),
          row("floor: NATS request/reply", floor),
          row("gateway GET /healthz", healthz),
          row(`${ROUTE}, gateway LOG_LEVEL=warn`, quietRouted),
          row("gateway GET /healthz, LOG_LEVEL=warn", quietHealthz),
        );
        notes.push(
          `${size.toLocaleString("en-US")} tools, ${connections} connection(s): ${routed.completed} routes, ${routed.failed} failed; route p50 ${rate(routed.p50Ms / floor.p50Ms)}× the NATS round trip ` +
            `(${rate(quietRouted.p50Ms / floor.p50Ms)}× with the gateway at LOG_LEVEL=warn)`,
        );
      }
    } finally {
      await nc?.drain();
      await quiet?.stop();
      if (echo && echo.exitCode === null) {
        echo.kill("SIGTERM");
        await once(echo, "exit");
      }
      await bench.close();
    }
  }
  const routes = results.filter((r) => r.config["path"] === ROUTE && r.config["connections"] === options.connections);
  if (routes.length > 1) {
    const at = (r: BenchResult) => ({ size: Number(r.config["tools"]), cost: r.p50Ms });
    notes.push(`route: ${describeGrowth("p50", growth(at(routes[0]!), at(routes.at(-1)!)), "ms")}`);
  }
  return { results, notes };
}

async function startEcho(natsUrl: string) {
  const child = spawn(process.execPath, [ECHO], { env: { ...process.env, BENCH_NATS_URL: natsUrl, BENCH_SUBJECT: ECHO_SUBJECT }, stdio: ["ignore", "pipe", "inherit"] });
  for await (const line of createInterface({ input: child.stdout })) if (line === "ready") break;
  return child;
}
