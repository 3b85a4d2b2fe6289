import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

/** How much of a body the gateway reads and drops so that its answer (413, 401, 415, …) reaches the client. */
export interface UnreadBodyLimits {
  /** Bytes read past the point where the answer was decided; a client sending more loses the connection. */
  maxBytes: number;
  /** How long the client may take to send them. */
  timeoutMs: number;
}

export const UNREAD_BODY_LIMITS: UnreadBodyLimits = { maxBytes: 64 * 1024 * 1024, timeoutMs: 10_000 };

/**
 * Reads what is left of a request body and drops it; true once the client has sent it all,
 * false when it sent more than `maxBytes` or took longer than `timeoutMs`.
 */
export function dropUnreadBody(raw: IncomingMessage, limits: UnreadBodyLimits): Promise<boolean> {
  return new Promise((resolve) => {
    let read = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      raw.off("data", count).off("end", ended).off("close", closed);
      if (!whole) raw.pause();
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.maxBytes) finish(false);
    };
    const ended = () => finish(true);
    const closed = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), limits.timeoutMs);
    raw.on("data", count).once("end", ended).once("close", closed).resume();
  });
}

/**
 * An answer sent before the request body has arrived (too large, no API key, not JSON)
 * waits until the client has sent the rest. Closing the socket at once, as fastify does
 * for a 413, makes a client still uploading fail with EPIPE or ECONNRESET instead of
 * reading the answer (Node's fetch, the openai client, Python requests); curl alone copes.
 */
export function answerAfterUnreadBody(app: FastifyInstance, limits: UnreadBodyLimits = UNREAD_BODY_LIMITS): void {
  app.addHook("onSend", (request, reply, payload, done) => {
    // Nearly every request has arrived whole (or been read to its end) by now: no promise for those.
    const raw = request.raw;
    if (raw.complete || raw.readableEnded || raw.destroyed) return done(null, payload);
    void dropUnreadBody(raw, limits).then((whole) => {
      if (!whole) void reply.header("connection", "close");
      done(null, payload);
    });
  });
}
