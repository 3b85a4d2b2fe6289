import { trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import type { Instrumentation } from "@opentelemetry/instrumentation";
import { NodeSDK } from "@opentelemetry/sdk-node";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";

export interface Tracing {
  tracer: Tracer;
  /** True when spans leave the process (an OTLP endpoint or OTEL_TRACES_EXPORTER is set). */
  exporting: boolean;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** Library instrumentations to register (the gateway's fastify and gRPC servers). */
  instrumentations?: Instrumentation[];
  /** Where spans go instead of what the environment says (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
  /** @default process.env */
  env?: Record<string, string | undefined>;
}

/**
 * Starts OpenTelemetry's Node SDK, configured only by the standard OTEL_* variables:
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) with
 * OTEL_EXPORTER_OTLP_PROTOCOL `grpc`, `http/protobuf` or `http/json`, OTEL_TRACES_SAMPLER(_ARG),
 * OTEL_SERVICE_NAME (default `switchyard-<service>`), OTEL_RESOURCE_ATTRIBUTES,
 * OTEL_PROPAGATORS (default W3C trace context and baggage), OTEL_SDK_DISABLED.
 *
 * With no endpoint and no OTEL_TRACES_EXPORTER the SDK is not started at all: the API stays
 * the no-op one (no tracer provider, no context manager, no propagator), so nothing is
 * recorded or exported and a hop pays nothing for tracing (`pnpm bench tracing` measures it:
 * the SDK's context manager alone cost a hop about 8 %). Only traces are set up here:
 * metrics are served by prom-client on /metrics and logs go to stdout (pino), so the SDK's
 * own metric and log exporters are left off rather than defaulting to localhost.
 */
export function initTracing(service: string, options: TracingOptions = {}): Tracing {
  const env = options.env ?? process.env;
  const exporting =
    options.spanProcessors !== undefined ||
    Boolean(env["OTEL_EXPORTER_OTLP_ENDPOINT"] || env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]) ||
    Boolean(env["OTEL_TRACES_EXPORTER"] && env["OTEL_TRACES_EXPORTER"] !== "none");
  if (!exporting) return { tracer: trace.getTracer("switchyard"), exporting, shutdown: async () => {} };
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME reaches the resource through the SDK's env detector; this is only the fallback.
    ...(env["OTEL_SERVICE_NAME"] ? {} : { serviceName: `switchyard-${service}` }),
    instrumentations: options.instrumentations ?? [],
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
  });
  sdk.start();
  return { tracer: trace.getTracer("switchyard"), exporting, shutdown: () => sdk.shutdown() };
}
