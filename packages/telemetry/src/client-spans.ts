/**
 * Spans of calls out of the process: model requests and MCP tool calls. They carry names,
 * models, token counts and failure kinds, never what was sent or received (prompt,
 * completion, tool arguments, tool output).
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Attributes, Span } from "@opentelemetry/api";

/**
 * Attribute names: OpenTelemetry's stable ones, the GenAI and MCP ones (still in
 * development upstream, so written out here instead of imported from the conventions'
 * unstable entry point), and ours under `switchyard.`.
 */
export const ClientAttr = {
  ErrorType: "error.type",
  ServerAddress: "server.address",
  ServerPort: "server.port",
  HttpResponseStatusCode: "http.response.status_code",
  NetworkTransport: "network.transport",
  GenAiOperationName: "gen_ai.operation.name",
  GenAiProviderName: "gen_ai.provider.name",
  GenAiRequestModel: "gen_ai.request.model",
  GenAiRequestTemperature: "gen_ai.request.temperature",
  GenAiResponseModel: "gen_ai.response.model",
  GenAiResponseId: "gen_ai.response.id",
  GenAiResponseFinishReasons: "gen_ai.response.finish_reasons",
  GenAiUsageInputTokens: "gen_ai.usage.input_tokens",
  GenAiUsageOutputTokens: "gen_ai.usage.output_tokens",
  GenAiToolName: "gen_ai.tool.name",
  McpMethodName: "mcp.method.name",
  ToolServer: "switchyard.tool.server",
} as const;

/**
 * Runs `call` as the active CLIENT span `name` (so that spans it causes nest under it) and
 * ends the span after. A call that throws marks it failed with error.type `_OTHER`.
 */
export function withClientSpan<T>(name: string, attributes: Attributes, call: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer("switchyard").startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await call(span);
    } catch (error) {
      markFailed(span, "_OTHER");
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed: `error.type` and status ERROR, described by `description` when given (never by the call's content). */
export function markFailed(span: Span, errorType: string, description?: string): void {
  span.setAttribute(ClientAttr.ErrorType, errorType);
  span.setStatus(description ? { code: SpanStatusCode.ERROR, message: description } : { code: SpanStatusCode.ERROR });
}
