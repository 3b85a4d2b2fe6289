import { context, propagation, ROOT_CONTEXT } from "@opentelemetry/api";
import type { Context, TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import type { MsgHdrs } from "@nats-io/nats-core";

// nats.js has no OpenTelemetry instrumentation, so carrying W3C trace context
// in message headers is ours: two small adapters over the global propagator.
const setter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => (carrier ? carrier.keys() : []),
  get: (carrier, key) => (carrier?.has(key) ? carrier.get(key) : undefined),
};

/** Writes the active context's `traceparent`/`tracestate` into the headers. */
export function injectTraceContext(headers: MsgHdrs, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, setter);
}

/** The context a message's headers carry, for the consumer's span to continue the trace. */
export function extractTraceContext(headers: MsgHdrs | undefined): Context {
  return propagation.extract(context.active(), headers, getter);
}

/** The active trace as a W3C traceparent, to keep on the packet; "" when there is no trace. */
export function currentTraceparent(ctx: Context = context.active()): string {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier["traceparent"] ?? "";
}

/** The context of the trace a packet belongs to, from its header's traceparent (a new trace when it has none). */
export function packetTraceContext(traceparent: string): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}
