/**
 * Failed authentications limited per client address, for HTTP and gRPC alike: key guessing
 * gets AUTH_FAILURE_LIMIT tries per window, then every request from the address is refused
 * (429, RESOURCE_EXHAUSTED) until the window ends, a right key included, or the answer
 * would still tell a right guess from a wrong one. @fastify/rate-limit counts every request
 * of one door, so it serves the per-tenant limit (http-guard.ts), not this one.
 */
import type { Authenticator } from "./auth.js";

export interface AuthFailureLimit {
  /** Wrong keys one client address may present per window; 0: unlimited. */
  max: number;
  windowMs: number;
}

/** The refusal's text, for both doors. */
export const THROTTLED_MESSAGE = "too many wrong API keys from this address; try again later";

/** Addresses tracked at most: past it, ended windows are dropped, then the oldest. */
const MAX_CLIENTS = 10_000;

interface FailureWindow {
  failures: number;
  endsAt: number;
}

/**
 * `auth` with wrong keys counted per client address, in a window from the address's first wrong
 * key. A right key does not reset the count: an attacker holding one key could otherwise guess
 * on between its uses. Requests without a client address are not counted.
 */
export function throttleAuthFailures(auth: Authenticator, limit: AuthFailureLimit, now: () => number = Date.now): Authenticator {
  if (limit.max === 0 || !auth.required) return auth;
  const windows = new Map<string, FailureWindow>();
  const current = (client: string): FailureWindow | undefined => {
    const window = windows.get(client);
    if (window && window.endsAt <= now()) windows.delete(client);
    return windows.get(client);
  };
  const recordFailure = (client: string) => {
    const window = current(client);
    if (window) {
      window.failures++;
      return;
    }
    if (windows.size >= MAX_CLIENTS) {
      for (const [key, old] of windows) if (old.endsAt <= now()) windows.delete(key);
      if (windows.size >= MAX_CLIENTS) windows.delete(windows.keys().next().value!);
    }
    windows.set(client, { failures: 1, endsAt: now() + limit.windowMs });
  };
  const retryAfterSeconds = (client: string) => {
    const window = current(clientKey(client));
    return window && window.failures >= limit.max ? Math.max(1, Math.ceil((window.endsAt - now()) / 1000)) : 0;
  };
  return {
    required: auth.required,
    authenticate(authorization, client) {
      if (client === undefined) return auth.authenticate(authorization);
      if (retryAfterSeconds(client) > 0) return "throttled";
      const caller = auth.authenticate(authorization);
      if (caller === "invalid") recordFailure(clientKey(client));
      return caller;
    },
    retryAfterSeconds,
  };
}

/** An IPv4 client seen on a dual-stack socket (::ffff:203.0.113.7) counts as the IPv4 address it is. */
function clientKey(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
}

/** The address of a gRPC peer as grpc-js names it ("203.0.113.7:50123", "::1:50123"): the port left out. */
export function peerAddress(peer: string): string {
  return peer.replace(/:\d+$/, "");
}
