/**
 * Learning from use: a finished packet whose tool ran teaches the router its
 * query as an example of that tool; feedback takes a wrong one back (and may
 * give it to the right tool); examples may also be added by hand. Everything
 * is stored in the examples bucket, which catalog-index.ts merges into the
 * tools it indexes.
 */
import { create } from "@bufbuild/protobuf";
import type { KV } from "@nats-io/kv";
import {
  addExamples,
  exampleTexts,
  learnExample,
  rejectExample,
  RpcError,
  updateToolExamples,
} from "@switchyard/bus";
import {
  AddExamplesResponseSchema,
  contentOf,
  FeedbackResponseSchema,
  intentOf,
  isFinal,
  Packet_State,
  routingOf,
  ToolRoutingState_ExecutionStatus,
} from "@switchyard/packet";
import type { AddExamplesResponse, FeedbackRequest, FeedbackResponse, Packet } from "@switchyard/packet";
import { isAnaphoric } from "@switchyard/request-text";
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
 * Stores what a finished packet teaches, unless learning is off. Returns the
 * tool that learned the query, or undefined when nothing was learned (nothing
 * to learn, or the query was rejected for the tool by feedback before).
 */
export async function learnFromPacket(bucket: KV, packet: Packet, settings: LearningSettings): Promise<string | undefined> {
  const lesson = settings.LEARN_FROM_USE ? lessonOf(packet) : undefined;
  if (!lesson) return undefined;
  let learned = false;
  await updateToolExamples(bucket, lesson.tool, (current) => {
    const next = learnExample(current, lesson.query, settings.LEARN_MAX_EXAMPLES_PER_TOOL);
    learned = next !== undefined;
    return next;
  });
  return learned ? lesson.tool : undefined;
}

/**
 * Feedback on a packet. correct=false takes the packet's query from its
 * selected tool (and keeps it from being learned for it again) and, when
 * `tool` is given, adds it to that tool. correct=true changes nothing.
 * Throws an RpcError: 404 for an unknown packet or tool, 409 for a packet
 * still running, 400 for a request that contradicts itself.
 */
export async function applyFeedback(
  bucket: KV,
  packet: Packet | undefined,
  request: FeedbackRequest,
  isTool: (name: string) => boolean,
): Promise<FeedbackResponse> {
  const { packetId } = request;
  if (request.correct === undefined) throw new RpcError(400, "correct is required");
  if (!packet) throw new RpcError(404, `no packet with id ${packetId}`);
  if (!isFinal(packet.state)) throw new RpcError(409, `packet ${packetId} is still running (${Packet_State[packet.state]})`);
  const query = stepWords(packet);
  const response = create(FeedbackResponseSchema, { packetId, query });
  if (request.correct) {
    if (request.tool) throw new RpcError(400, "tool is only for correct=false: the tool that should have been chosen");
    return response;
  }

  const wrong = routingOf(packet).selectedTool?.toolName ?? "";
  const right = request.tool;
  if (right !== "" && right === wrong) throw new RpcError(400, `${right} is the packet's own tool; correct=false says it was wrong`);
  if (right !== "" && !isTool(right)) throw new RpcError(404, `no tool named ${right}`);
  if (wrong !== "") {
    await updateToolExamples(bucket, wrong, (current) => rejectExample(current, query));
    response.removedFrom = wrong;
  }
  if (right !== "") {
    await updateToolExamples(bucket, right, (current) => addExamples(current, [query]).next);
    response.addedTo = right;
  }
  return response;
}

/** Adds examples to a tool by hand. Throws an RpcError 404 for a tool the catalog does not have. */
export async function addToolExamples(
  bucket: KV,
  tool: string,
  examples: readonly string[],
  isTool: (name: string) => boolean,
): Promise<AddExamplesResponse> {
  if (!isTool(tool)) throw new RpcError(404, `no tool named ${tool}`);
  let added = 0;
  const stored = await updateToolExamples(bucket, tool, (current) => {
    const result = addExamples(current, examples);
    added = result.added;
    return result.next;
  });
  return create(AddExamplesResponseSchema, { tool, added, examples: exampleTexts(stored) });
}
