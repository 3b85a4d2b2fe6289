/**
 * Learning from use: a finished packet whose tool ran teaches the router its
 * query as an example of that tool; feedback takes a wrong one back (and may
 * give it to the right tool); examples may also be added by hand. Everything
 * is stored in the examples bucket, which catalog-index.ts merges into the
 * tools it indexes.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import { ServiceError } from "@switchyard/bus";
import { addExamples, exampleTexts, learnExample, rejectExample, removeExample, SHARED, updateToolExamples } from "@switchyard/learning";
import {
  AddExamplesResponseSchema,
  contentOf,
  FeedbackResponseSchema,
  intentOf,
  isFinal,
  Packet_State,
  PendingLessonSchema,
  StoredExample_Source,
  routingOf,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { AddExamplesResponse, FeedbackRequest, FeedbackResponse, Packet, PacketApprovalSummary, PacketHeader, PendingLesson } from "@switchyard/packet";
import { createHash } from "node:crypto";
import { isAnaphoric, isCorrection } from "@switchyard/request-text";
import type { Config } from "./config.js";

export type LearningSettings = Pick<Config, "LEARN_FROM_USE" | "LEARN_MAX_EXAMPLES_PER_TOOL">;

/**
 * The words of a packet's last step as the user wrote them: the step, else the prompt. Never
 * the router's query, which may have earlier turns glued in front ("read notes/todo.md\nthe
 * other one?"): an example must say what one request asks for.
 */
export function stepWords(packet: Packet): string {
  const intent = intentOf(packet);
  return (intent.steps[intent.stepIndex] || contentOf(packet).originalPrompt).trim();
}

/**
 * What a finished packet teaches: its last step's own words, as an example of the tool that
 * ran it. Only a completed packet whose tool was really executed (not a dry run, not denied,
 * not failed or skipped) teaches anything, and not a step that only points back ("do it
 * again", "the other one?"): its words name nothing the tool does.
 */
export function lessonOf(packet: Packet): { tool: string; query: string } | undefined {
  const routing = routingOf(packet);
  const tool = routing.selectedTool?.toolName ?? "";
  if (packet.state !== Packet_State.COMPLETED || tool === "" || routing.dryRun) return undefined;
  if (routing.executionStatus !== ToolRoutingState_ExecutionStatus.EXECUTED || !routing.executionResult?.success) return undefined;
  const query = stepWords(packet);
  return query === "" || isAnaphoric(query) ? undefined : { tool, query };
}

/**
 * Learning that cannot make routing worse: a finished packet's lesson is stored only once its
 * call is known to be right, because the user approved it (a call that waited for approval),
 * or gave positive feedback (`applyFeedback`), or sent the next request of the same session
 * without correcting it ("no, …", "I meant …": `isCorrection`). Until then the lesson waits in
 * the pending-lessons bucket under its session; a packet without a session of its own teaches
 * only what the user approved or confirmed by feedback. Every lesson is the packet's tenant's:
 * stored as its examples, and its sessions are its own (another tenant's packet with the same
 * session id neither confirms nor sees them). Returns the tool that learned an example (the
 * packet's own, or the session's pending one it confirmed), or undefined.
 */
export async function learnFromPacket(examples: KV, pending: KV, packet: Packet, settings: LearningSettings): Promise<string | undefined> {
  if (!settings.LEARN_FROM_USE) return undefined;
  const packetId = packet.header?.packetId ?? "";
  // Every packet the gateway accepts has a tenant; one without (none should come) teaches nobody rather than everyone.
  const tenant = packet.header?.tenant ?? "";
  if (tenant === SHARED) return undefined;
  const session = sessionKey(packet.header);
  let learned: string | undefined;
  if (session) {
    const waiting = await readPending(pending, session);
    if (waiting && waiting.packetId !== packetId) {
      await pending.delete(session);
      if (!isCorrection(contentOf(packet).originalPrompt)) learned = await teach(examples, waiting, tenant, settings);
    }
  }
  const lesson = lessonOf(packet);
  if (!lesson) return learned;
  if (routingOf(packet).approval?.grantedAt) return (await teach(examples, lesson, tenant, settings)) ?? learned;
  if (session) await pending.put(session, toBinary(PendingLessonSchema, create(PendingLessonSchema, { ...lesson, packetId })));
  return learned;
}

/** Stores a confirmed lesson as the tenant's example of its tool; the tool, or undefined when it was not taken (a duplicate, rejected before). */
async function teach(examples: KV, lesson: { tool: string; query: string }, tenant: string, settings: LearningSettings): Promise<string | undefined> {
  let learned = false;
  await updateToolExamples(examples, lesson.tool, tenant, (current) => {
    const next = learnExample(current, lesson.query, settings.LEARN_MAX_EXAMPLES_PER_TOOL);
    learned = next !== undefined;
    return next;
  });
  return learned ? lesson.tool : undefined;
}

/**
 * Whether a finished packet can teach anything, from its header and approval alone: only
 * through its session (a lesson waiting for it, or its own to wait) or an approval given.
 * Most finished packets have neither, and are then not decoded whole.
 */
export function mayTeach(summary: PacketApprovalSummary): boolean {
  return sessionKey(summary.header) !== undefined || summary.toolRouting?.approval?.grantedAt !== undefined;
}

/**
 * The pending-lessons key of the packet's session: a hash of its tenant and session id (session
 * ids are the caller's, and two tenants may pick the same); undefined without a session of its own.
 */
function sessionKey(header: PacketHeader | undefined): string | undefined {
  const { sessionId, packetId, tenant = "" } = header ?? {};
  if (!sessionId || sessionId === packetId) return undefined;
  // A tenant has no NUL, so no other tenant and session id hash the same text.
  return createHash("sha256").update(`${tenant}\0${sessionId}`).digest("hex");
}

/** The tenant whose examples feedback on a packet changes; a packet without one is refused. */
function tenantOf(packet: Packet): string {
  const tenant = packet.header?.tenant ?? "";
  if (tenant === SHARED) throw new ServiceError(400, `packet ${packet.header?.packetId ?? "?"} has no tenant: it teaches nothing`);
  return tenant;
}

async function readPending(pending: KV, key: string): Promise<PendingLesson | undefined> {
  const entry = await pending.get(key);
  if (!entry || entry.operation !== "PUT" || entry.value.length === 0) return undefined;
  return fromBinary(PendingLessonSchema, entry.value);
}

/** Drops the session's pending lesson when it is this packet's: feedback has settled it. */
async function settlePending(pending: KV, packet: Packet): Promise<void> {
  const session = sessionKey(packet.header);
  if (session && (await readPending(pending, session))?.packetId === packet.header?.packetId) await pending.delete(session);
}

/**
 * Feedback on a packet, about its tenant's examples alone. correct=false takes the packet's
 * query from the tenant's examples of its selected tool (and keeps it from being learned for
 * it again), with the tenant's example that scored that tool for it if one did (the
 * candidate's `exampleId`: the example that made the wrong call), and, when `tool` is given,
 * adds the query to the tenant's examples of that tool.
 * correct=true confirms the call: its lesson is learned now (with learning on), instead of
 * waiting for the session.
 * Throws a ServiceError: 404 for an unknown packet or tool, 409 for a packet
 * still running, 400 for a request that contradicts itself.
 */
export async function applyFeedback(
  bucket: KV,
  pending: KV,
  packet: Packet | undefined,
  request: FeedbackRequest,
  isTool: (name: string) => boolean,
  settings: LearningSettings,
): Promise<FeedbackResponse> {
  const { packetId } = request;
  if (request.correct === undefined) throw new ServiceError(400, "correct is required");
  if (!packet) throw new ServiceError(404, `no packet with id ${packetId}`);
  if (!isFinal(packet.state)) throw new ServiceError(409, `packet ${packetId} is still running (${Packet_State[packet.state]})`);
  const query = stepWords(packet);
  const tenant = tenantOf(packet);
  const response = create(FeedbackResponseSchema, { packetId, query });
  if (request.correct) {
    if (request.tool) throw new ServiceError(400, "tool is only for correct=false: the tool that should have been chosen");
    const lesson = lessonOf(packet);
    await settlePending(pending, packet);
    if (lesson && settings.LEARN_FROM_USE && (await teach(bucket, lesson, tenant, settings))) response.addedTo = lesson.tool;
    return response;
  }
  await settlePending(pending, packet);

  const wrong = routingOf(packet).selectedTool?.toolName ?? "";
  const right = request.tool;
  if (right !== "" && right === wrong) throw new ServiceError(400, `${right} is the packet's own tool; correct=false says it was wrong`);
  if (right !== "" && !isTool(right)) throw new ServiceError(404, `no tool named ${right}`);
  if (wrong !== "") {
    const matched = routingOf(packet).candidates.find((c) => c.tool?.name === wrong)?.exampleId ?? "";
    let removed = "";
    await updateToolExamples(bucket, wrong, tenant, (current) => {
      const taken = matched === "" ? undefined : removeExample(current, matched);
      removed = taken ? matched : "";
      return rejectExample(taken?.next ?? current, query);
    });
    response.removedFrom = wrong;
    response.removedExample = removed;
  }
  if (right !== "") {
    await updateToolExamples(bucket, right, tenant, (current) => addExamples(current, [query], new Date(), StoredExample_Source.FEEDBACK).next);
    response.addedTo = right;
  }
  return response;
}

/**
 * Adds examples to a tool by hand, as `owner`'s: a tenant's, or SHARED (the gateway lets only an
 * admin ask for that). Throws a ServiceError 404 for a tool the catalog does not have.
 */
export async function addToolExamples(
  bucket: KV,
  tool: string,
  owner: string,
  examples: readonly string[],
  isTool: (name: string) => boolean,
): Promise<AddExamplesResponse> {
  if (!isTool(tool)) throw new ServiceError(404, `no tool named ${tool}`);
  let added = 0;
  const stored = await updateToolExamples(bucket, tool, owner, (current) => {
    const result = addExamples(current, examples);
    added = result.added;
    return result.next;
  });
  return create(AddExamplesResponseSchema, { tool, added, examples: exampleTexts(stored) });
}
