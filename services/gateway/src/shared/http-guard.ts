import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { AuthFailure, Authenticator } from "./auth.js";
import { THROTTLED_MESSAGE } from "./auth-throttle.js";
import { CONSOLE_HEADER, consoleCookieKey, forgeryRefusal } from "./console-cookie.js";
import { errorBody } from "./errors.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The caller's tenant, from its API key (or "local" in local mode); set before the body is read. */
    tenant: string;
    /** Whether the caller's key is an admin's (ADMIN_API_KEYS; always in local mode). */
    admin: boolean;
  }
}

/** Requests one tenant may make per window; max 0 means unlimited. */
export interface RateLimitSettings {
  max: number;
  windowMs: number;
}

const AUTH_MESSAGES: Record<Exclude<AuthFailure, "throttled">, string> = {
  missing: "an API key is required: Authorization: Bearer <key>",
  invalid: "the API key is not valid",
};

/** The Host names a gateway listening on loopback answers to. */
const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * DNS rebinding protection for a gateway on loopback: a web page whose name an attacker
 * points at 127.0.0.1 reaches the local API from the user's browser as its own origin, so a
 * request whose Host is not a loopback name is refused (403) before anything else. A gateway on
 * another address is reached by names of its operator's choosing, and needs its keys.
 */
export function guardLoopbackHost(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    let hostname = "";
    try {
      hostname = new URL(`http://${request.headers.host ?? ""}`).hostname;
    } catch {
      // an unparsable Host is refused below
    }
    if (LOOPBACK_HOSTNAMES.has(hostname)) return;
    const message = `Host ${request.headers.host ?? "(none)"} is not this machine's: the gateway listens on loopback only`;
    // MCP clients read a JSON-RPC error; everyone else the API's error body.
    const body = request.url.startsWith("/mcp") ? { jsonrpc: "2.0", id: null, error: { code: -32000, message } } : errorBody(403, message);
    return reply.code(403).send(body);
  });
}

/** 429 for a client that presented too many wrong keys lately (auth-throttle.ts), with when to try again. */
export function refuseThrottled(reply: FastifyReply, auth: Authenticator, client: string) {
  return reply.code(429).header("retry-after", String(auth.retryAfterSeconds?.(client) ?? 1)).send(errorBody(429, THROTTLED_MESSAGE));
}

/**
 * Guards the API routes of `app` (an encapsulated context, so the probes and
 * docs elsewhere stay open): a request without a valid key (its Authorization header, or else
 * the console's cookie) is answered 401
 * before its body is read (429 once its address presented too many wrong keys,
 * auth-throttle.ts), and each tenant's requests are rate limited.
 */
export async function guardApi(app: FastifyInstance, auth: Authenticator, limit: RateLimitSettings): Promise<void> {
  app.decorateRequest("tenant", "");
  app.decorateRequest("admin", false);
  app.addHook("onRequest", async (request, reply) => {
    // Without an Authorization header, the console's cookie is the bearer key (console-cookie.ts).
    const cookieKey = consoleCookieKey(request);
    const caller = auth.authenticate(cookieKey === undefined ? request.headers.authorization : `Bearer ${cookieKey}`, request.ip);
    if (typeof caller === "object") {
      const forged = cookieKey === undefined ? undefined : forgeryRefusal(request);
      if (forged) return reply.code(403).send(errorBody(403, forged, CONSOLE_HEADER));
      request.tenant = caller.tenant;
      request.admin = caller.admin;
      return;
    }
    if (caller === "throttled") return refuseThrottled(reply, auth, request.ip);
    // RFC 6750: the challenge names the scheme, and the error when a key was given but is wrong.
    const challenge = caller === "invalid" ? 'Bearer realm="switchyard", error="invalid_token"' : 'Bearer realm="switchyard"';
    return reply.code(401).header("www-authenticate", challenge).send(errorBody(401, AUTH_MESSAGES[caller]));
  });
  if (limit.max === 0) return;
  // preParsing: after the onRequest hook above has named the tenant, before a body is read.
  await app.register(rateLimit, {
    max: limit.max,
    timeWindow: limit.windowMs,
    hook: "preParsing",
    keyGenerator: (request) => request.tenant,
  });
}
