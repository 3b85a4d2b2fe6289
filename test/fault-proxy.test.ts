import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createConnection, createServer } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "@nats-io/transport-node";
import { startLocalNats } from "@switchyard/local-nats";
import { startFaultProxy } from "./fault-proxy.js";
import type { FaultProxy } from "./fault-proxy.js";
import { eventually, fleetSkipReason } from "./harness.js";

/** Connects through the proxy; collects what comes back and whether the connection failed. */
async function client(proxy: FaultProxy) {
  const socket: Socket = createConnection({ host: "127.0.0.1", port: proxy.port });
  await once(socket, "connect");
  const got: string[] = [];
  const ended = { error: "" as string, closed: false };
  socket.on("data", (data: Buffer) => got.push(data.toString()));
  socket.on("error", (error: NodeJS.ErrnoException) => (ended.error = error.code ?? error.message));
  socket.on("close", () => (ended.closed = true));
  return { socket, received: () => got.join(""), ended };
}

describe("fault proxy - a TCP proxy that injects latency, resets and pauses", () => {
  let echo: Server;
  let echoPort: number;
  const echoSockets = new Set<Socket>();

  before(async () => {
    echo = createServer((socket) => {
      echoSockets.add(socket);
      socket.on("close", () => echoSockets.delete(socket));
      socket.on("error", () => {});
      socket.pipe(socket);
    });
    echo.listen(0, "127.0.0.1");
    await once(echo, "listening");
    echoPort = (echo.address() as AddressInfo).port;
  });

  after(() => {
    for (const socket of echoSockets) socket.destroy();
    echo.close();
  });

  it("fault proxy - forwards bytes both ways", async () => {
    const proxy = await startFaultProxy({ targetPort: echoPort });
    try {
      const c = await client(proxy);
      c.socket.write("hello ");
      c.socket.write("world");
      await eventually(async () => (c.received() === "hello world" ? true : undefined), 5_000, "the echo");
      assert.equal(proxy.openConnections(), 1);
      c.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it("fault proxy - latency delays every chunk each way and keeps their order", async () => {
    const proxy = await startFaultProxy({ targetPort: echoPort, latencyMs: 150 });
    try {
      const c = await client(proxy);
      const started = performance.now();
      for (const part of ["a", "b", "c"]) c.socket.write(part);
      await eventually(async () => (c.received().length === 3 ? true : undefined), 5_000, "the echo");
      assert.equal(c.received(), "abc");
      assert.ok(performance.now() - started >= 300, "one delay to the server and one back");
      c.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it("fault proxy - resetAll fails the open connections with a reset", async () => {
    const proxy = await startFaultProxy({ targetPort: echoPort });
    try {
      const c = await client(proxy);
      c.socket.write("x");
      await eventually(async () => (c.received() === "x" ? true : undefined), 5_000, "the echo");
      proxy.resetAll();
      await eventually(async () => (c.ended.closed ? true : undefined), 5_000, "the client to see the reset");
      assert.equal(c.ended.error, "ECONNRESET");
      assert.equal(proxy.openConnections(), 0);
      assert.deepEqual(proxy.stats, { accepted: 1, resets: 1 });
    } finally {
      await proxy.close();
    }
  });

  it("fault proxy - with reset probability 1 the first chunk resets the connection instead of passing", async () => {
    const proxy = await startFaultProxy({ targetPort: echoPort, resetProbability: 1 });
    try {
      const c = await client(proxy);
      c.socket.write("lost");
      await eventually(async () => (c.ended.closed ? true : undefined), 5_000, "the reset");
      assert.equal(c.received(), "");
      assert.equal(proxy.stats.resets, 1);
    } finally {
      await proxy.close();
    }
  });

  it("fault proxy - pause holds the traffic, resume lets it through", async () => {
    const proxy = await startFaultProxy({ targetPort: echoPort });
    try {
      const c = await client(proxy);
      proxy.pause();
      c.socket.write("held");
      await sleep(300);
      assert.equal(c.received(), "", "nothing passes while paused");
      proxy.resume();
      await eventually(async () => (c.received() === "held" ? true : undefined), 5_000, "the held bytes");
      c.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it("fault proxy - a NATS client behind it reconnects after a reset and is served again", { skip: fleetSkipReason() }, async () => {
    const nats = await startLocalNats();
    const proxy = await startFaultProxy({ targetPort: nats.port, latencyMs: 20 });
    const nc = await connect({ servers: proxy.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    try {
      const sub = nc.subscribe("echo");
      void (async () => {
        for await (const msg of sub) msg.respond(msg.data);
      })();
      assert.equal((await nc.request("echo", "one")).string(), "one");
      proxy.resetAll();
      const reply = await eventually(
        async () => nc.request("echo", "two", { timeout: 1_000 }).then((m) => m.string(), () => undefined),
        15_000,
        "a reply after the reconnect",
      );
      assert.equal(reply, "two");
      assert.ok(proxy.stats.accepted >= 2, "the client connected again");
    } finally {
      await nc.close();
      await proxy.close();
      await nats.stop();
    }
  });
});
