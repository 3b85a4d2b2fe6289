/**
 * A TCP proxy for fault tests (issue 6, group 5): it sits between the services and
 * nats-server and injects the network's faults on demand: latency on every chunk,
 * connection resets (now, or at random per chunk), and a pause that holds all traffic.
 */
import { createConnection, createServer } from "node:net";
import type { AddressInfo, Socket } from "node:net";

export interface FaultProxyOptions {
  /** Where to forward, e.g. the local nats-server. */
  targetHost?: string;
  targetPort: number;
  /** Delay added to every chunk, both directions. @default 0 */
  latencyMs?: number;
  /** Chance, per chunk, that the connection is reset instead of forwarded. @default 0 */
  resetProbability?: number;
  /** Where the random draws come from (a seeded generator makes a run repeatable). @default Math.random */
  random?: () => number;
}

export interface FaultProxy {
  /** `nats://127.0.0.1:<port>`, for NATS_URL. */
  url: string;
  port: number;
  latencyMs: number;
  resetProbability: number;
  /** Connections accepted and connections reset so far. */
  readonly stats: { accepted: number; resets: number };
  /** Connection pairs open now. */
  openConnections(): number;
  /** Resets every open connection at once (RST to both ends). */
  resetAll(): void;
  /** Holds all traffic, and new connections, until resume(). */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

interface Queued {
  data: Buffer;
  due: number;
}

/**
 * One direction of a connection: chunks leave in arrival order, each no earlier
 * than its arrival plus the latency at arrival. A single pump per direction keeps
 * the order even when the latency changes mid-stream.
 */
class DelayedPipe {
  private readonly queue: Queued[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: Socket,
    private readonly isPaused: () => boolean,
  ) {}

  push(data: Buffer, latencyMs: number): void {
    this.queue.push({ data, due: Date.now() + latencyMs });
    this.pump();
  }

  pump(): void {
    if (this.timer || this.isPaused()) return;
    while (this.queue.length > 0) {
      const wait = this.queue[0]!.due - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      if (!this.to.destroyed) this.to.write(this.queue.shift()!.data);
      else this.queue.length = 0;
    }
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }
}

interface Pair {
  client: Socket;
  upstream: Socket;
  pipes: DelayedPipe[];
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = options.random ?? Math.random;
  const pairs = new Set<Pair>();
  let paused = false;

  const reset = (pair: Pair) => {
    if (!pairs.delete(pair)) return;
    proxy.stats.resets += 1;
    for (const pipe of pair.pipes) pipe.clear();
    // An RST, not a FIN: the client sees the connection fail as it would when a network drops it.
    for (const socket of [pair.client, pair.upstream]) if (!socket.destroyed) socket.resetAndDestroy();
  };

  const server = createServer((client) => {
    proxy.stats.accepted += 1;
    const upstream = createConnection({ host: options.targetHost ?? "127.0.0.1", port: options.targetPort });
    const pair: Pair = { client, upstream, pipes: [] };
    const toUpstream = new DelayedPipe(upstream, () => paused);
    const toClient = new DelayedPipe(client, () => paused);
    pair.pipes.push(toUpstream, toClient);
    pairs.add(pair);
    const forward = (pipe: DelayedPipe) => (data: Buffer) => {
      if (proxy.resetProbability > 0 && random() < proxy.resetProbability) reset(pair);
      else pipe.push(data, proxy.latencyMs);
    };
    client.on("data", forward(toUpstream));
    upstream.on("data", forward(toClient));
    // One end closing or failing ends the other; the pair is gone either way.
    const close = () => {
      if (!pairs.delete(pair)) return;
      for (const pipe of pair.pipes) pipe.clear();
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on("error", close);
      socket.on("close", close);
    }
    if (paused) {
      client.pause();
      upstream.pause();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const proxy: FaultProxy = {
    url: `nats://127.0.0.1:${port}`,
    port,
    latencyMs: options.latencyMs ?? 0,
    resetProbability: options.resetProbability ?? 0,
    stats: { accepted: 0, resets: 0 },
    openConnections: () => pairs.size,
    resetAll() {
      for (const pair of [...pairs]) reset(pair);
    },
    pause() {
      paused = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const { client, upstream, pipes } of pairs) {
        client.resume();
        upstream.resume();
        for (const pipe of pipes) pipe.pump();
      }
    },
    async close() {
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        for (const pipe of pair.pipes) pipe.clear();
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
