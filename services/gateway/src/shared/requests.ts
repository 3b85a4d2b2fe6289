import { fromJson } from "@bufbuild/protobuf";
import type { DescMessage, JsonValue, MessageShape } from "@bufbuild/protobuf";
import {
  AddExamplesRequestSchema,
  ApprovePacketRequestSchema,
  DeleteExampleRequestSchema,
  DenyPacketRequestSchema,
  FeedbackRequestSchema,
  ListExamplesRequestSchema,
  ListPacketsRequestSchema,
  RouteRequestSchema,
  SubmitCallRequestSchema,
  SubmitPacketRequestSchema,
  ToolRoutingState_ExecutionStatus,
  Turn_Role,
} from "@switchyard/packet";
import type { ListPacketsRequest, Turn } from "@switchyard/packet";
import { Type, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { TSchema } from "@fastify/type-provider-typebox";
import type { FastifySchemaValidationError } from "fastify";
import { EXAMPLE_ID_CHARS, EXAMPLE_MAX_CHARS } from "@switchyard/learning";
import { requestBodySchema } from "./proto-json-schema.js";
import type { FieldRule, JsonSchemaObject, RequestRules } from "./proto-json-schema.js";

/**
 * The requests both front doors accept: each body's schema is its proto message
 * (router.proto) in the JSON mapping plus the rules below. HTTP validates bodies with
 * them through fastify, then reads them as their proto request (`protoRequest`); gRPC
 * turns its decoded message into the same JSON shape and runs the same validator, so a
 * field, a rule and its error message exist once.
 */

/** Bounds on what a request may carry; the same for HTTP and gRPC. */
export interface GatewayLimits {
  /** Largest request in bytes: the HTTP body limit and the gRPC receive limit. @default 1048576 */
  bodyLimitBytes: number;
  /** Longest user message, in characters. @default 32768 */
  maxMessageChars: number;
  /** Most earlier turns in `history`. @default 50 */
  maxHistoryTurns: number;
}

export const TOP_K_MAX = 50;
const MAX_ID_CHARS = 128;
const MAX_TOOL_NAME_CHARS = 256;
const MAX_REASON_CHARS = 2000;
/** A tool's catalog name, wherever a request names one. */
const TOOL_NAME = { minLength: 1, maxLength: MAX_TOOL_NAME_CHARS };
/** A tool's name in a URL path, with the one /docs shows. */
const TOOL_NAME_PARAM = { ...TOOL_NAME, examples: ["filesystem.get_file_info"] };
/** An example's id (ToolExample.id), wherever a request names one. */
const EXAMPLE_ID = { pattern: `^[0-9a-f]{${EXAMPLE_ID_CHARS}}$`, description: "The example's id, as GET /v1/tools/{name}/examples lists it" };
/** Longest pool or domain name. */
export const MAX_GROUP_CHARS = 128;
/** Most examples one request may add. */
export const MAX_EXAMPLES_PER_REQUEST = 50;

/** The most packets one page of GET /v1/packets may hold. */
export const MAX_PACKETS_PAGE = 200;

/** An enum's value names, without TypeScript's reverse mapping. */
const enumNames = (values: object) => Object.keys(values).filter((key) => Number.isNaN(Number(key)));

/** The proto's role names, and their lowercase spellings that chat APIs use. */
const ROLE_NAMES = enumNames(Turn_Role);
const ROLE_SPELLINGS = [...ROLE_NAMES, ...ROLE_NAMES.map((name) => name.toLowerCase())];

/**
 * What the request bodies allow beyond their proto types: each limit and description once,
 * by message and field. HTTP bodies, gRPC messages and the OpenAPI document all read it.
 */
export function requestRules(limits: Pick<GatewayLimits, "maxMessageChars" | "maxHistoryTurns">): RequestRules {
  const message: FieldRule = { required: true, schema: { minLength: 1, maxLength: limits.maxMessageChars, description: "The user's latest turn" } };
  const history: FieldRule = { schema: { maxItems: limits.maxHistoryTurns, description: "Earlier turns, oldest first" } };
  const tools: FieldRule = { items: TOOL_NAME, schema: { description: "Allow-list of tool names; absent or empty means the whole catalog" } };
  const group = { minLength: 1, maxLength: MAX_GROUP_CHARS };
  const pools: FieldRule = { items: group, schema: { description: "Only tools of these pools (groups of related tools, a server's by default); absent or empty means all" } };
  const domains: FieldRule = {
    items: group,
    schema: { description: "Only tools serving one of these subject domains, e.g. files, web; absent or empty means all" },
  };
  const sessionId: FieldRule = { schema: { minLength: 1, maxLength: MAX_ID_CHARS } };
  const wait: FieldRule = { schema: { default: true, description: "Wait for the finished packet, or return 202 with its id at once" } };
  return {
    "switchyard.v1.Turn": {
      role: { required: true, schema: { enum: ROLE_SPELLINGS, description: "Who spoke; lowercase is accepted too" } },
      content: { required: true },
    },
    "switchyard.v1.SubmitPacketRequest": {
      message,
      sessionId,
      history,
      tools,
      pools,
      domains,
      wait,
      dryRun: {
        schema: {
          default: false,
          description: "A preview: the packet is routed, selected and reviewed, but its call is only dry-run whatever the policy (nothing is called, held for approval or learned); the review says what would have happened",
        },
      },
    },
    "switchyard.v1.RouteRequest": {
      message,
      history,
      topK: { schema: { minimum: 1, maximum: TOP_K_MAX, description: "Semantic candidates to return; absent: the router's default" } },
      tools,
      pools,
      domains,
    },
    "switchyard.v1.SubmitCallRequest": {
      tool: {
        required: true,
        schema: { ...TOOL_NAME, description: "The tool's catalog name, or its bare name on its server when only one tool has it (write_file)" },
      },
      arguments: { schema: { description: "The call's arguments; the review checks them against the tool's inputSchema" } },
      message: { schema: { minLength: 1, maxLength: limits.maxMessageChars, description: "What the user asked, for the review and the audit trail" } },
      sessionId,
      wait,
    },
    "switchyard.v1.FeedbackRequest": {
      correct: { required: true, schema: { description: "Whether the packet's tool was the right one for its request" } },
      tool: {
        schema: { ...TOOL_NAME, description: "With correct=false: the tool that should have been chosen; the packet's query becomes its example" },
      },
    },
    "switchyard.v1.AddExamplesRequest": {
      tool: { required: true, schema: TOOL_NAME },
      examples: {
        required: true,
        schema: { minItems: 1, maxItems: MAX_EXAMPLES_PER_REQUEST, description: "Example requests the tool serves, e.g. \"what's on my desktop?\"" },
        // An example must hold something besides spaces.
        items: { minLength: 1, maxLength: EXAMPLE_MAX_CHARS, pattern: "\\S" },
      },
      shared: { schema: { description: "Every tenant's examples, not only the caller's: an admin's API key only" } },
    },
    "switchyard.v1.ListExamplesRequest": { tool: { required: true, schema: TOOL_NAME } },
    "switchyard.v1.DeleteExampleRequest": {
      tool: { required: true, schema: TOOL_NAME },
      id: { required: true, schema: EXAMPLE_ID },
    },
    "switchyard.v1.ApprovePacketRequest": {
      callHash: {
        schema: {
          pattern: "^[0-9a-f]{64}$",
          description: "The call the user saw (toolRouting.approval.callHash): the approval is refused unless it is still the packet's call",
        },
      },
    },
    "switchyard.v1.DenyPacketRequest": { reason: { schema: { maxLength: MAX_REASON_CHARS, description: "Why the call was denied" } } },
    "switchyard.v1.ListPacketsRequest": {
      states: { schema: { description: "Only packets in these states; repeat `state` or separate the names by commas" } },
      status: {
        schema: {
          enum: ["success", "error", ...enumNames(ToolRoutingState_ExecutionStatus)],
          description: "Only packets whose last tool call ended so (success, error), or whose execution status is this (EXECUTED, USER_DENIED, …)",
        },
      },
      tool: { schema: { ...TOOL_NAME, description: "Only packets that selected this tool (its catalog name)" } },
      sessionId,
      query: { schema: { minLength: 1, maxLength: limits.maxMessageChars, description: "Only packets whose request holds this text (any case)" } },
      limit: { schema: { minimum: 1, maximum: MAX_PACKETS_PAGE, default: 50, description: "Packets per page, newest first" } },
      before: { schema: { description: "Only packets created before this time (RFC 3339): the createdAt of the previous page's last packet" } },
    },
  };
}

/** A request body's schema from its proto message and the rules; typed as the JSON it is. */
function body<T>(desc: DescMessage, rules: RequestRules, omit: readonly string[] = []) {
  return Type.Unsafe<T>(requestBodySchema(desc, rules, omit));
}

/** The bodies and path parameters the doors validate. */
export function requestSchemas(limits: Pick<GatewayLimits, "maxMessageChars" | "maxHistoryTurns">) {
  const rules = requestRules(limits);
  return {
    submitPacket: body<{ history?: TurnBody[] }>(SubmitPacketRequestSchema, rules),
    route: body<{ history?: TurnBody[] }>(RouteRequestSchema, rules),
    submitCall: body<object>(SubmitCallRequestSchema, rules),
    feedback: body<{ correct: boolean; tool?: string }>(FeedbackRequestSchema, rules, ["packetId"]),
    addExamples: body<{ examples: string[] }>(AddExamplesRequestSchema, rules, ["tool"]),
    /** AddExamplesRequest as gRPC carries it: the tool's name in the message, not in the path. */
    toolExamples: body<{ tool: string; examples: string[] }>(AddExamplesRequestSchema, rules),
    /** The example requests as gRPC carries them; HTTP has them in the path. */
    listExamples: body<{ tool: string }>(ListExamplesRequestSchema, rules),
    deleteExample: body<{ tool: string; id: string }>(DeleteExampleRequestSchema, rules),
    approve: body<{ callHash?: string }>(ApprovePacketRequestSchema, rules, ["packetId"]),
    deny: body<{ reason?: string }>(DenyPacketRequestSchema, rules, ["packetId"]),
    listPackets: Type.Unsafe<ListPacketsQuery>(queryOf(requestBodySchema(ListPacketsRequestSchema, rules))),
    packetRef: Type.Object(
      // The id is a key of the packets bucket; anything else could not name a packet.
      { packetId: Type.String({ minLength: 1, maxLength: MAX_ID_CHARS, pattern: "^[A-Za-z0-9_-]+$", examples: ["0b8f3c52-6a1e-4d7b-9c2f-5e4a1d3b7c90"] }) },
      { additionalProperties: false },
    ),
    toolRef: Type.Object({ name: Type.String(TOOL_NAME_PARAM) }, { additionalProperties: false }),
    exampleRef: Type.Object({ name: Type.String(TOOL_NAME_PARAM), id: Type.String({ ...EXAMPLE_ID, examples: ["3f1c9a7e5b2d4c60"] }) }, { additionalProperties: false }),
  };
}

/** GET /v1/packets's query as checked: ListPacketsRequest's JSON with `states` named `state`, as each parameter names one state. */
export interface ListPacketsQuery {
  state?: string[];
  status?: string;
  tool?: string;
  sessionId?: string;
  query?: string;
  limit?: number;
  before?: string;
}

/** ListPacketsRequest's body schema as the query's: `states` is `state`. */
function queryOf(schema: JsonSchemaObject): JsonSchemaObject {
  const { states, ...rest } = schema["properties"] as Record<string, unknown>;
  return { ...schema, properties: { state: states, ...rest } };
}

/**
 * GET /v1/packets's query as fastify parsed it, in the shape its schema checks: `state` a list
 * (the parameter repeated, or names separated by commas) and `limit` a number when it is digits;
 * anything else is left for the schema to refuse by name.
 */
export function listPacketsQuery(raw: Record<string, unknown>): Record<string, unknown> {
  const { state, limit, ...rest } = raw;
  const states = state === undefined ? undefined : [state].flat().flatMap((value) => String(value).split(",")).filter((name) => name !== "");
  const count = typeof limit === "string" && /^\d{1,9}$/.test(limit) ? Number(limit) : limit;
  return { ...rest, ...(states ? { state: states } : {}), ...(count === undefined ? {} : { limit: count }) };
}

/** A checked query as the proto request every door hands GatewayDeps. */
export function listPacketsRequest({ state, ...rest }: ListPacketsQuery): ListPacketsRequest {
  return fromJson(ListPacketsRequestSchema, { ...rest, ...(state ? { states: state } : {}) });
}

/** A turn as a body carries it: the role by name, in either case. */
interface TurnBody {
  role: string;
  content: string;
}

/** A rejected request: what is wrong, and the field at fault when there is one ("history/3/role"). */
export interface ValidationFailure {
  message: string;
  field?: string;
}

/**
 * One failure out of a validator's errors, worded for the client. `part` is
 * where the value came from ("body", "params"), or "" for a gRPC message.
 */
export function describeValidation(errors: readonly FastifySchemaValidationError[], part: string): ValidationFailure {
  // An unknown or missing field is the clearest thing to report; TypeBox lists a
  // "schema is false" error for an unknown field before the one that names it.
  const error = errors.find((e) => e.keyword === "additionalProperties" || e.keyword === "required") ?? errors[0];
  if (error === undefined) return { message: `${part || "request"} is invalid` };
  const path = error.instancePath.replace(/^\//, ""); // JSON pointer without its leading slash: "history/0/role"
  const at = (field: string) => [part, field].filter(Boolean).join("/");

  if (error.keyword === "additionalProperties" || error.keyword === "required") {
    const names = error.params[error.keyword === "required" ? "requiredProperties" : "additionalProperties"];
    const name = Array.isArray(names) && typeof names[0] === "string" ? names[0] : "";
    const field = [path, name].filter(Boolean).join("/");
    return { field, message: `${at(field)} ${error.keyword === "required" ? "is required" : "is not a known field"}` };
  }
  const allowed = error.params.allowedValues;
  const suffix = Array.isArray(allowed) ? `: ${allowed.join(", ")}` : "";
  return path === ""
    ? { message: `${at("") || "request"} ${error.message}${suffix}` }
    : { field: path, message: `${at(path)} ${error.message}${suffix}` };
}

/**
 * The validator fastify uses for these schemas, for callers outside fastify
 * (gRPC). Returns the failure, or undefined when the value is valid.
 */
export function requestValidator(schema: TSchema): (value: unknown) => ValidationFailure | undefined {
  const validate = TypeBoxValidatorCompiler({ schema, httpPart: "body", method: "POST", url: "" });
  return (value) => {
    const result = validate(value) as { error?: FastifySchemaValidationError[] };
    return result.error ? describeValidation(result.error, "") : undefined;
  };
}

/** A validator of `{ message }` at most `maxChars` long, for each limit asked for. */
const messageValidators = new Map<number, (value: unknown) => ValidationFailure | undefined>();

/**
 * A text over `maxChars` on a door whose body is no router.proto request (the OpenAI door's
 * user message, /mcp's search query), refused in the words HTTP and gRPC use for `message`:
 * the same validator says them. `part` prefixes the message as HTTP's does ("body").
 */
export function textOverLimit(text: string, maxChars: number, field: string, part = ""): ValidationFailure | undefined {
  let validate = messageValidators.get(maxChars);
  if (!validate) messageValidators.set(maxChars, (validate = requestValidator(Type.Object({ message: Type.String({ maxLength: maxChars }) }))));
  const failure = validate({ message: text });
  return failure && { field, message: `${[part, field].filter(Boolean).join("/")}${failure.message.slice("message".length)}` };
}

/** Packet turns in the request JSON shape, so gRPC requests go through the HTTP validator. */
export function turnsToBody(history: readonly Turn[]): TurnBody[] {
  // An unknown enum number keeps its number, which the role check then rejects by name.
  return history.map((turn) => ({ role: Turn_Role[turn.role] ?? String(turn.role), content: turn.content }));
}

/**
 * A validated body as the proto request it is the JSON of (router.proto), so every door
 * hands GatewayDeps the same message. Roles were accepted in either case; proto JSON
 * names them in capitals.
 */
export function protoRequest<Desc extends DescMessage>(desc: Desc, body: object): MessageShape<Desc> {
  const { history } = body as { history?: TurnBody[] };
  const json = history ? { ...body, history: history.map((turn) => ({ ...turn, role: turn.role.toUpperCase() })) } : body;
  return fromJson(desc, json as JsonValue);
}
