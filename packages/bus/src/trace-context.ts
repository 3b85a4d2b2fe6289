import { context, propagation } from "@opentelemetry/api";
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
