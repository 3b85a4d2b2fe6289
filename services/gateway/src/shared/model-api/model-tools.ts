/**
 * Which of a model request's tools the upstream model gets: the routing every model-API door
 * shares (/v1/chat/completions, /v1/messages, /v1/responses). Each door reads its own request
 * shape into a {@link Conversation} and its tools into {@link RoutableTool}s; this module routes
 * the latest user turn with the embedding-routers and answers the names to keep.
 */
import { create } from "@bufbuild/protobuf";
import type { JsonObject } from "@bufbuild/protobuf";
import { RankToolsRequestSchema, ToolDefinitionSchema, turnOf } from "@switchyard/packet";
import type { Turn } from "@switchyard/packet";
import type { GatewayDeps } from "../deps.js";
import { GatewayError } from "../deps.js";
import { clientSafe } from "../tool-names.js";
import { textOverLimit } from "../requests.js";
import type { GatewayLimits } from "../requests.js";

/** The limits of every door that apply to the turn a model door routes on. */
export type MessageLimits = Pick<GatewayLimits, "maxMessageChars" | "maxHistoryTurns">;

/** One of the request's tools, as routing reads it. */
export interface RoutableTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** `defer_loading: true`: offered only when routing picks it for the turn. */
  deferred: boolean;
}

/** One message of the request's conversation, whichever API's shape it came in. */
export interface ConversationMessage {
  role: "user" | "assistant" | "other";
  /** Its text ("" for one that only carries tool calls or results). */
  text: string;
  /** The tools it called. */
  calls: readonly string[];
  /** Where its text is in the request ("messages/2/content"), for a refusal. */
  field: string;
}

/** What a door reads of its request's conversation. */
export interface Conversation {
  messages: readonly ConversationMessage[];
  /** The request's list of messages ("messages", "input"), named when it has no user turn to route on. */
  field: string;
  /** The tool the request's tool_choice names; "" for none. */
  chosen: string;
}

/** The turn routing reads: the latest user message and the turns before it. */
interface RoutedTurn {
  message: string;
  history: Turn[];
}

/**
 * The latest user message with text, and the user and assistant turns before it (at most
 * MAX_HISTORY_TURNS, the latest: routing reads a long conversation's last few); undefined when
 * there is none. A message over MAX_MESSAGE_CHARS is refused, as on every door.
 */
function latestUserTurn(conversation: Conversation, limits: MessageLimits): RoutedTurn | undefined {
  const { messages } = conversation;
  const at = messages.findLastIndex((m) => m.role === "user" && m.text !== "");
  if (at < 0) return undefined;
  const failure = textOverLimit(messages[at]!.text, limits.maxMessageChars, messages[at]!.field, "body");
  if (failure) throw new GatewayError("invalid", failure.message, failure.field);
  const turns = messages
    .slice(0, at)
    .filter((m) => m.role !== "other" && m.text !== "")
    .map((m) => turnOf(m.role, m.text));
  return { message: messages[at]!.text, history: limits.maxHistoryTurns === 0 ? [] : turns.slice(-limits.maxHistoryTurns) };
}

/** The tools the conversation has called so far, each once: the model may well call them again. */
export function toolsUsed(conversation: Conversation): string[] {
  return [...new Set(conversation.messages.flatMap((m) => m.calls))];
}

/** Whether the request's tools need routing at all: more than `topK` of them, or one deferred. */
function needsRouting(tools: readonly RoutableTool[], topK: number): boolean {
  return tools.some((t) => t.deferred) || tools.length > topK;
}

/** What {@link offeredToolNames} routes: the request's tools and conversation. */
export interface ToolsToRoute {
  tools: readonly RoutableTool[];
  conversation: Conversation;
  /** Tools to keep besides tool_choice's and those the conversation used (those a stored conversation used). */
  keep?: readonly string[];
  /**
   * The tools offered at the previous answer of a stored conversation this request continues:
   * without a new user message (only tool results) the turn goes on, and so do they, unrouted.
   */
  carried?: readonly string[];
}

/**
 * The names of the tools the model gets. Tools without `defer_loading`: all of them when there
 * are no more than `topK`; else the routed best for the latest user turn, the catalog's core
 * tools, the one tool_choice names and those used in the conversation. A deferred tool only
 * when routing picks it (or tool_choice or the conversation already depends on it). The user
 * turn is checked against MAX_MESSAGE_CHARS whether or not there is routing to do.
 * A continued conversation without a new user message keeps what was `carried` instead of routing.
 */
export async function offeredToolNames(deps: GatewayDeps, tenant: string, request: ToolsToRoute, limits: MessageLimits, topK: number): Promise<Set<string>> {
  const { tools, conversation } = request;
  const turn = latestUserTurn(conversation, limits);
  if (!needsRouting(tools, topK)) return new Set(tools.map((t) => t.name));
  if (!turn && !request.carried) throw new GatewayError("invalid", `${conversation.field} has no user message to route on`, conversation.field);
  const routed = turn
    ? (await deps.rankTools(tenant, create(RankToolsRequestSchema, { ...turn, topK, tools: tools.map(toolDefinition) }))).map((c) => c.tool?.name ?? "")
    : (request.carried ?? []);
  const picked = new Set([...routed, conversation.chosen, ...toolsUsed(conversation), ...(request.keep ?? [])]);
  // A core tool may come by its catalog name, its client-safe one (core_clarify) or its server's name for it.
  const core = new Set((await deps.listTools(tenant)).filter((t) => t.core).flatMap((t) => [t.name, clientSafe(t.name), t.serverToolName]));
  const allPlain = tools.filter((t) => !t.deferred).length <= topK;
  return new Set(tools.filter((t) => picked.has(t.name) || (!t.deferred && (allPlain || core.has(t.name)))).map((t) => t.name));
}

function toolDefinition(tool: RoutableTool) {
  return create(ToolDefinitionSchema, { name: tool.name, description: tool.description, inputSchema: tool.parameters as JsonObject });
}

/** A message's text: a string, or the text parts of a content array (text, input_text, output_text). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part: { type?: unknown; text?: unknown }) => (TEXT_PARTS.has(String(part?.type)) && typeof part.text === "string" ? [part.text] : []))
    .join("\n");
}

const TEXT_PARTS = new Set(["text", "input_text", "output_text"]);
