/**
 * Why an OpenAI-compatible endpoint (chat or embeddings) gave no answer, in the words an
 * operator acts on: the openai client reports a refused connection as "Connection error."
 * and keeps the socket's error code three causes down.
 */
import OpenAI from "openai";
import type { Outage } from "@switchyard/telemetry";

/** Socket error codes, as Node and undici name them, and what they mean. */
const SOCKET_CODES: Record<string, Outage> = {
  ECONNREFUSED: { cause: "connection_refused", text: "did not answer (connection refused)" },
  ENOTFOUND: { cause: "unreachable", text: "did not answer (host not found)" },
  EAI_AGAIN: { cause: "unreachable", text: "did not answer (host not found)" },
  EHOSTUNREACH: { cause: "unreachable", text: "did not answer (host unreachable)" },
  ENETUNREACH: { cause: "unreachable", text: "did not answer (network unreachable)" },
  ECONNRESET: { cause: "unreachable", text: "did not answer (connection reset)" },
  ETIMEDOUT: { cause: "timeout", text: "did not answer (connection timed out)" },
  UND_ERR_CONNECT_TIMEOUT: { cause: "timeout", text: "did not answer (connection timed out)" },
};

/** The outage an error of the openai client (or one wrapping it as its `cause`) stands for. */
export function outageOf(error: unknown, timeoutMs?: number): Outage {
  for (const e of causeChain(error)) {
    if (e instanceof OpenAI.APIConnectionTimeoutError) {
      return { cause: "timeout", text: timeoutMs ? `did not answer within ${timeoutMs} ms` : "did not answer in time" };
    }
    if (e instanceof OpenAI.APIError && e.status !== undefined) {
      const cause = e.status === 429 ? "http_429" : e.status >= 500 ? "http_5xx" : e.status === 400 || e.status === 422 ? "bad_request" : "http_4xx";
      return { cause, text: `answered HTTP ${e.status} (${e.message})` };
    }
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && SOCKET_CODES[code]) return SOCKET_CODES[code];
  }
  const first = causeChain(error)[0];
  return { cause: "unreachable", text: `did not answer (${first instanceof Error ? first.message : String(error)})` };
}

/** Host and port of a base URL, as an outage names the endpoint; the openai client's default when none is set. */
export function endpointOf(baseURL: string | undefined): string {
  return new URL(baseURL || "https://api.openai.com/v1").host;
}

/** The check at start waits at most this long: a host that drops packets does not hold a service back from readiness. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Asks the endpoint for its models (`GET /models`, which OpenAI-compatible servers serve
 * and which costs no tokens): undefined when it answers at all below HTTP 500 (a server
 * without the route answers 404, and a wrong key shows on the first real request), else
 * the outage. The check at start, before any request needs the endpoint.
 */
export async function probeEndpoint(options: { baseURL?: string | undefined; apiKey?: string | undefined; timeoutMs: number }): Promise<Outage | undefined> {
  const timeoutMs = Math.min(options.timeoutMs, PROBE_TIMEOUT_MS);
  const client = new OpenAI({
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    apiKey: options.apiKey || "none",
    timeout: timeoutMs,
    maxRetries: 0,
    logLevel: "off",
  });
  try {
    await client.models.list();
    return undefined;
  } catch (error) {
    const outage = outageOf(error, timeoutMs);
    return outage.cause === "http_4xx" || outage.cause === "bad_request" ? undefined : outage;
  }
}

/** The error, its `cause`s and the errors an AggregateError holds (a host tried on IPv6 and IPv4), outermost first. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const queue = [error];
  while (queue.length > 0 && chain.length < 16) {
    const e = queue.shift();
    if (e === undefined || e === null || chain.includes(e)) continue;
    chain.push(e);
    if (e instanceof AggregateError) queue.push(...e.errors);
    if (e instanceof Error) queue.push(e.cause);
  }
  return chain;
}
