/**
 * A second gateway on the same NATS, logging at warn: at the default info level the
 * gateway logs a line per API request, made, masked and written (@switchyard/telemetry's
 * logger). route-http measures both, so the cost is visible.
 * Ready when /readyz answers 200: at warn there is no "ready" line to wait for.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { SERVICE_NODE_OPTIONS } from "@switchyard/fleet";
import { REPO_ROOT } from "./bench-fleet.js";

/** The gateway reads the whole catalog before it is ready: long with 100,000 tools. */
const READY_TIMEOUT_MS = 300_000;

export async function startQuietGateway(natsUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...SERVICE_NODE_OPTIONS, "services/gateway/dist/main.js"], {
    cwd: REPO_ROOT,
    env: { ...process.env, NATS_URL: natsUrl, AUTH: "none", HTTP_PORT: String(port), HTTP_HOST: "127.0.0.1", GRPC_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { url, stop };
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`the warn-level gateway was not ready within ${READY_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A port nothing listens on now (the gateway takes it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
