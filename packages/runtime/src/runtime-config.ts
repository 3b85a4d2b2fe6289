import type { ConfigSchema } from "@switchyard/config";

/** Settings every service process reads, beside its own. */
export const runtimeConfigSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    NATS_URL: { type: "string", default: "nats://127.0.0.1:4222", description: "NATS server(s), comma-separated" },
    HEALTH_PORT: { type: "integer", minimum: 0, maximum: 65535, description: "port of /healthz, /readyz and /metrics; 0 picks a free one" },
    HEALTH_HOST: { type: "string", default: "0.0.0.0" },
    LOG_LEVEL: { type: "string", enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"], default: "info" },
    JETSTREAM_REPLICAS: { type: "integer", minimum: 1, maximum: 5, default: 1 },
    STAGE_ACK_WAIT_MS: { type: "integer", minimum: 1000, default: 30000, description: "how long a stage may hold a packet before it is redelivered" },
    STAGE_MAX_DELIVER: { type: "integer", minimum: 1, default: 5, description: "deliveries of one packet message before it is dead-lettered and ends FAILED" },
    STAGE_BACKOFF_MS: {
      type: "string",
      pattern: "^\\s*([1-9]\\d*\\s*(,\\s*[1-9]\\d*\\s*)*)?$",
      default: "",
      description: "ack waits of the 2nd, 3rd, … delivery in ms, comma-separated, the last repeating; empty: doubling from STAGE_ACK_WAIT_MS",
    },
    STAGE_RETRY_DELAY_MS: { type: "integer", minimum: 0, default: 1000, description: "least wait before a packet whose step failed in a retryable way is delivered again" },
    STAGE_CONCURRENCY: { type: "integer", minimum: 1, default: 64, description: "packets one process works on at once" },
    TRACE_CONTENT: {
      type: "boolean",
      default: false,
      description: "record request text, tool arguments and tool output on spans, secrets masked and cut to TRACE_CONTENT_MAX_CHARS",
    },
    TRACE_CONTENT_MAX_CHARS: { type: "integer", minimum: 16, maximum: 65536, default: 256 },
  },
} as const satisfies ConfigSchema;

export interface RuntimeConfig {
  NATS_URL: string;
  HEALTH_PORT?: number;
  HEALTH_HOST: string;
  LOG_LEVEL: string;
  JETSTREAM_REPLICAS: number;
  STAGE_ACK_WAIT_MS: number;
  STAGE_MAX_DELIVER: number;
  /** Comma-separated ms; read it with `parseList`. */
  STAGE_BACKOFF_MS: string;
  STAGE_RETRY_DELAY_MS: number;
  STAGE_CONCURRENCY: number;
  TRACE_CONTENT: boolean;
  TRACE_CONTENT_MAX_CHARS: number;
}
