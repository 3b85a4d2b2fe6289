import { hostname } from "node:os";
import { context, createContextKey, isSpanContextValid, trace } from "@opentelemetry/api";
import type { Context } from "@opentelemetry/api";
import { pino } from "pino";
import type { DestinationStream, Logger } from "pino";
import { maskDeep, maskSecrets } from "./secrets.js";

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
 * message and in every string of the logged object, whatever the caller passed.
 */
export function createLogger(service: string, level = "info", destination: DestinationStream = pino.destination(1)): Logger {
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
      logMethod(args, method) {
        const masked = args.map((arg) => (typeof arg === "string" ? maskSecrets(arg) : maskDeep(arg))) as Parameters<typeof method>;
        return method.apply(this, masked);
      },
    },
    },
    destination,
  );
}

export type { Logger };
