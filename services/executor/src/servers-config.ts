import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { Ajv } from "ajv";
import type { ErrorObject } from "ajv";
import { SERVER_NAME_PATTERN, TENANT_PATTERN } from "@switchyard/packet";
import { parseDocument } from "yaml";

/** How a tool changes the world, as the config declares it; wins over the server's MCP annotations. */
export type SideEffectName = "read" | "write" | "execute";

interface ServerCommon {
  /** The key under `servers:`; the first half of every catalog name (`<server>.<tool>`). */
  name: string;
  /** Per-call limit for this server's tools; when unset the caller's default applies. */
  timeoutMs?: number;
  /** Tools left out of the catalog (and never called). */
  exclude: string[];
  /** Tools always offered to the selector, whatever the query. */
  core: string[];
  /** The pool (seed 004) of the server's tools, unless a tool sets its own; the server's name when unset. */
  pool: string;
  /** Subject domains (seed 003) of the server's tools, unless a tool sets its own. */
  domains: string[];
  /** Per-tool settings that override the server's; a side effect from `sideEffects:` is folded in here. */
  tools: Record<string, ToolOverrides>;
  /** The tenants that may see and call the server's tools; empty = every tenant. */
  tenants: string[];
  /**
   * How its tools are first taken into the catalog: `first-use` pins them as first served;
   * `review` quarantines each until approved (tool-pin.ts).
   */
  trust: ServerTrust;
}

export type ServerTrust = "first-use" | "review";

/** What the config says about one tool (`tools.<tool>:`, plus `sideEffects.<tool>`). */
export interface ToolOverrides {
  pool?: string;
  domains?: string[];
  /** `side_effect:` or the server's `sideEffects.<tool>`; the tool's class, whatever its annotations say. */
  sideEffect?: SideEffectName;
  /** `requires_approval:` (the seed's static tool file): true makes the tool at least WRITE, false makes it READ. */
  requiresApproval?: boolean;
}

/** A server the executor starts as a child process and talks to over stdin/stdout. */
export interface StdioServerConfig extends ServerCommon {
  transport: "stdio";
  /** A bare name (looked up when connecting), or an absolute path. */
  command: string;
  args: string[];
  /** Absolute; unset means the executor's own working directory. */
  cwd?: string;
  env: Record<string, string>;
}

/** A server already running somewhere, reached over MCP streamable HTTP. */
export interface HttpServerConfig extends ServerCommon {
  transport: "http";
  url: string;
  headers: Record<string, string>;
  /**
   * The tenant that registered it at run time (POST /v1/servers); absent for a server of the
   * file, whose URL is the operator's own. A registered server's URL and addresses are checked
   * against SERVER_URL_ALLOW before every request (mcp-pool.ts).
   */
  registeredBy?: string;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

export interface ServersConfig {
  /** The absolute path of the file the servers came from. */
  file: string;
  servers: ServerConfig[];
}

/** A config file that cannot be used; `problems` each start with the path in the file they are about. */
export class ServersConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(problems.length === 1 ? `${file}: ${problems[0]}` : `${file}:\n  ${problems.join("\n  ")}`);
    this.name = "ServersConfigError";
  }
}

const toolNames = { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true };
const stringMap = { type: "object", additionalProperties: { type: "string" } };
const pool = { type: "string", minLength: 1 };
const domains = { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true };
const sideEffect = { type: "string", enum: ["read", "write", "execute"] };
// The gateway's tenant names (what API keys map to); an empty list would mean "shared", so leave the key out instead.
const tenants = { type: "array", minItems: 1, items: { type: "string", pattern: TENANT_PATTERN.source }, uniqueItems: true };

const fileSchema = {
  type: "object",
  additionalProperties: false,
  required: ["servers"],
  properties: {
    servers: {
      type: "object",
      propertyNames: { pattern: SERVER_NAME_PATTERN.source },
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: {
          command: { type: "string", minLength: 1 },
          args: { type: "array", items: { type: "string" } },
          cwd: { type: "string", minLength: 1 },
          env: stringMap,
          url: { type: "string", minLength: 1 },
          headers: stringMap,
          timeoutMs: { type: "integer", minimum: 1 },
          exclude: toolNames,
          core: toolNames,
          sideEffects: { type: "object", additionalProperties: sideEffect },
          pool,
          domains,
          tenants,
          trust: { type: "string", enum: ["first-use", "review"] },
          tools: {
            type: "object",
            additionalProperties: {
              type: "object",
              additionalProperties: false,
              properties: { pool, domains, side_effect: sideEffect, requires_approval: { type: "boolean" } },
            },
          },
        },
      },
    },
  },
};

const validateFile = new Ajv({ allErrors: true, strict: true }).compile(fileSchema);

interface RawServer {
  command?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  exclude?: string[];
  core?: string[];
  sideEffects?: Record<string, SideEffectName>;
  pool?: string;
  domains?: string[];
  tenants?: string[];
  trust?: ServerTrust;
  tools?: Record<string, RawTool>;
}

/** `tools.<tool>:` as written in the file. */
interface RawTool {
  pool?: string;
  domains?: string[];
  side_effect?: SideEffectName;
  requires_approval?: boolean;
}

/**
 * Reads the MCP servers file: YAML, `${VAR}` and `${VAR:-default}` taken from
 * `env` (the loader never reads process.env itself), relative paths resolved
 * against the file's folder, validated against a JSON schema. Throws a
 * ServersConfigError whose problems name the path in the file, e.g.
 * `servers.filesystem.command: must be string`.
 */
export async function loadServersConfig(path: string, env: Record<string, string | undefined>): Promise<ServersConfig> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ServersConfigError(file, [`cannot read the file (${(error as Error).message})`]);
  }
  return parseServersConfig(text, file, env);
}

/** loadServersConfig for text already in memory; `file` places relative paths and names the file in errors. */
export function parseServersConfig(text: string, file: string, env: Record<string, string | undefined>): ServersConfig {
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    throw new ServersConfigError(file, document.errors.map((error) => error.message));
  }
  const problems: string[] = [];
  const parsed: unknown = document.toJS();
  if (parsed === null || parsed === undefined) throw new ServersConfigError(file, ["(top level): the file is empty, expected servers:"]);
  const data = interpolate(parsed, [], env, problems);
  if (problems.length > 0) throw new ServersConfigError(file, problems);

  if (!validateFile(data)) {
    // A bad server name is reported twice by ajv: once by the inner pattern (marked with propertyName), once by propertyNames.
    const errors = (validateFile.errors ?? []).filter((error) => error.propertyName === undefined);
    throw new ServersConfigError(file, errors.map(describeError));
  }
  const raw = (data as { servers: Record<string, RawServer> }).servers;
  const folder = dirname(file);
  const servers = Object.entries(raw).map(([name, server]) => toServerConfig(name, server, folder, problems));
  if (problems.length > 0) throw new ServersConfigError(file, problems);
  return { file, servers };
}

function toServerConfig(name: string, raw: RawServer, folder: string, problems: string[]): ServerConfig {
  const at = `servers.${name}`;
  const common = {
    name,
    ...(raw.timeoutMs === undefined ? {} : { timeoutMs: raw.timeoutMs }),
    exclude: raw.exclude ?? [],
    core: raw.core ?? [],
    pool: raw.pool ?? name,
    domains: raw.domains ?? [],
    tools: toolOverrides(name, raw, problems),
    tenants: raw.tenants ?? [],
    trust: raw.trust ?? "first-use",
  };
  for (const [index, tool] of common.core.entries()) {
    if (common.exclude.includes(tool)) problems.push(`${at}.core[${index}]: ${tool} is also in exclude`);
  }

  if ((raw.command === undefined) === (raw.url === undefined)) {
    problems.push(`${at}: needs either command (a stdio server) or url (a streamable HTTP server), not both`);
  }
  if (raw.url !== undefined) {
    for (const key of ["args", "cwd", "env"] as const) {
      if (raw[key] !== undefined) problems.push(`${at}.${key}: only for command servers, this one has a url`);
    }
    if (!isHttpUrl(raw.url)) problems.push(`${at}.url: must be an http(s) URL, got ${JSON.stringify(raw.url)}`);
    return { ...common, transport: "http", url: raw.url, headers: raw.headers ?? {} };
  }
  if (raw.headers !== undefined) problems.push(`${at}.headers: only for url servers, this one has a command`);

  const command = raw.command ?? "";
  return {
    ...common,
    transport: "stdio",
    // A command with a slash is a path (relative to this file); a bare name is looked up when connecting.
    command: command.includes("/") && !isAbsolute(command) ? resolve(folder, command) : command,
    args: (raw.args ?? []).map((arg) => resolveIfRelativePath(arg, folder)),
    ...(raw.cwd === undefined ? {} : { cwd: resolve(folder, raw.cwd) }),
    env: Object.fromEntries(
      Object.entries(raw.env ?? {}).map(([key, value]) => [key, resolveIfRelativePath(value, folder)]),
    ),
  };
}

/**
 * Each tool's settings, with its side effect from either `sideEffects.<tool>`
 * or `tools.<tool>.side_effect`. Two ways to say one thing must not disagree
 * silently: differing values, or a side effect that `requires_approval`
 * contradicts (read with true, write or execute with false), are problems.
 */
function toolOverrides(server: string, raw: RawServer, problems: string[]): Record<string, ToolOverrides> {
  const sideEffects = raw.sideEffects ?? {};
  const tools = raw.tools ?? {};
  const names = [...new Set([...Object.keys(sideEffects), ...Object.keys(tools)])];
  return Object.fromEntries(
    names.map((tool) => {
      const { side_effect: own, requires_approval: requiresApproval, ...rest } = tools[tool] ?? {};
      const listed = sideEffects[tool];
      const ownPath = formatPath(["servers", server, "tools", tool, "side_effect"]);
      const listedPath = formatPath(["servers", server, "sideEffects", tool]);
      if (own !== undefined && listed !== undefined && own !== listed) {
        problems.push(`${ownPath}: ${own} disagrees with ${listedPath}: ${listed}; keep one`);
      }
      const sideEffect = own ?? listed;
      if (sideEffect !== undefined && requiresApproval !== undefined && requiresApproval !== (sideEffect !== "read")) {
        const source = own === undefined ? listedPath : "side_effect";
        problems.push(
          `${formatPath(["servers", server, "tools", tool, "requires_approval"])}: ${requiresApproval} contradicts ${source}: ${sideEffect}`,
        );
      }
      const overrides: ToolOverrides = { ...rest };
      if (sideEffect !== undefined) overrides.sideEffect = sideEffect;
      if (requiresApproval !== undefined) overrides.requiresApproval = requiresApproval;
      return [tool, overrides];
    }),
  );
}

/**
 * Arguments and env values are free text, so only those written as explicit
 * relative paths ("./x", "../x", ".", "..") are taken as paths and made
 * absolute; the server would otherwise resolve them against its own cwd or,
 * like server-memory, against its install folder.
 */
function resolveIfRelativePath(value: string, folder: string): string {
  const relative = value === "." || value === ".." || value.startsWith("./") || value.startsWith("../");
  return relative ? resolve(folder, value) : value;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

// "$$" is a literal "$"; "${...}" is a reference, checked below (docker-compose syntax).
const REFERENCE = /\$\$|\$\{([^}]*)\}/g;
// The inside of a reference: a variable name, then optionally ":-" and a default (which cannot contain "}").
const REFERENCE_BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/** Replaces references in every string of the parsed file; keys are left alone. */
function interpolate(value: unknown, path: (string | number)[], env: Record<string, string | undefined>, problems: string[]): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (match: string, body: string | undefined) => {
      if (body === undefined) return "$";
      const parts = REFERENCE_BODY.exec(body);
      if (!parts) {
        problems.push(`${formatPath(path)}: ${match} is not a valid reference (write \${NAME} or \${NAME:-default})`);
        return match;
      }
      const [, name = "", fallback] = parts;
      const set = env[name];
      // Like docker-compose, ":-" also replaces a variable that is set but empty.
      if (set !== undefined && (set !== "" || fallback === undefined)) return set;
      if (fallback !== undefined) return fallback;
      problems.push(`${formatPath(path)}: ${match} is not set (write \${${name}:-default} to give a default)`);
      return match;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, [...path, index], env, problems));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolate(item, [...path, key], env, problems)]),
    );
  }
  return value;
}

function describeError(error: ErrorObject): string {
  const path = error.instancePath
    .split("/")
    .slice(1)
    // JSON Pointer escapes: "~1" is "/", "~0" is "~" (RFC 6901).
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    // Array indices are all digits.
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${formatPath([...path, String(params["missingProperty"])])}: is required`;
    case "additionalProperties":
      return `${formatPath([...path, String(params["additionalProperty"])])}: is not a known setting`;
    case "propertyNames":
      return `${formatPath([...path, String(params["propertyName"])])}: a server name may hold only letters, digits, "_" and "-"`;
    case "enum":
      return `${formatPath(path)}: must be one of ${(params["allowedValues"] as unknown[]).join(", ")}`;
    default:
      return `${formatPath(path)}: ${error.message ?? "is invalid"}`;
  }
}

/** `servers.filesystem.args[0]`, `servers["my.server"]`, or `(top level)` for the document itself. */
function formatPath(path: (string | number)[]): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      // Keys that would read ambiguously after a dot are quoted.
      if (!/^[A-Za-z0-9_-]+$/.test(segment)) return `[${JSON.stringify(segment)}]`;
      return index === 0 ? segment : `.${segment}`;
    })
    .join("");
}
