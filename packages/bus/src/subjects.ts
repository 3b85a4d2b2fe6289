import type { Stage } from "@switchyard/packet";

// A subject token as nats.js validates names: letters, digits, "_" and "-".
const TOKEN = /^[-\w]+$/;

function token(value: string, what: string): string {
  if (!TOKEN.test(value)) throw new Error(`invalid ${what} for a NATS subject: ${JSON.stringify(value)}`);
  return value;
}

/** Every packet subject, for the stream's filter. */
export const PACKETS_WILDCARD = "switchyard.packets.>";

/** Where a stage's packets wait: `switchyard.packets.<stage>`. */
export function packetSubject(stage: Stage): string {
  return `switchyard.packets.${token(stage, "stage")}`;
}

const DONE_PREFIX = "switchyard.done.";

/**
 * Where a finished packet is announced: `switchyard.done.<listener>.<packet id>` for the
 * gateway `listener` that waits for it (one subscription, `doneListenerWildcard`, for all
 * its packets), or `switchyard.done.<packet id>` when none is named.
 */
export function doneSubject(packetId: string, listener?: string): string {
  const id = token(packetId, "packet id");
  return listener === undefined ? `${DONE_PREFIX}${id}` : `${DONE_PREFIX}${token(listener, "listener")}.${id}`;
}

/** Every packet's announcement for one listener (see doneSubject). */
export function doneListenerWildcard(listener: string): string {
  return `${DONE_PREFIX}${token(listener, "listener")}.*`;
}

/** The subject a packet's end is announced on: its header's, if it is a done subject at all, else its id's. */
export function announcementSubject(header: { packetId: string; doneSubject: string }): string {
  return header.doneSubject.startsWith(DONE_PREFIX) ? header.doneSubject : doneSubject(header.packetId);
}

/** Every finished packet's announcement; the router learns examples from them. */
export const DONE_WILDCARD = "switchyard.done.>";

/** Route-only requests (request/reply, served by the embedding-router replicas). */
export const ROUTE_SUBJECT = "switchyard.rpc.route";

/** Ranking tools a caller brings (request/reply, RankToolsRequest → RankToolsResponse, served by the embedding-routers). */
export const RANK_TOOLS_SUBJECT = "switchyard.rpc.rank-tools";

/** Feedback on a packet's tool (request/reply, FeedbackRequest → FeedbackResponse, served by the embedding-routers). */
export const FEEDBACK_SUBJECT = "switchyard.rpc.feedback";

/** Examples added to a tool by hand (request/reply, AddExamplesRequest → AddExamplesResponse, served by the embedding-routers). */
export const EXAMPLES_SUBJECT = "switchyard.rpc.examples";

/**
 * Approving an MCP tool's current definition (request/reply, ToolDefinition with the name →
 * the approved ToolDefinition): one subject per server, served only by the executors that
 * run that server, so a request never reaches an executor without it.
 */
export function toolApprovalSubject(server: string): string {
  return `switchyard.rpc.tool-approve.${token(server, "server name")}`;
}
