import { fromJson } from "@bufbuild/protobuf";
import type { DescMessage, JsonValue, MessageShape } from "@bufbuild/protobuf";
import { Turn_Role } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import { Type, TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
import type { Static, TSchema } from "@fastify/type-provider-typebox";
import type { FastifySchemaValidationError } from "fastify";
import { EXAMPLE_MAX_CHARS } from "@switchyard/learning";

/**
 * The requests both front doors accept. HTTP validates bodies with these
 * schemas through fastify, then reads them as their proto request (`protoRequest`);
 * gRPC turns its decoded message into the same JSON shape and runs the same
 * validator, so a rule and its error message exist once.
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
/** Longest pool or domain name. */
export const MAX_GROUP_CHARS = 128;
/** Most examples one request may add. */
export const MAX_EXAMPLES_PER_REQUEST = 50;

/** The proto's role names, and their lowercase spellings that chat APIs use. */
const ROLE_NAMES = Object.keys(Turn_Role).filter((key) => Number.isNaN(Number(key)));
const ROLE_SPELLINGS = [...ROLE_NAMES, ...ROLE_NAMES.map((name) => name.toLowerCase())];

export function requestSchemas(limits: Pick<GatewayLimits, "maxMessageChars" | "maxHistoryTurns">) {
  const turn = Type.Object(
    {
      role: Type.Enum(ROLE_SPELLINGS, { type: "string", description: "Who spoke; lowercase is accepted too" }),
      content: Type.String(),
    },
    { additionalProperties: false },
  );
  const message = Type.String({ minLength: 1, maxLength: limits.maxMessageChars, description: "The user's latest turn" });
  const history = Type.Array(turn, { maxItems: limits.maxHistoryTurns, description: "Earlier turns, oldest first" });
  const toolName = Type.String({ minLength: 1, maxLength: MAX_TOOL_NAME_CHARS });
  const tools = Type.Array(toolName, {
    description: "Allow-list of tool names; absent or empty means the whole catalog",
  });
  // An example must hold something besides spaces.
  const example = Type.String({ minLength: 1, maxLength: EXAMPLE_MAX_CHARS, pattern: "\\S" });
  const examples = Type.Array(example, {
    minItems: 1,
    maxItems: MAX_EXAMPLES_PER_REQUEST,
    description: "Example requests the tool serves, e.g. \"what's on my desktop?\"",
  });
  const group = Type.String({ minLength: 1, maxLength: MAX_GROUP_CHARS });
  const pools = Type.Array(group, {
    description: "Only tools of these pools (seed 004); absent or empty means all",
  });
  const domains = Type.Array(group, {
    description: "Only tools serving one of these domains (seed 003), e.g. files, web; absent or empty means all",
  });

  return {
    submitPacket: Type.Object(
      {
        message,
        sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ID_CHARS })),
        history: Type.Optional(history),
        tools: Type.Optional(tools),
        pools: Type.Optional(pools),
        domains: Type.Optional(domains),
        wait: Type.Optional(
          Type.Boolean({ default: true, description: "Wait for the finished packet, or return 202 with its id at once" }),
        ),
      },
      { additionalProperties: false },
    ),
    route: Type.Object(
      {
        message,
        history: Type.Optional(history),
        topK: Type.Optional(
          Type.Integer({ minimum: 1, maximum: TOP_K_MAX, description: "Semantic candidates to return; absent: the router's default" }),
        ),
        tools: Type.Optional(tools),
        pools: Type.Optional(pools),
        domains: Type.Optional(domains),
      },
      { additionalProperties: false },
    ),
    submitCall: Type.Object(
      {
        tool: Type.String({
          minLength: 1,
          maxLength: MAX_TOOL_NAME_CHARS,
          description: "The tool's catalog name, or its bare name on its server when only one tool has it (write_file)",
        }),
        arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The call's arguments; the review checks them against the tool's inputSchema" })),
        message: Type.Optional(Type.String({ minLength: 1, maxLength: limits.maxMessageChars, description: "What the user asked, for the review and the audit trail" })),
        sessionId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_ID_CHARS })),
        wait: Type.Optional(
          Type.Boolean({ default: true, description: "Wait for the finished packet, or return 202 with its id at once" }),
        ),
      },
      { additionalProperties: false },
    ),
    packetRef: Type.Object(
      // The id is a key of the packets bucket; anything else could not name a packet.
      { packetId: Type.String({ minLength: 1, maxLength: MAX_ID_CHARS, pattern: "^[A-Za-z0-9_-]+$" }) },
      { additionalProperties: false },
    ),
    toolRef: Type.Object({ name: toolName }, { additionalProperties: false }),
    feedback: Type.Object(
      {
        correct: Type.Boolean({ description: "Whether the packet's tool was the right one for its request" }),
        tool: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: MAX_TOOL_NAME_CHARS,
            description: "With correct=false: the tool that should have been chosen; the packet's query becomes its example",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    addExamples: Type.Object({ examples }, { additionalProperties: false }),
    /** AddExamplesRequest as gRPC carries it: the tool's name in the message, not in the path. */
    toolExamples: Type.Object({ tool: toolName, examples }, { additionalProperties: false }),
    approve: Type.Object(
      {
        callHash: Type.Optional(
          Type.String({
            pattern: "^[0-9a-f]{64}$",
            description: "The call the user saw (toolRouting.approval.callHash): the approval is refused unless it is still the packet's call",
          }),
        ),
      },
      { additionalProperties: false },
    ),
    deny: Type.Object(
      { reason: Type.Optional(Type.String({ maxLength: MAX_REASON_CHARS, description: "Why the call was denied" })) },
      { additionalProperties: false },
    ),
  };
}

type TurnBody = NonNullable<Static<ReturnType<typeof requestSchemas>["submitPacket"]>["history"]>[number];

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
