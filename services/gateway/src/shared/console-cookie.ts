/**
 * The console's cookie: it holds the API key itself, so any replica checks it and a revoked key
 * stops working at once; HttpOnly, so no script reads it; SameSite=Strict. A request signed in by
 * it that changes something must say it comes from the console (a header no cross-site form can
 * set) and, when the browser names its origin, come from this one.
 */
import type { FastifyRequest } from "fastify";

export const CONSOLE_COOKIE = "switchyard_console";
/** The header the console sends with every request; a cookie-signed change without it is refused. */
export const CONSOLE_HEADER = "x-switchyard-console";
const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The key a request's console cookie holds, when it has one and no Authorization header (which wins). */
export function consoleCookieKey(request: FastifyRequest): string | undefined {
  if (request.headers.authorization !== undefined) return undefined;
  const key = request.cookies[CONSOLE_COOKIE];
  return key === undefined || key === "" ? undefined : key;
}

/** Whether the request came over https: to the gateway, or to the proxy in front of it (X-Forwarded-Proto). */
export function overHttps(request: FastifyRequest): boolean {
  const forwarded = request.headers["x-forwarded-proto"];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
  return (proto ?? request.protocol) === "https";
}

/** Why a cookie-signed request may not go on (cross-site request forgery), or undefined when it may. */
export function forgeryRefusal(request: FastifyRequest): string | undefined {
  if (!UNSAFE_METHODS.has(request.method)) return undefined;
  if (request.headers[CONSOLE_HEADER] !== "1") {
    return `a request signed in by the console's cookie that changes something must carry the header ${CONSOLE_HEADER}: 1`;
  }
  const origin = request.headers.origin;
  const own = `${overHttps(request) ? "https" : "http"}://${request.headers.host ?? ""}`;
  if (origin !== undefined && origin !== own) return `a request signed in by the console's cookie must come from ${own}, not ${origin}`;
  return undefined;
}
