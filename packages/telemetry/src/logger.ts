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
 * Log lines are gathered into writes of about 4 KB (and written at least every 100 ms, and
 * when the process exits: pino flushes its destination then): one write(2) per line was
 * a fifth of a route's time through the gateway at one connection (route-http: 1.35 ms
 * against 1.14 ms for the same gateway logging at warn; 1.11 ms buffered). A line
 * can be lost only if the process is killed outright (SIGKILL, OOM), with at most the
 * last 100 ms of lines.
 */
const BUFFERED_STDOUT = { dest: 1, sync: false, minLength: 4096, periodicFlush: 100 };

/**
 * JSON logs, one line per event, with the service and instance on every line, and the
 * active trace id, span id and packet id where there are ones. Secrets are masked in the
 * finished line, whatever the caller passed: message, objects, errors and their stacks.
 */
export function createLogger(service: string, level = "info", destination: DestinationStream = pino.destination(BUFFERED_STDOUT)): Logger {
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
