import { hostname } from "node:os";
import { context, createContextKey, isSpanContextValid, trace } from "@opentelemetry/api";
import type { Context } from "@opentelemetry/api";
import { pino } from "pino";
import type { DestinationStream, Logger } from "pino";
import { maskSecrets } from "./secrets.js";

/** The release, as the fleet reports it (NATS micro services, MCP server and client info); kept with package.json's versions. */
export const SWITCHYARD_VERSION = "0.1.0";

/** The process's identity on every hop and log line: "<host>:<pid>". */
export const INSTANCE = `${hostname()}:${process.pid}`;

const PACKET_ID = createContextKey("switchyard.packet.id");

/** `ctx` carrying the id of the packet being worked on, for every log line written within it. */
export function withPacketId(ctx: Context, packetId: string): Context {
  return ctx.setValue(PACKET_ID, packetId);
}

/**
 * JSON logs, one line per event, with the service and instance on every line, and the
 * active trace id, span id and packet id where there are ones. Secrets are masked in the
 * finished line, whatever the caller passed: message, objects, errors and their stacks.
 * Written synchronously: `pino.destination(1)` is asynchronous with no buffer, so each
 * line went through libuv's thread pool, a write, an eventfd signal and futex wake-ups
 * (about five system calls and two context switches per gateway request, seen with
 * strace under packet-e2e) where one write will do.
 */
export function createLogger(service: string, level = "info", destination: DestinationStream = pino.destination({ dest: 1, sync: true })): Logger {
  return pino(
    {
    name: service,
    level,
    base: { service, instance: INSTANCE },
    mixin() {
      const active = context.active();
      const spanContext = trace.getSpanContext(active);
      const packetId = active.getValue(PACKET_ID);
      return {
        ...(spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {}),
        ...(typeof packetId === "string" ? { packet_id: packetId } : {}),
      };
    },
    hooks: {
      // The serialised line, not the caller's objects: a request object walked before
      // pino's serializers trim it cost the gateway most of its CPU per request.
      streamWrite: maskSecrets,
    },
    },
    destination,
  );
}

export type { Logger };
