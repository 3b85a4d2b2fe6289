import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { SHARED } from "@switchyard/learning";
import { context } from "@opentelemetry/api";
import { DONE_WILDCARD, EXAMPLES_SUBJECT, extractTraceContext, FEEDBACK_SUBJECT, Headers, loadPacket, protoEndpoint, ServiceError } from "@switchyard/bus";
import type { Endpoint } from "@switchyard/bus";
import {
  AddExamplesRequestSchema,
  AddExamplesResponseSchema,
  decodePacket,
  decodePacketApprovalSummary,
  FeedbackRequestSchema,
  FeedbackResponseSchema,
} from "@switchyard/packet";
import { withPacketId } from "@switchyard/telemetry";
import type { Logger } from "@switchyard/telemetry";
import { addToolExamples, applyFeedback, learnFromPacket, mayTeach } from "./learning.js";
import type { LearningSettings } from "./learning.js";

export interface LearningDeps {
  nc: NatsConnection;
  /** The examples bucket (EXAMPLES_BUCKET). */
  examples: KV;
  /** Lessons waiting for their session to confirm them (PENDING_LESSONS_BUCKET). */
  pending: KV;
  /** The finished packets (PACKETS_BUCKET), for feedback. */
  packets: KV;
  /** Whether the catalog has a tool of that name. */
  isTool: (name: string) => boolean;
  settings: LearningSettings;
  logger: Logger;
}

/** The queue group: each finished packet is learned from by one router replica. */
const LEARN_QUEUE = "embedding-router-learn";

/** The feedback and add-examples requests the gateway forwards, as endpoints of the router's micro service. */
export function learningEndpoints(deps: LearningDeps): Endpoint[] {
  return [
    protoEndpoint("feedback", FEEDBACK_SUBJECT, FeedbackRequestSchema, FeedbackResponseSchema, async (request) =>
      applyFeedback(deps.examples, deps.pending, await loadPacket(deps.packets, request.packetId), request, deps.isTool, deps.settings),
    ),
    protoEndpoint("examples", EXAMPLES_SUBJECT, AddExamplesRequestSchema, AddExamplesResponseSchema, (request, requestHeaders) => {
      // The gateway names the caller's tenant, and lets only an admin ask for shared examples.
      const tenant = requestHeaders?.get(Headers.Tenant) ?? "";
      if (!request.shared && tenant === "") throw new ServiceError(400, "examples are a tenant's: the request names none (or asks for shared ones)");
      return addToolExamples(deps.examples, request.tool, request.shared ? SHARED : tenant, request.examples, deps.isTool);
    }),
  ];
}

/**
 * Learning from finished packets (`switchyard.done.>`, core NATS, so a packet finished
 * while no router runs is not learned from); undefined with LEARN_FROM_USE=false.
 */
export function learnFromFinishedPackets(deps: LearningDeps): Subscription | undefined {
  if (!deps.settings.LEARN_FROM_USE) return undefined;
  return deps.nc.subscribe(DONE_WILDCARD, {
    queue: LEARN_QUEUE,
    callback: (error, msg) => {
      if (error) return deps.logger.error({ err: error }, "finished-packet subscription failed");
      void learn(deps, msg);
    },
  });
}

async function learn(deps: LearningDeps, msg: Msg): Promise<void> {
  try {
    if (!mayTeach(decodePacketApprovalSummary(msg.data))) return;
    const packet = decodePacket(msg.data);
    // Within the packet's trace (the announcement carries it), so the log lines say which packet and trace.
    const ctx = withPacketId(extractTraceContext(msg.headers), packet.header?.packetId ?? "");
    await context.with(ctx, async () => {
      const tool = await learnFromPacket(deps.examples, deps.pending, packet, deps.settings);
      if (tool) deps.logger.debug({ tool }, "learned an example");
    });
  } catch (error) {
    deps.logger.warn({ err: error, subject: msg.subject }, "could not learn from a finished packet");
  }
}
