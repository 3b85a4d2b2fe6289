import { defaultsOf, serverUrlConfigProperties } from "@switchyard/config";
import { Type } from "typebox";
import type { Static } from "typebox";
/**
 * The gateway's settings, one environment variable each. `readConfig` from
 * `@switchyard/config` applies the defaults and coercion and names a bad variable.
 */
export const configSchema = Type.Object(
  {
    HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: "Port of the HTTP API" }),
    HTTP_HOST: Type.String({ minLength: 1, default: "0.0.0.0", description: "Address the HTTP API listens on" }),
    GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50051, description: "Port of the gRPC API" }),
    BODY_LIMIT_BYTES: Type.Integer({
      minimum: 1024,
      default: 1048576,
      description: "Largest request accepted, in bytes: HTTP body and gRPC message alike",
    }),
    MAX_MESSAGE_CHARS: Type.Integer({ minimum: 1, default: 32768, description: "Longest user message accepted" }),
    MAX_HISTORY_TURNS: Type.Integer({ minimum: 0, default: 50, description: "Most earlier turns a request may carry" }),
    WAIT_TIMEOUT_MS: Type.Integer({
      minimum: 0,
      default: 30000,
      description: "How long a waiting request waits for its packet before answering 202 / finished=false",
    }),
    ROUTE_TIMEOUT_MS: Type.Integer({
      minimum: 1,
      default: 5000,
      description: "How long a route-only request waits for an embedding-router before answering 503",
    }),
    MAX_REINJECTIONS: Type.Integer({ minimum: 0, default: 3, description: "Reinjection rounds a packet may take" }),
    AUTH: Type.Enum(["keys", "none"], {
      default: "keys",
      description: "keys: every API request needs a bearer API key; none: local mode, no keys, one tenant \"local\"",
    }),
    API_KEYS: Type.Optional(Type.String({ minLength: 1, description: "API keys and their tenants: key:tenant,key:tenant" })),
    ALLOW_UNAUTHENTICATED_REMOTE: Type.Boolean({
      default: false,
      description: "Local mode (AUTH=none) on an HTTP_HOST other than loopback: refused unless true, and then every start warns",
    }),
    API_KEYS_FILE: Type.Optional(Type.String({ minLength: 1, description: "A file of key:tenant entries, one per line or comma-separated" })),
    ADMIN_API_KEYS: Type.Optional(Type.String({
      minLength: 1,
      description: "Admins' API keys, key:tenant,…: they act as their tenant and may also register MCP servers (POST /v1/servers), approve quarantined tools and add shared examples",
    })),
    RATE_LIMIT_MAX: Type.Optional(Type.Integer({
      minimum: 0,
      description: "Requests one tenant may make per window; 0: unlimited. Unset: 600 with keys, unlimited in local mode",
    })),
    RATE_LIMIT_WINDOW_MS: Type.Integer({ minimum: 1, default: 60000, description: "The rate limit's window" }),
    AUTH_FAILURE_LIMIT: Type.Integer({
      minimum: 0,
      default: 20,
      description: "Wrong API keys one client address may present per AUTH_FAILURE_WINDOW_MS (HTTP and gRPC together); past it every request from the address, right keys included, is answered 429 (gRPC RESOURCE_EXHAUSTED) until the window ends. 0: unlimited",
    }),
    AUTH_FAILURE_WINDOW_MS: Type.Integer({ minimum: 1, default: 60000, description: "The failed-authentication limit's window, from an address's first wrong key" }),
    SERVER_URL_ALLOW: serverUrlConfigProperties.SERVER_URL_ALLOW,
    MAX_CONCURRENT_PACKETS: Type.Optional(Type.Integer({
      minimum: 0,
      description: "Packets one tenant may have in flight; 0: unlimited. Unset: 64 with keys, unlimited in local mode",
    })),
    PUBLISH_TIMEOUT_MS: Type.Integer({
      minimum: 1,
      default: 5000,
      description: "How long one try to store a packet waits for JetStream, and how long a request waits for a lost NATS connection to come back before 503",
    }),
    PACKET_DEADLINE_MS: Type.Integer({
      minimum: 0,
      default: 120000,
      description: "Time a packet has to finish from submission (or approval); past it a stage ends it FAILED. 0: no deadline",
    }),
    RECONCILE_INTERVAL_MS: Type.Integer({
      minimum: 0,
      default: 15000,
      description: "How often the reconciler looks for packets in flight that JetStream stopped delivering (docs/reliability.md, \"Packets JetStream stops delivering\"); 0: off",
    }),
    RECONCILE_HORIZON_MS: Type.Integer({
      minimum: 1000,
      default: 60000,
      description: "How long a packet in flight may go unchanged before the reconciler asks the stream whether it still has a message; more than WAIT_TIMEOUT_MS, the time a first publish is tried",
    }),
    RECONCILE_MAX_RESUMES: Type.Integer({
      minimum: 0,
      default: 3,
      description: "Times the reconciler publishes one lost packet again; past them, or past its deadline, it ends the packet FAILED (\"lost in transit at stage …\")",
    }),
    // The stages' model settings by name; the gateway's doors read them for their upstream.
    LLM_BASE_URL: Type.String({
      default: "",
      description: "/v1/chat/completions, /v1/responses: the OpenAI-compatible API they forward to, up to /v1 (Ollama http://localhost:11434/v1, vLLM, OpenAI). Empty: https://api.openai.com/v1 when LLM_API_KEY is set, else the doors answer 503",
    }),
    LLM_API_KEY: Type.String({ default: "", description: "/v1/chat/completions, /v1/responses: the bearer key sent upstream (the caller's own key is never forwarded); local servers need none" }),
    PROXY_TOP_K: Type.Integer({
      minimum: 1,
      maximum: 128,
      default: 5,
      description: "/v1/chat/completions, /v1/messages, /v1/responses: a request with more tools than this sends the upstream model only its best this many, plus the catalog's core tools, the tool_choice and the tools used in the conversation; a tool with defer_loading: true goes only when routing picks it",
    }),
    PROXY_TIMEOUT_MS: Type.Integer({
      minimum: 100,
      default: 30000,
      description: "/v1/chat/completions, /v1/messages, /v1/responses: how long the upstream model has to answer, a stream's whole answer included (cut there); not answering in time is a 502. The gateway's drain waits this long: raise terminationGracePeriodSeconds with it",
    }),
    ANTHROPIC_BASE_URL: Type.String({
      default: "",
      description: "/v1/messages: the Anthropic Messages API it forwards to, without /v1 (as the Anthropic SDK's). Empty: https://api.anthropic.com when ANTHROPIC_API_KEY is set, else the door answers 503",
    }),
    ANTHROPIC_API_KEY: Type.String({
      default: "",
      description: "/v1/messages: the key sent upstream as x-api-key (the caller's own key is never forwarded)",
    }),
    MCP_LIST_ALL_MAX_TOOLS: Type.Integer({
      minimum: 0,
      default: 40,
      description: "/mcp lists a catalog of at most this many tools whole; a larger one as its core tools and the meta-tools search_tools, call_tool and call",
    }),
    MCP_SESSION_MAX_TOOLS: Type.Integer({
      minimum: 0,
      maximum: 100,
      default: 10,
      description: "/mcp: tools a session (_meta io.switchyard/session or the x-switchyard-session header) keeps listed beside the core tools: those routed for its turns, found or called in it, the latest kept",
    }),
    MCP_USER_DOMAINS: Type.String({
      default: "",
      description: "/mcp: an industry or role (_meta io.switchyard/user, or the x-switchyard-industry / x-switchyard-role headers) → the domains whose tools its users are listed: healthcare=medical|records,developer=files|code",
    }),
    PUBLIC_URL: Type.Optional(Type.String({
      pattern: "^https?://[^\\s]+$",
      description: "Where people reach the gateway (scheme, host, port), for links into the console: a held call's approvalUrl is PUBLIC_URL/console/approvals/<packet id>. Unset: http://127.0.0.1:<HTTP_PORT>",
    })),
    JAEGER_UI_URL: Type.String({
      default: "",
      description: "Jaeger's UI (http://jaeger:16686): the console links each packet's trace to JAEGER_UI_URL/trace/<trace id>; empty: no links",
    }),
    MCP_SEARCH_DEFAULT_K: Type.Integer({
      minimum: 1,
      maximum: 50,
      default: 5,
      description: "Tools /mcp's search_tools returns when the caller gives no k",
    }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof configSchema>;

/** The settings with every default applied (the optional ones unset). */
export const defaultConfig: Config = defaultsOf(configSchema);

/** Limits that are on by default only when keys are: local mode is one trusted user. */
export const KEYED_DEFAULTS = { RATE_LIMIT_MAX: 600, MAX_CONCURRENT_PACKETS: 64 } as const;

/** A per-tenant limit as set, or its default for the auth mode; 0 means unlimited. */
export function tenantLimit(config: Config, name: keyof typeof KEYED_DEFAULTS): number {
  return config[name] ?? (config.AUTH === "keys" ? KEYED_DEFAULTS[name] : 0);
}
