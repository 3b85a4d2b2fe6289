/**
 * The MCP door's transport answers in JSON only (enableJsonResponse), yet the SDK refuses with 406
 * a request whose Accept lacks text/event-stream (modelcontextprotocol/typescript-sdk#1944):
 * Swagger's "Try it out" and curl accept any media type, JSON-RPC clients `application/json`. A request that
 * accepts JSON (no Accept at all does) is passed on as accepting both; one that does not still
 * gets the SDK's 406.
 */
import type { IncomingMessage } from "node:http";
import Negotiator from "negotiator";

const JSON_MEDIA = "application/json";
const BOTH = `${JSON_MEDIA}, text/event-stream`;

/** Rewrites the request's Accept to both media types when it accepts JSON, in `headers` and in `rawHeaders` alike. */
export function acceptJsonAnswers(raw: Pick<IncomingMessage, "headers" | "rawHeaders">): void {
  if (new Negotiator(raw).mediaType([JSON_MEDIA]) === undefined) return;
  raw.headers.accept = BOTH;
  // The SDK's Request adapter (@hono/node-server) reads `headers` for one lookup but builds its Headers from the raw pairs.
  const kept: string[] = [];
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    if (raw.rawHeaders[i]!.toLowerCase() !== "accept") kept.push(raw.rawHeaders[i]!, raw.rawHeaders[i + 1]!);
  }
  raw.rawHeaders.splice(0, raw.rawHeaders.length, ...kept, "Accept", BOTH);
}
