import type { NatsConnection } from "@nats-io/nats-core";
import { isNatsFailure } from "@switchyard/bus";
import { GatewayError } from "../shared/deps.js";

/** Whether NATS can be reached, kept up to date from the connection's status events. */
export interface NatsAvailability {
  connected(): boolean;
  /** True when connected now; else whether the connection comes back within the grace period. */
  awaitConnection(): Promise<boolean>;
}

/**
 * Follows the connection: a dropped connection keeps reconnecting for ever (runtime's
 * maxReconnectAttempts -1). A request that finds it down waits up to `graceMs` for it:
 * the client moves to another server of a cluster within moments of losing one. Past
 * that it is refused, instead of waiting on a publish that cannot be acknowledged.
 */
export function watchNatsAvailability(nc: NatsConnection, graceMs: number): NatsAvailability {
  let connected = !nc.isClosed();
  const waiting = new Set<() => void>();
  void (async () => {
    // The status iterator ends when the connection closes.
    for await (const event of nc.status()) {
      if (event.type === "disconnect" || event.type === "close") connected = false;
      else if (event.type === "reconnect") {
        connected = true;
        for (const wake of waiting) wake();
      }
    }
  })();
  const up = () => connected && !nc.isClosed();
  return {
    connected: up,
    async awaitConnection() {
      if (up() || nc.isClosed()) return up();
      let wake = () => {};
      const reconnected = new Promise<void>((resolve) => (wake = resolve));
      waiting.add(wake);
      const timer = setTimeout(wake, graceMs);
      await reconnected;
      clearTimeout(timer);
      waiting.delete(wake);
      return up();
    },
  };
}

export const NATS_UNAVAILABLE = "NATS is unreachable; the request was not accepted, try again shortly";

/**
 * Runs `work` only while NATS is connected, and turns a failure of the NATS client
 * into 503/UNAVAILABLE, so a client learns quickly that nothing was accepted.
 */
export async function whileNatsAvailable<T>(availability: NatsAvailability, work: () => Promise<T>): Promise<T> {
  if (!(await availability.awaitConnection())) throw new GatewayError("unavailable", NATS_UNAVAILABLE);
  try {
    return await work();
  } catch (error) {
    if (isNatsFailure(error)) throw new GatewayError("unavailable", NATS_UNAVAILABLE, undefined, { cause: error });
    throw error;
  }
}
