import { trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

export interface Tracing {
  tracer: Tracer;
  shutdown(): Promise<void>;
}

/**
 * Registers a tracer provider with the W3C trace-context propagator and an
 * AsyncLocalStorage context manager, so every packet gets a trace id at the
 * gateway and `traceparent` travels on every NATS message. Spans are not
 * exported yet: with no span processor they are created and dropped.
 */
export function initTracing(service: string): Tracing {
  const provider = new NodeTracerProvider();
  provider.register();
  return { tracer: trace.getTracer(`switchyard-${service}`), shutdown: () => provider.shutdown() };
}
