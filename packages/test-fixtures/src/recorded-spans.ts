import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

/**
 * Registers a global tracer provider that keeps every span in memory, for tests that
 * check the spans code makes; `takeSpans()` returns those ended since its last call.
 */
export function recordSpans(): { takeSpans: () => Promise<ReadableSpan[]> } {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  trace.setGlobalTracerProvider(provider);
  return {
    async takeSpans() {
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      exporter.reset();
      return spans;
    },
  };
}
