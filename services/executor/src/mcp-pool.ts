import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { resolvedServerUrlProblem, serverUrlPolicy } from "@switchyard/config";
import type { ServerUrlPolicy } from "@switchyard/config";
import { givenAnnotations, LOCAL_TENANT, ToolDefinition_SideEffect, ToolDefinitionSchema } from "@switchyard/packet";
import type { ToolDefinition } from "@switchyard/packet";
import { ClientAttr, markFailed, processMetrics, SWITCHYARD_VERSION, withClientSpan } from "@switchyard/telemetry";
import type { ServerConfig, SideEffectName, ToolOverrides } from "./servers-config.js";
import { diffServers } from "./servers-diff.js";

/** The part of a pino logger the pool uses; the pool logs nothing unless given one. */
export interface PoolLogger {
  debug(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface McpPoolOptions {
  logger?: PoolLogger;
  /** Limit for starting a server and for its tools/list requests. @default 30000 */
  connectTimeoutMs?: number;
  /** Called after a server announced a new tool list (`notifications/tools/list_changed`) and the pool re-read it. */
  onToolsChanged?: (server: string) => void;
  /** SERVER_URL_ALLOW, parsed: where servers registered at run time may be reached beyond public https hosts. @default nothing let through */
  serverUrls?: ServerUrlPolicy;
}

export interface CallToolOptions {
  /** Used for servers that set no `timeoutMs` of their own. @default 30000 */
  timeoutMs?: number;
  /** A limit no server's own `timeoutMs` exceeds: the time the packet has left. */
  maxTimeoutMs?: number;
}

/** A tool call's outcome, in the shape of the packet's ToolExecutionResult (seed 000 §3.1). */
export interface ToolCallResult {
  success: boolean;
  /** structuredContent when the tool returned it, else its text (blocks joined by newlines), else its content blocks. */
  output: JsonValue;
  error?: string;
  /** Why it failed, when it did; see isRetryableFailure. */
  failure?: McpFailure;
  executionTimeMs: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** The `tool` label of every call to a tenant-private server's tools (`tenants:`). */
export const PRIVATE_TOOL_LABEL = "(private)";
// Lines of a server's stderr kept to explain why it failed to start or went away.
const STDERR_TAIL_LINES = 20;
// The executor's own node_modules/.bin (from src/ or dist/ alike), where the MCP servers it depends on are installed.
const PACKAGE_BIN = fileURLToPath(new URL("../node_modules/.bin/", import.meta.url));

const SIDE_EFFECTS: Record<SideEffectName, ToolDefinition_SideEffect> = {
  read: ToolDefinition_SideEffect.READ,
  write: ToolDefinition_SideEffect.WRITE,
  execute: ToolDefinition_SideEffect.EXECUTE,
};

/**
 * Why a call failed, as `error.type` and the errors metric's `kind`: the tool said so
 * (`isError`), no answer in time, the server had gone, a JSON-RPC error, or anything else
 * on the way (an HTTP server unreachable).
 */
export type McpFailure = "tool_error" | "timeout" | "server_lost" | "protocol_error" | "transport_error";

/**
 * Failures where the tool gave no answer of its own: it hung, its server died (both get
 * the server restarted) or could not be reached. Another try may pass. A tool's own error
 * (`isError`) or a JSON-RPC error is its answer, handed to the model as it is.
 */
export function isRetryableFailure(failure: McpFailure | undefined): boolean {
  return failure === "timeout" || failure === "server_lost" || failure === "transport_error";
}

/** A server apply() started, with its number of tools. */
export interface StartedServer {
  name: string;
  tools: number;
}

/** What apply() did, server by server. */
export interface PoolChanges {
  added: StartedServer[];
  /** Started afresh with their new settings. */
  changed: StartedServer[];
  removed: string[];
  /** Servers that could not be started: an added one is left out, a changed one keeps running with its old settings. */
  failed: { name: string; change: "added" | "changed"; error: string }[];
}

type CallOutcome = { success: true; output: JsonValue } | { success: false; failure: McpFailure; error: string };

interface Connection {
  config: ServerConfig;
  client: Client;
  tools: ToolDefinition[];
  stderrTail: string[];
  /** Set when the server went away on its own (or hung); calls then fail fast instead of hanging, until it is restarted. */
  lost: boolean;
  /** The restart under way, if any; calls wait for it. */
  restarting?: Promise<void>;
  /** Calls under way; a connection taken out of the pool is closed only once they are done. */
  calls: Set<Promise<ToolCallResult>>;
  /** Taken out of the pool (its server removed or changed in the config): never restarted, closed once idle. */
  retired: boolean;
  transport?: StdioClientTransport | StreamableHTTPClientTransport;
}

/**
 * One MCP client per configured server, and the catalog of their tools under
 * `<server>.<tool>` names. Build it with `McpPool.connect(config.servers)`;
 * `apply(servers)` follows a changed config.
 */
export class McpPool {
  private connections: Connection[] = [];
  private readonly byName = new Map<string, { connection: Connection; tool: string }>();
  /** Connections taken out of the pool that are not closed yet. */
  private readonly retiring = new Set<Connection>();
  private closing = false;
  private applying: Promise<unknown> = Promise.resolve();

  private constructor(private readonly options: McpPoolOptions) {}

  /**
   * Starts (stdio) or reaches (HTTP) every server and reads its tool list.
   * Fails if any server cannot be used, naming it; the others are closed again.
   */
  static async connect(servers: ServerConfig[], options: McpPoolOptions = {}): Promise<McpPool> {
    const pool = new McpPool(options);
    const { failed } = await pool.apply(servers);
    if (failed.length > 0) {
      await pool.close();
      throw new Error(`cannot connect MCP servers: ${failed.map(({ name, error }) => `${name}: ${error}`).join("; ")}`);
    }
    return pool;
  }

  /**
   * Makes the pool serve `servers` (the config as it is now): starts the added ones,
   * starts a changed one afresh with its new settings, takes the removed ones out, and
   * leaves a server whose settings are all equal alone. A server taken out (removed, or
   * the old one of a changed server) gets no new calls and is closed once its calls in
   * flight are done. A server that cannot start is in `failed`: an added one is left out,
   * a changed one keeps running as it was.
   */
  apply(servers: ServerConfig[]): Promise<PoolChanges> {
    // One at a time, each compared with what the one before left.
    const applied = this.applying.then(() => this.applyNow(servers));
    this.applying = applied.catch(() => undefined);
    return applied;
  }

  private async applyNow(servers: ServerConfig[]): Promise<PoolChanges> {
    const { added, changed, removed } = diffServers(this.servers(), servers);
    const starting = [...added, ...changed];
    const started = await Promise.allSettled(starting.map((config) => this.open(config)));
    const changes: PoolChanges = { added: [], changed: [], removed: removed.map((server) => server.name), failed: [] };
    const byServer = new Map(this.connections.map((connection) => [connection.config.name, connection]));
    started.forEach((result, index) => {
      const { name } = starting[index]!;
      const change = index < added.length ? "added" : "changed";
      if (result.status === "rejected") {
        changes.failed.push({ name, change, error: (result.reason as Error).message });
        return;
      }
      byServer.set(name, result.value);
      changes[change].push({ name, tools: result.value.tools.length });
    });
    const previous = this.connections;
    this.connections = servers.flatMap((config) => byServer.get(config.name) ?? []);
    this.index();
    for (const connection of previous) {
      if (!this.connections.includes(connection)) this.retire(connection);
    }
    return changes;
  }

  /** The settings of the servers in use, in config order. */
  servers(): ServerConfig[] {
    return this.connections.map((connection) => connection.config);
  }

  /** Every tool of every server, excluded tools left out, in config order. */
  listTools(): ToolDefinition[] {
    return this.connections.flatMap((connection) => connection.tools);
  }

  /**
   * Calls a tool by catalog name. Never throws: an unknown tool, a tool error
   * (`isError`), a protocol error, a lost server or a timeout all come back as
   * `success: false` with the reason in `error`. Each call to a server is a CLIENT
   * span `tools/call <tool>` (no arguments or output on it) and is measured:
   * `switchyard_mcp_call_duration_seconds`, `switchyard_mcp_call_errors_total`.
   */
  async callTool(catalogName: string, args: JsonObject, options: CallToolOptions = {}): Promise<ToolCallResult> {
    const entry = this.byName.get(catalogName);
    // No server is asked: neither a span nor a metric (the name may be anything a packet carried).
    if (!entry) return { success: false, output: null, error: `unknown tool ${catalogName}`, failure: "protocol_error", executionTimeMs: 0 };
    const { connection, tool } = entry;
    const server = connection.config.name;
    const attributes = {
      [ClientAttr.McpMethodName]: "tools/call",
      [ClientAttr.GenAiOperationName]: "execute_tool",
      [ClientAttr.GenAiToolName]: tool,
      [ClientAttr.ToolServer]: server,
      [ClientAttr.NetworkTransport]: connection.config.transport === "http" ? "tcp" : "pipe",
    };
    const call = withClientSpan(`tools/call ${tool}`, attributes, async (span): Promise<ToolCallResult> => {
      const started = performance.now();
      const outcome = await this.invoke(connection, tool, catalogName, args, options);
      const seconds = (performance.now() - started) / 1000;
      // /metrics is open: a tenant-private server's tool names stay that tenant's.
      const toolLabel = connection.config.tenants.length > 0 ? PRIVATE_TOOL_LABEL : tool;
      processMetrics().mcpCall(server, toolLabel, seconds, outcome.success ? undefined : outcome.failure);
      // The kind only: a tool's error text may quote its arguments or output.
      if (!outcome.success) markFailed(span, outcome.failure);
      const executionTimeMs = Math.round(seconds * 1000);
      return outcome.success
        ? { success: true, output: outcome.output, executionTimeMs }
        : { success: false, output: null, error: outcome.error, failure: outcome.failure, executionTimeMs };
    });
    connection.calls.add(call);
    return call.finally(() => connection.calls.delete(call));
  }

  private async invoke(connection: Connection, tool: string, catalogName: string, args: JsonObject, options: CallToolOptions): Promise<CallOutcome> {
    if (connection.restarting) await connection.restarting;
    if (connection.lost) {
      return { success: false, failure: "server_lost", error: `MCP server ${connection.config.name} is not running${stderrNote(connection)}` };
    }
    const timeoutMs = Math.min(connection.config.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.maxTimeoutMs ?? Infinity);
    try {
      const result = await connection.client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs });
      // Servers on protocol 2024-10-07 and older answer { toolResult }.
      if ("toolResult" in result) return { success: true, output: toJsonValue(result.toolResult) };
      const callResult = result as CallToolResult;
      if (callResult.isError) return { success: false, failure: "tool_error", error: errorText(callResult) };
      return { success: true, output: outputOf(callResult) };
    } catch (error) {
      if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout)) {
        // A server that does not answer may be hung for good: start it afresh for the next call.
        this.restart(connection, "a call timed out", { hung: true });
        return { success: false, failure: "timeout", error: `${catalogName} timed out after ${timeoutMs} ms` };
      }
      const failure: McpFailure = connection.lost ? "server_lost" : error instanceof McpError ? "protocol_error" : "transport_error";
      return { success: false, failure, error: `${catalogName}: ${(error as Error).message}${connection.lost ? stderrNote(connection) : ""}` };
    }
  }

  /** Closes every client, those taken out and still finishing calls included; stdio servers are stopped. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.connections, ...this.retiring].map((connection) => connection.client.close()));
  }

  /** A new connection to the server of `config`, started, with its tools read; not in the pool yet. */
  private async open(config: ServerConfig): Promise<Connection> {
    const connection: Connection = {
      config,
      client: undefined as unknown as Client,
      tools: [],
      stderrTail: [],
      lost: false,
      calls: new Set(),
      retired: false,
    };
    await this.start(connection);
    if (this.closing) {
      // Closed while this one started: nothing else would ever stop it.
      await connection.client.close().catch(() => undefined);
      throw new Error("the pool was closed");
    }
    return connection;
  }

  /** Takes a connection out of use (apply() has already dropped it from the index) and closes it once its calls are done. */
  private retire(connection: Connection): void {
    connection.retired = true;
    this.retiring.add(connection);
    void (async () => {
      await connection.restarting;
      await Promise.allSettled(connection.calls);
      await connection.client.close().catch(() => undefined);
      this.retiring.delete(connection);
    })();
  }

  /**
   * Stops a server that went away or hangs and starts it again (stdio: a new process; HTTP:
   * a new session), once at a time; calls made meanwhile wait for it. A call in flight on
   * the old server has already failed (server_lost or timeout).
   */
  private restart(connection: Connection, why: string, { hung = false } = {}): void {
    if (this.closing || connection.retired || connection.restarting) return;
    connection.lost = true;
    // A hung stdio server gets no graceful close (the SDK waits seconds for it): its late
    // answer would be a side effect that nobody is told about, after its call was reported failed.
    const pid = hung && connection.transport instanceof StdioClientTransport ? connection.transport.pid : null;
    if (pid) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    const logger = this.options.logger;
    logger?.warn({ server: connection.config.name, why }, "restarting MCP server");
    connection.restarting = (async () => {
      await connection.client.close().catch(() => undefined);
      try {
        await this.start(connection);
        connection.lost = false;
        this.index();
        logger?.warn({ server: connection.config.name }, "MCP server restarted");
      } catch (error) {
        logger?.warn({ server: connection.config.name, err: error }, "MCP server could not be restarted; the next call tries again");
      }
    })().finally(() => {
      connection.restarting = undefined;
    });
  }

  /** Starts (stdio) or reaches (HTTP) the server of `connection` with a new client, and reads its tools. */
  private async start(connection: Connection): Promise<void> {
    const config = connection.config;
    const timeout = this.options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const client = new Client(
      { name: "switchyard-executor", version: SWITCHYARD_VERSION },
      {
        // No roots capability: a filesystem server then serves exactly the directories in its args.
        capabilities: {},
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 300, onChanged: () => void this.refresh(connection) },
        },
      },
    );
    connection.client = client;
    const logger = this.options.logger;
    client.onerror = (error) => logger?.warn({ server: config.name, err: error }, "MCP transport error");
    let opened = false;
    client.onclose = () => {
      // A server that failed to start is reported by start(); this is for one that stops later (not an old, replaced client).
      if (this.closing || connection.retired || !opened || connection.client !== client) return;
      logger?.warn({ server: config.name, stderr: connection.stderrTail }, "MCP server went away");
      this.restart(connection, "the server went away");
    };

    try {
      connection.transport = this.transportFor(connection);
      await client.connect(connection.transport, { timeout });
      await this.refresh(connection, true);
    } catch (error) {
      await client.close().catch(() => undefined);
      const message = error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout)
        ? `no answer within ${timeout} ms`
        : (error as Error).message;
      throw new Error(`${message}${stderrNote(connection)}`, { cause: error });
    }
    opened = true;
  }

  private transportFor(connection: Connection): StdioClientTransport | StreamableHTTPClientTransport {
    const config = connection.config;
    if (config.transport === "http") {
      const vetted = config.registeredBy === undefined ? {} : { fetch: vettedFetch(this.options.serverUrls ?? serverUrlPolicy(""), config.registeredBy) };
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, ...vetted });
    }
    const env = { ...getDefaultEnvironment(), ...config.env };
    const transport = new StdioClientTransport({
      command: resolveCommand(config.command, env["PATH"]),
      args: config.args,
      env,
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      // Piped, not inherited: the lines go to the logger and the last ones explain a failed start.
      stderr: "pipe",
    });
    let partial = "";
    // Always read the pipe, with or without a logger, or a chatty server would block on a full buffer.
    transport.stderr?.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines.filter((text) => text.trim() !== "")) {
        connection.stderrTail.push(line);
        if (connection.stderrTail.length > STDERR_TAIL_LINES) connection.stderrTail.shift();
        this.options.logger?.debug({ server: config.name, stderr: line }, "MCP server stderr");
      }
    });
    return transport;
  }

  /** Re-reads a server's tools (all pages); on first load errors propagate, later ones are logged. */
  private async refresh(connection: Connection, initial = false): Promise<void> {
    const { config, client } = connection;
    try {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          timeout: this.options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      connection.tools = toDefinitions(config, tools, this.options.logger);
    } catch (error) {
      if (initial) throw error;
      this.options.logger?.warn({ server: config.name, err: error }, "cannot re-read the tool list; keeping the old one");
      return;
    }
    if (!initial) {
      this.index();
      this.options.onToolsChanged?.(config.name);
    }
  }

  private index(): void {
    this.byName.clear();
    for (const connection of this.connections) {
      for (const tool of connection.tools) this.byName.set(tool.name, { connection, tool: tool.serverToolName });
    }
  }
}

/**
 * fetch for a server registered at run time: before each request its URL, and every address its
 * host resolves to now, are checked (server-url.ts), so a name that comes to resolve to a private
 * or metadata address is refused without a byte sent to it. Local mode's user may reach loopback.
 */
function vettedFetch(policy: ServerUrlPolicy, registeredBy: string): FetchLike {
  const context = { localMode: registeredBy === LOCAL_TENANT };
  return async (url, init) => {
    const problem = await resolvedServerUrlProblem(String(url), policy, context);
    if (problem !== undefined) throw new Error(`not connecting to a registered server whose URL ${problem}`);
    return fetch(url, init);
  };
}

function toDefinitions(config: ServerConfig, tools: Tool[], logger: PoolLogger | undefined): ToolDefinition[] {
  const known = new Set(tools.map((tool) => tool.name));
  const named = [
    ...config.exclude.map((tool) => ["exclude", tool] as const),
    ...config.core.map((tool) => ["core", tool] as const),
    ...Object.keys(config.tools).map((tool) => ["tools", tool] as const),
  ];
  for (const [setting, tool] of named) {
    // Most likely a typo in switchyard.yaml, or a tool the server dropped.
    if (!known.has(tool)) logger?.warn({ server: config.name, setting, tool }, "switchyard.yaml names a tool the server does not have");
  }
  return tools
    .filter((tool) => !config.exclude.includes(tool.name))
    .map((tool) =>
      create(ToolDefinitionSchema, {
        name: `${config.name}.${tool.name}`,
        description: tool.description ?? tool.title ?? tool.annotations?.title ?? "",
        inputSchema: toJsonValue(tool.inputSchema) as JsonObject,
        sideEffect: sideEffectOf(tool, config.tools[tool.name]),
        server: config.name,
        serverToolName: tool.name,
        core: config.core.includes(tool.name),
        examples: [],
        pool: config.tools[tool.name]?.pool ?? config.pool,
        domains: config.tools[tool.name]?.domains ?? config.domains,
        tenants: config.tenants,
        ...(tool.annotations ? { annotations: givenAnnotations(tool.annotations) } : {}),
      }),
    );
}

/**
 * A tool's side-effect class, which the reviewer's policy acts on. The config
 * is the operator's word and wins; a server's annotations are only hints, read
 * strictly. First matching row:
 *
 * | config (`tools.<tool>:`)             | annotations                                  | class   |
 * | ------------------------------------ | -------------------------------------------- | ------- |
 * | `side_effect: X` (or `sideEffects`)  | any                                          | X       |
 * | `requires_approval: false`           | any                                          | READ    |
 * | `requires_approval: true`            | as below, but READ becomes WRITE             | ≥ WRITE |
 * | nothing                              | `readOnlyHint: true`, not `destructiveHint`  | READ    |
 * | nothing                              | `destructiveHint` and `openWorldHint` true   | EXECUTE |
 * | nothing                              | anything else, none at all included          | WRITE   |
 *
 * `readOnlyHint` together with `destructiveHint: true` contradicts itself, so
 * the read-only claim is not believed. MCP's defaults for a tool without hints
 * are destructive and open-world, but only explicit hints make EXECUTE: an
 * unannotated tool is WRITE, so plain servers stay usable once writes are allowed.
 */
export function sideEffectOf(
  tool: Pick<Tool, "annotations">,
  config: Pick<ToolOverrides, "sideEffect" | "requiresApproval"> = {},
): ToolDefinition_SideEffect {
  if (config.sideEffect !== undefined) return SIDE_EFFECTS[config.sideEffect];
  if (config.requiresApproval === false) return ToolDefinition_SideEffect.READ;
  const hinted = sideEffectOfHints(tool.annotations ?? {});
  return config.requiresApproval === true && hinted === ToolDefinition_SideEffect.READ ? ToolDefinition_SideEffect.WRITE : hinted;
}

function sideEffectOfHints(hints: NonNullable<Tool["annotations"]>): ToolDefinition_SideEffect {
  const destructive = hints.destructiveHint === true;
  if (hints.readOnlyHint === true && !destructive) return ToolDefinition_SideEffect.READ;
  if (destructive && hints.openWorldHint === true) return ToolDefinition_SideEffect.EXECUTE;
  return ToolDefinition_SideEffect.WRITE;
}

function outputOf(result: CallToolResult): JsonValue {
  if (result.structuredContent !== undefined) return toJsonValue(result.structuredContent);
  const content = result.content ?? [];
  if (content.length > 0 && content.every((block) => block.type === "text")) {
    return content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  }
  return toJsonValue(content);
}

function errorText(result: CallToolResult): string {
  const texts = (result.content ?? []).flatMap((block) => (block.type === "text" ? [block.text] : []));
  return texts.length > 0 ? texts.join("\n") : JSON.stringify(result.content ?? []);
}

/** What arrived as JSON, as a JsonValue (undefined members dropped, as JSON would). */
function toJsonValue(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}

function stderrNote(connection: Connection): string {
  return connection.stderrTail.length > 0 ? ` (stderr: ${connection.stderrTail.join(" | ")})` : "";
}

/**
 * A bare command is looked up in PATH, then in the executor's own
 * node_modules/.bin, so the MCP servers installed with it work without a global
 * install. A command with a slash is used as it is; an unknown one is left for
 * spawn to report.
 */
export function resolveCommand(command: string, path: string | undefined): string {
  if (command.includes("/")) return command;
  const folders = [...(path ?? "").split(delimiter).filter((folder) => folder !== ""), PACKAGE_BIN];
  for (const folder of folders) {
    const candidate = join(folder, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return command;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
