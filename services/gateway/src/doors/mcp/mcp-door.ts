/**
 * Switchyard as an MCP server at `/mcp` (Streamable HTTP, the SDK's server classes), for the
 * agents that speak MCP: Claude Desktop, Cursor, VS Code, the OpenAI Agents SDK, LangGraph.
 *
 * Stateless: each POST is answered by a server made for it, from the catalog as the caller's
 * tenant sees it, so any gateway replica answers any request and nothing lives in one process.
 * It sits behind the same API keys and rate limit as the HTTP API (registered inside that
 * guarded context); every call goes through `GatewayDeps.submitCall`, the review, policy,
 * approvals, executor and trace of any packet. `_meta.traceparent` in a request continues the
 * caller's trace.
 */
import { context, propagation } from "@opentelemetry/api";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { JsonObject } from "@bufbuild/protobuf";
import { latestToolOutput, Packet_State, RouteRequestSchema, SubmitCallRequestSchema, ToolRoutingState_ExecutionStatus } from "@switchyard/packet";
import type { Packet, ToolDefinition } from "@switchyard/packet";
import { SWITCHYARD_VERSION } from "@switchyard/telemetry";
import { structureProblem, utf8Text } from "../../shared/bounded-json.js";
import { defaultConfig } from "../../config.js";
import { asksToRetry, ERROR_STATUS, httpErrorOf, RETRY_AFTER_SECONDS } from "../../shared/errors.js";
import { textOverLimit } from "../../shared/requests.js";
import type { GatewayLimits } from "../../shared/requests.js";
import { GatewayError } from "../../shared/deps.js";
import type { GatewayDeps } from "../../shared/deps.js";
import type { ConsoleLinks } from "../../shared/console-links.js";
import { documentedBody } from "../../shared/openapi.js";
import { acceptJsonAnswers } from "./json-accept.js";
import { callerOf, exposedTools, remember } from "./mcp-session.js";
import { CALL_POOL, CALL_TOOL, doorInstructions, ExposedNames, mcpTool, metaTools, poolTool, SEARCH_TOOLS } from "./mcp-tools.js";

export interface McpDoorOptions {
  /** A catalog of at most this many tools is listed whole; a larger one through the meta-tools. */
  listAllMaxTools: number;
  /** How many tools `search_tools` returns unless asked, and how many a session's turns add. */
  searchDefaultK: number;
  /** Tools a session keeps listed beyond the core ones (mcp-session.ts). */
  sessionMaxTools: number;
  /** Industry or role → domains whose tools its users are shown (MCP_USER_DOMAINS). */
  userDomains: ReadonlyMap<string, readonly string[]>;
}

/** The settings' defaults (config.ts). */
export const DEFAULT_MCP_OPTIONS: McpDoorOptions = {
  listAllMaxTools: defaultConfig.MCP_LIST_ALL_MAX_TOOLS,
  searchDefaultK: defaultConfig.MCP_SEARCH_DEFAULT_K,
  sessionMaxTools: defaultConfig.MCP_SESSION_MAX_TOOLS,
  userDomains: new Map(),
};

const SERVER_INFO = { name: "switchyard", version: SWITCHYARD_VERSION };

/** POST /mcp as /docs shows it; the body is read by the door itself, in JSON-RPC's words. */
const POST_SCHEMA = {
  operationId: "mcp",
  summary: "Switchyard as an MCP server: the tools the caller's tenant may use, each call reviewed like any packet",
  description:
    "MCP over Streamable HTTP, stateless: `tools/list` shows the catalog (whole, or over a large one its core tools beside " +
    "`search_tools`, `call_tool` and `call`), and every `tools/call` is reviewed, held for approval when it writes, and traced. " +
    "Answers are JSON: a client that accepts `application/json` is served, though the transport asks for " +
    "`Accept: application/json, text/event-stream`.",
  externalDocs: { description: "MCP Streamable HTTP transport", url: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports" },
  tags: ["agent doors"],
  response: {
    200: { description: "The JSON-RPC answer" },
    202: { type: "null", description: "A notification or a response to the server: accepted, no body" },
    400: { description: "Not JSON, or not a JSON-RPC message: a JSON-RPC error" },
  },
};
const JSON_RPC_MESSAGE = {
  type: "object",
  description: "A JSON-RPC 2.0 message: initialize, tools/list, tools/call, …",
  required: ["jsonrpc"],
  properties: {
    jsonrpc: { type: "string", enum: ["2.0"] },
    id: { description: "A string or a number; absent in a notification" },
    method: { type: "string" },
    params: { type: "object", additionalProperties: true },
  },
  additionalProperties: true,
  examples: [{ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "filesystem_read_text_file", arguments: { path: "notes/todo.md" } } }],
};

/** The route; register it inside the guarded API context (app.ts). */
export function mcpDoor(deps: GatewayDeps, options: McpDoorOptions, limits: Pick<GatewayLimits, "maxMessageChars">, links: ConsoleLinks): FastifyPluginAsync {
  return async (app) => {
    // The body is read as bytes: a malformed one is answered with JSON-RPC's parse error, not an HTTP 400 page.
    // Refusals before the handler (the rate limit, a body too large) in JSON-RPC's shape, with the HTTP status and Retry-After.
    app.setErrorHandler((error, request, reply) => {
      const body = httpErrorOf(error);
      if (body.statusCode >= 500) request.log.error({ err: error }, "request failed");
      if (asksToRetry(body.statusCode) && !reply.hasHeader("retry-after")) void reply.header("retry-after", String(RETRY_AFTER_SECONDS));
      const code = asksToRetry(body.statusCode) ? TRY_AGAIN_LATER : body.statusCode >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
      return reply.code(body.statusCode).send(jsonRpcError(code, body.message, null, { status: body.statusCode, ...(body.field && { field: body.field }) }));
    });
    app.removeContentTypeParser("application/json");
    app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

    app.post("/mcp", { schema: POST_SCHEMA, config: { swaggerTransform: documentedBody(JSON_RPC_MESSAGE) } }, async (request, reply) => {
      const text = utf8Text(request.body as Buffer);
      if (text === undefined) return reply.code(400).send(jsonRpcError(ErrorCode.ParseError, "the body is not valid UTF-8"));
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return reply.code(400).send(jsonRpcError(ErrorCode.ParseError, "the body is not JSON"));
      }
      // JSON-RPC 2.0: an empty batch is an invalid request (the SDK would answer 202 with nothing).
      if (Array.isArray(message) && message.length === 0) return reply.code(400).send(jsonRpcError(ErrorCode.InvalidRequest, "an empty batch"));
      const unbounded = unboundedParams(message);
      // Answered like the SDK answers a request's error (200), so clients read it as the request's outcome.
      if (unbounded) return reply.code(unbounded.id === null ? 400 : 200).send(unbounded);
      const invalid = invalidParams(message);
      if (invalid) return reply.code(200).send(invalid);
      // A refusal to retry sets Retry-After on the answer the transport writes.
      const retryLater = () => reply.raw.setHeader("retry-after", String(RETRY_AFTER_SECONDS));
      // Only `initialize` answers with instructions, which name the meta-tools only when tools/list shows them.
      const initializing = (message as { method?: unknown } | null)?.method === "initialize";
      const instructions = initializing ? doorInstructions((await routable(deps, request.tenant)).length, options.listAllMaxTools) : undefined;
      const server = serverFor(deps, request.tenant, options, limits, links, retryLater, instructions);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      acceptJsonAnswers(request.raw);
      reply.hijack();
      reply.raw.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, message);
    });

    // Stateless: no stream to resume (GET) and no session to end (DELETE).
    const notAllowed = async (_request: unknown, reply: FastifyReply) =>
      reply.code(405).header("allow", "POST").send(jsonRpcError(ErrorCode.InvalidRequest, "this server is stateless: POST only"));
    app.get("/mcp", { schema: { hide: true } }, notAllowed);
    app.delete("/mcp", { schema: { hide: true } }, notAllowed);
  };
}

function jsonRpcError(code: number, message: string, id: string | number | null = null, data?: object) {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data && { data }) } };
}

/**
 * Invalid params, naming the field, for a message (or a batch's first one) whose params break
 * the bounds every door keeps (bounded-json.ts): arguments or `_meta` nested too deep, a lone surrogate.
 */
function unboundedParams(message: unknown): ReturnType<typeof jsonRpcError> | undefined {
  for (const one of Array.isArray(message) ? message : [message]) {
    if (one === null || typeof one !== "object") continue;
    const { params, id } = one as { params?: unknown; id?: unknown };
    const problem = structureProblem(params, "params");
    if (problem) return jsonRpcError(ErrorCode.InvalidParams, problem.message, typeof id === "string" || typeof id === "number" ? id : null, { field: problem.field });
  }
  return undefined;
}

/** The requests whose params this server checks before the SDK does (which answers a bad one as an internal error). */
const PARAMS_SCHEMAS = new Map<string, typeof CallToolRequestSchema | typeof ListToolsRequestSchema>([
  ["tools/call", CallToolRequestSchema],
  ["tools/list", ListToolsRequestSchema],
]);

/** A JSON-RPC invalid-params error naming the field at fault, for a request of ours whose params are malformed. */
function invalidParams(message: unknown): ReturnType<typeof jsonRpcError> | undefined {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  const schema = typeof method === "string" ? PARAMS_SCHEMAS.get(method) : undefined;
  if (!schema || (typeof id !== "string" && typeof id !== "number")) return undefined;
  const checked = schema.safeParse(message);
  if (checked.success) return undefined;
  const issue = checked.error.issues[0];
  return jsonRpcError(ErrorCode.InvalidParams, `${issue?.path.join(".") || "params"}: ${issue?.message ?? "invalid"}`, id);
}

/** The tenant's catalog as the door shows it: quarantined tools are never listed. */
async function routable(deps: GatewayDeps, tenant: string): Promise<ToolDefinition[]> {
  return (await deps.listTools(tenant)).filter((t) => !t.quarantined);
}

/** An MCP server over the tenant's catalog. */
function serverFor(
  deps: GatewayDeps,
  tenant: string,
  options: McpDoorOptions,
  limits: Pick<GatewayLimits, "maxMessageChars">,
  links: ConsoleLinks,
  retryLater: () => void,
  instructions: string | undefined,
): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false }, logging: {} }, ...(instructions && { instructions }) });
  const catalog = () => routable(deps, tenant);
  const listsAll = (tools: readonly ToolDefinition[]) => tools.length <= options.listAllMaxTools;

  const session = { topK: options.searchDefaultK, keep: options.sessionMaxTools };

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const tools = await catalog();
    const names = new ExposedNames(tools);
    if (listsAll(tools)) return { tools: tools.map((t) => mcpTool(t, names)) };
    const caller = callerOf(request.params?._meta, extra.requestInfo?.headers, options.userDomains);
    const exposed = await exposedTools(deps, tenant, caller, tools, session);
    return { tools: [...tools.filter((t) => t.core), ...exposed].map((t) => mcpTool(t, names)).concat(metaTools(tools)) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const traceparent = request.params._meta?.["traceparent"];
    const ctx = typeof traceparent === "string" ? propagation.extract(context.active(), { traceparent }) : context.active();
    const caller = callerOf(request.params._meta, extra.requestInfo?.headers, options.userDomains);
    return context.with(ctx, async () => {
      const tools = await catalog();
      const names = new ExposedNames(tools);
      const args = (request.params.arguments ?? {}) as JsonObject;
      // What a session found or called is listed to it from now on.
      const call = async (tool: string, callArgs: JsonObject) => {
        const result = await callTool(deps, tenant, tool, callArgs, links);
        const ran = (result._meta as { tool?: string } | undefined)?.tool;
        if (ran) await remember(deps, tenant, caller, [ran], session.keep);
        return result;
      };
      try {
        switch (request.params.name) {
          case SEARCH_TOOLS: {
            const { result, found } = await searchTools(deps, tenant, names, args, options.searchDefaultK, limits.maxMessageChars);
            await remember(deps, tenant, caller, found, session.keep);
            return result;
          }
          case CALL_TOOL:
            return await call(names.catalog(stringArg(args, "name")), objectArg(args, "arguments"));
          case CALL_POOL: {
            const pool = stringArg(args, "pool");
            const action = stringArg(args, "action");
            const tool = poolTool(tools, pool, action);
            if (!tool) throw new McpError(ErrorCode.InvalidParams, `no action ${action} in pool ${pool}; the pools and their actions are in the description of ${CALL_POOL}`);
            return await call(tool.name, objectArg(args, "params"));
          }
          default:
            return await call(names.catalog(request.params.name), args);
        }
      } catch (error) {
        throw asMcpError(error, retryLater);
      }
    });
  });
  return server;
}

async function searchTools(deps: GatewayDeps, tenant: string, names: ExposedNames, args: JsonObject, defaultK: number, maxChars: number) {
  const query = stringArg(args, "query");
  // The same limit as a message on every door (MAX_MESSAGE_CHARS).
  const tooLong = textOverLimit(query, maxChars, "arguments/query");
  if (tooLong) throw new McpError(ErrorCode.InvalidParams, tooLong.message, { field: tooLong.field });
  const k = args["k"] === undefined ? defaultK : args["k"];
  if (typeof k !== "number" || !Number.isInteger(k) || k < 1 || k > 50) throw new McpError(ErrorCode.InvalidParams, "k must be a whole number from 1 to 50");
  const { candidates } = await deps.route(tenant, create(RouteRequestSchema, { message: query, topK: k }));
  const found = candidates.flatMap((c) => c.tool ?? []);
  const tools = candidates
    .filter((c) => c.tool)
    .map((c) => {
      const listed = mcpTool(c.tool!, names);
      return { name: listed.name, description: listed.description ?? "", inputSchema: listed.inputSchema, score: Math.round(c.score * 1000) / 1000 };
    });
  const result: CallToolResult = { content: [{ type: "text", text: JSON.stringify(tools) }], structuredContent: { tools } };
  return { result, found: found.filter((t) => !t.core).map((t) => t.name) };
}

async function callTool(deps: GatewayDeps, tenant: string, tool: string, args: JsonObject, links: ConsoleLinks): Promise<CallToolResult> {
  const { packet, finished } = await deps.submitCall(tenant, create(SubmitCallRequestSchema, { tool, arguments: args, wait: true }));
  return callResult(packet, finished, links);
}

/** The `_meta` key of a held call's result: the approval the console asks a person for. */
export const APPROVAL_META = "switchyard/approval";

/** A packet's outcome as a tool result: the tool's output, or what stopped it and what to do. */
export function callResult(packet: Packet, finished: boolean, links: ConsoleLinks): CallToolResult {
  const packetId = packet.header?.packetId ?? "";
  const routing = packet.toolRouting;
  const meta = { packetId, state: Packet_State[packet.state], tool: routing?.selectedTool?.toolName ?? "" };
  if (!finished) {
    return text(`still running: packet ${packetId}; GET /v1/packets/${packetId} for its outcome`, false, meta);
  }
  if (packet.state === Packet_State.AWAITING_APPROVAL) {
    // Not an error: the call is held, and runs once a person approves it in the console.
    const approval = routing?.approval;
    const url = links.approvalUrl(packet);
    const expiresAt = approval?.expiresAt ? timestampDate(approval.expiresAt).toISOString() : "";
    const result = text(
      `Nothing ran yet: ${meta.tool} waits for a person's approval. Approve or deny it at ${url} ` +
        `(or POST /v1/packets/${packetId}/approve with {"callHash":"${approval?.callHash ?? ""}"}). ${packet.stateReason}`,
      false,
      meta,
    );
    const callHash = approval?.callHash ?? "";
    return { ...result, _meta: { ...meta, callHash, [APPROVAL_META]: { packetId, callHash, url, expiresAt } } };
  }
  const result = routing?.executionResult;
  if (routing?.executionStatus === ToolRoutingState_ExecutionStatus.EXECUTED && result) {
    // The tool's structured result (the executor keeps it over the text) goes on as structured content, and as its JSON text.
    const output = latestToolOutput(packet) ?? null;
    const structured = output !== null && typeof output === "object" && !Array.isArray(output) ? { structuredContent: output } : {};
    const shown = typeof output === "string" ? output : JSON.stringify(output);
    return { content: [{ type: "text", text: shown }], ...structured, isError: !result.success, _meta: meta };
  }
  return text(packet.stateReason || `ended ${meta.state}`, true, meta);
}

function text(message: string, isError: boolean, meta: Record<string, string>): CallToolResult {
  return { content: [{ type: "text", text: message }], isError, _meta: meta };
}

function stringArg(args: JsonObject, name: string): string {
  const value = args[name];
  if (typeof value !== "string" || value.trim() === "") throw new McpError(ErrorCode.InvalidParams, `${name} must be a non-empty string`);
  return value;
}

function objectArg(args: JsonObject, name: string): JsonObject {
  const value = args[name];
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new McpError(ErrorCode.InvalidParams, `${name} must be an object`);
  return value;
}

/**
 * The gateway's refusals as JSON-RPC errors, each with the HTTP status it has on the other
 * doors: a bad or unknown name is the caller's (invalid params); a limit or the fleet away
 * asks to try again (Retry-After); anything else is ours.
 */
function asMcpError(error: unknown, retryLater: () => void): unknown {
  if (!(error instanceof GatewayError)) return error;
  const status = ERROR_STATUS[error.code].http;
  const data = { status, ...(error.field && { field: error.field }) };
  if (asksToRetry(status)) {
    retryLater();
    return new McpError(TRY_AGAIN_LATER, error.message, { ...data, retryAfter: RETRY_AFTER_SECONDS });
  }
  const code = error.code === "not_found" || error.code === "invalid" ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, error.message, data);
}

/**
 * A JSON-RPC error of this server's own (-32000 to -32099 are the implementation's): a limit
 * was reached (429) or the fleet is away (503); the request may be sent again after Retry-After.
 */
export const TRY_AGAIN_LATER = -32029;
